package sim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/twinframe/twinframe/internal/cputime"
	"github.com/twinframe/twinframe/shared/world"
)

// crowd builds the default world without population and spawns n wandering NPCs
// (prototype "wanderer"), spread over the three areas by their size.
func crowd(tb testing.TB, n int, seed uint64) *Game {
	tb.Helper()
	return crowdIn(tb, defaultWorld(tb), n, seed)
}

// crowdShare is the share (percent) of a crowd that each kind of area of the default
// region gets, by the area's name before any copy's suffix.
var crowdShare = map[string]int{"streets": 70, "park": 22, "lab": 8}

// crowdIn builds world w without population and spawns n wandering NPCs over the areas
// of its first region: each kind of area gets its share of crowdShare, split evenly
// between its copies (the bench world has one per tile).
func crowdIn(tb testing.TB, w *world.World, n int, seed uint64) *Game {
	tb.Helper()
	g, err := New(w, &Options{Seed: seed, NoPopulation: true})
	if err != nil {
		tb.Fatal(err)
	}
	r := g.Regions()[0]
	copies := map[string]int{}
	for _, a := range r.areas {
		copies[areaKind(a.name)]++
	}
	placed := 0
	for i, a := range r.areas {
		kind := areaKind(a.name)
		k := n * crowdShare[kind] / 100 / copies[kind]
		if i == len(r.areas)-1 {
			k = n - placed
		}
		got, err := g.SpawnInArea(r.id, a.name, 1, k)
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

func areaKind(name string) string {
	kind, _, _ := strings.Cut(name, "-")
	return kind
}

// BenchmarkFrame measures one Step with wandering NPCs, after 200 warm-up frames (every
// NPC has walked, rested and re-planned): 1k, 10k and 25k in the default region (25k
// is about what it holds on its spawn grid), and 50k in the bench world, the default
// region tiled 2×2 (benchWorld: four times the area and obstacles, so 50k there is
// 1.25 times the crowd density of 10k in the default region).
func BenchmarkFrame(b *testing.B) {
	for _, c := range []struct {
		n     int
		tiles int
	}{{1000, 1}, {10000, 1}, {25000, 1}, {50000, 2}} {
		name := fmt.Sprintf("npcs=%d", c.n)
		if c.tiles > 1 {
			name = fmt.Sprintf("npcs=%d/world=%dx%d", c.n, c.tiles, c.tiles)
		}
		b.Run(name, func(b *testing.B) {
			w := defaultWorld(b)
			if c.tiles > 1 {
				w = benchWorld(b, c.tiles)
			}
			g := crowdIn(b, w, c.n, 1)
			for range 200 {
				if err := g.Step(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cputime.Process()
			for b.Loop() {
				if err := g.Step(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/frame")
			// CPU time per frame: on a shared, loaded machine wall time overstates it.
			b.ReportMetric(float64((cputime.Process()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/frame")
		})
	}
}
