package sim

import "testing"

// TestSteadyStateAllocs: once every NPC has walked, rested and re-planned a few times,
// a frame allocates nothing per entity: slices keep their storage from frame to frame.
// What remains (a handful per frame) comes from the few paths planned each frame, in
// navi's FindPath (its exact-predicate fallback allocates big numbers).
func TestSteadyStateAllocs(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("allocation counts need the plain build: make test-wasm runs this test without -race or -short")
	}
	g := crowd(t, 1000, 5)
	for range 1000 {
		must(t, g.Step())
	}
	allocs := testing.AllocsPerRun(200, func() { _ = g.Step() })
	t.Logf("%.2f allocations per frame with %d entities", allocs, len(g.Entities()))
	if limit := float64(len(g.Entities())) / 100; allocs > limit {
		t.Errorf("%.2f allocations per frame; want at most %.0f (no per-entity allocation)", allocs, limit)
	}
}
