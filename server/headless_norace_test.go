//go:build !race

package main

// testFrames is the length of the headless tests' runs.
const testFrames = 300

// raceEnabled: see headless_race_test.go.
const raceEnabled = false
