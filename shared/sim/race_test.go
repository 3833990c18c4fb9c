//go:build race

package sim

// raceEnabled: the race detector slows the simulation about tenfold, so the longest
// scenario tests run shorter under it.
const raceEnabled = true
