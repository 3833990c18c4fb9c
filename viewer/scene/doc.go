// Package scene is what the viewer shows, independent of any screen: the Source a
// viewer reads the world from, the named overlays it draws, and Local, a source that runs
// the simulation with the embedded default world in-process.
//
// Design note: a Source is polled, never called back. The viewer (ebiten's Update, 60 Hz)
// calls Update with its clock, then reads Status, Log and Graphs, and asks the source to
// Draw into a debugdraw.Drawer with the enabled Overlays; commands (move, fire, pause,
// step) go in through Do. Sources own their threading: Local runs the game on the
// caller's goroutine, stepping as many 50 ms frames as the clock says are due (at most
// MaxCatchUp per call, dropping the rest so a slow page never spirals). The package does
// not import ebiten, so it is tested and benchmarked headless; the wall clock is read
// only to measure step cost, never to drive the game.
package scene
