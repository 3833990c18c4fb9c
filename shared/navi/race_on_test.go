//go:build race

package navi

// raceEnabled reports whether the test binary was built with -race, which
// slows the single-goroutine randomized tests without checking anything
// more in them.
const raceEnabled = true
