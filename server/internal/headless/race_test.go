//go:build race

package headless

// testFrames is the length of the headless tests' runs: the race detector makes
// the server's frame about fifty times slower.
const testFrames = 100

// raceEnabled: the runs that need hundreds of frames are left to the build
// without the race detector (make test-headless runs the same checks too).
const raceEnabled = true
