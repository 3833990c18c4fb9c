package sim

import (
	"fmt"
	"testing"
)

// crowd builds the default world without population and spawns n wandering NPCs
// (prototype "wanderer"), spread over the three areas by their size.
func crowd(tb testing.TB, n int, seed uint64) *Game {
	tb.Helper()
	g, err := New(defaultWorld(tb), &Options{Seed: seed, NoPopulation: true})
	if err != nil {
		tb.Fatal(err)
	}
	parts := []struct {
		area  string
		share int
	}{{"streets", 70}, {"park", 22}, {"lab", 8}}
	placed := 0
	for i, p := range parts {
		k := n * p.share / 100
		if i == len(parts)-1 {
			k = n - placed
		}
		got, err := g.SpawnInArea(0, p.area, 1, k)
		if err != nil {
			tb.Fatal(err)
		}
		placed += got
	}
	if placed < n*9/10 {
		tb.Fatalf("placed %d of %d NPCs", placed, n)
	}
	return g
}

// BenchmarkFrame measures one Step of the default region with 1k, 10k and 25k wandering NPCs
// (25k: about what the default region holds on its spawn grid; 50k needs a larger world),
// after 200 warm-up frames (every NPC has walked, rested and re-planned).
func BenchmarkFrame(b *testing.B) {
	for _, n := range []int{1000, 10000, 25000} {
		b.Run(fmt.Sprintf("npcs=%d", n), func(b *testing.B) {
			g := crowd(b, n, 1)
			for range 200 {
				if err := g.Step(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			for b.Loop() {
				if err := g.Step(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/frame")
			// CPU time per frame: on a shared, loaded machine wall time overstates it.
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/frame")
		})
	}
}
