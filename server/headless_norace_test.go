//go:build !race

package main

// testFrames is the length of the headless tests' runs.
const testFrames = 300
