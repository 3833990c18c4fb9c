//go:build !race

package headless

// testFrames is the length of the headless tests' runs.
const testFrames = 300

// raceEnabled: see race_test.go.
const raceEnabled = false
