// Package scene is what the viewer shows, independent of any screen: the Source a
// viewer reads the world from (NewLocal's sandbox runs the simulation in-process with
// the embedded default world; NewNetwork's source is a client of a server, with
// prediction and drift), the named overlays it draws, and the View that turns input into
// camera moves and commands.
//
// Design note: a Source is polled, never called back. The viewer (ebiten's Update, 60 Hz)
// calls Update with its clock, then reads Status, Log and Graphs, and asks the source to
// Draw into a debugdraw.Drawer with the enabled Overlays; commands (move, fire, pause,
// step) go in through Do. Sources own their threading: the sandbox runs the game on the
// caller's goroutine, stepping as many 50 ms frames as the clock says are due (at most
// maxCatchUp per call, dropping the rest so a slow page never spirals); the networked
// source dials in the background, reads the replica under the client's lock, and redials
// with back-off when the connection drops. View's control methods are safe from any
// goroutine (the page's callbacks) and only queue commands for the next Tick. The package
// does not import ebiten, so it is tested and benchmarked headless; the wall clock is
// read only to measure step cost, never to drive the game.
package scene
