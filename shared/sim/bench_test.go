package sim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/twinframe/twinframe/internal/cputime"
	"github.com/twinframe/twinframe/shared/world"
)

// crowd builds the default world without population and spawns n wandering NPCs
// (prototype "wanderer") in its outdoor zone, the wilds, spread over its areas by
// their size.
func crowd(tb testing.TB, n int, seed uint64) *Game {
	tb.Helper()
	return crowdIn(tb, defaultWorld(tb), "wilds", n, seed)
}

// crowdShare is the share (percent) of a crowd that each kind of area of the hub
// (downtown) gets, by the area's name before any copy's suffix. Areas of other kinds
// get shares by their size.
var crowdShare = map[string]int{"streets": 70, "park": 22, "lab": 8}

// crowdIn builds world w without population and spawns n wandering NPCs over the areas
// of its region named region: a kind of area of crowdShare gets its share, split
// evenly between its copies (the bench world has one per tile); other areas share
// the crowd by their size.
func crowdIn(tb testing.TB, w *world.World, region string, n int, seed uint64) *Game {
	tb.Helper()
	id := int32(-1)
	for _, wr := range w.Regions {
		if wr.Name == region {
			id = wr.ID
		}
	}
	g, err := New(w, &Options{Seed: seed, NoPopulation: true, Region: id})
	if err != nil {
		tb.Fatal(err)
	}
	r := g.Home()
	copies := map[string]int{}
	for _, a := range r.areas {
		copies[areaKind(a.name)]++
	}
	weights := make([]float64, len(r.areas))
	total := 0.0
	for i, a := range r.areas {
		kind := areaKind(a.name)
		if share, ok := crowdShare[kind]; ok {
			weights[i] = float64(share) / 100 / float64(copies[kind])
		} else {
			weights[i] = float64(a.max[0]-a.min[0]) * float64(a.max[1]-a.min[1])
		}
		total += weights[i]
	}
	placed := 0
	for i, a := range r.areas {
		k := int(float64(n) * weights[i] / total)
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
// NPC has walked, rested and re-planned): 1k, 10k and 25k in the outdoor zone (wilds,
// the home of the big crowds), 10k in the hub (downtown: four times the density among
// streets and buildings), and 50k in the bench world, the hub tiled 2×2 (benchWorld:
// four times the area and obstacles, so 50k there is 1.25 times the crowd density of
// 10k in the hub).
func BenchmarkFrame(b *testing.B) {
	for _, c := range []struct {
		n      int
		region string
		tiles  int
	}{{1000, "wilds", 1}, {10000, "wilds", 1}, {25000, "wilds", 1}, {10000, "downtown", 1}, {50000, "downtown", 2}} {
		name := fmt.Sprintf("npcs=%d/region=%s", c.n, c.region)
		if c.tiles > 1 {
			name = fmt.Sprintf("npcs=%d/world=%dx%d", c.n, c.tiles, c.tiles)
		}
		b.Run(name, func(b *testing.B) {
			w := defaultWorld(b)
			if c.tiles > 1 {
				w = benchWorld(b, c.tiles)
			}
			g := crowdIn(b, w, c.region, c.n, 1)
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
