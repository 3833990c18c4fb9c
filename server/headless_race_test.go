//go:build race

package main

// testFrames is the length of the headless tests' runs: the race detector makes
// the server's frame about fifty times slower.
const testFrames = 100
