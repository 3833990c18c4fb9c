package gameserver

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/twinframe/twinframe/internal/cputime"
	"github.com/twinframe/twinframe/shared/sim"
)

// crowdedRegions replaces s's regions by n games of the wilds, each with crowd
// wandering NPCs spread over its areas by their size: the frame of a world of n
// busy regions.
func crowdedRegions(b *testing.B, s *Server, n, crowd int) {
	b.Helper()
	wilds := s.regions[1]
	var areas []string
	for _, a := range s.world.Areas {
		if a.Region == wilds.id {
			areas = append(areas, a.Name)
		}
	}
	s.regions = s.regions[:0]
	for i := range n {
		g, err := sim.New(s.world, &sim.Options{Region: wilds.id, Seed: uint64(i + 1), NoPopulation: true})
		if err != nil {
			b.Fatal(err)
		}
		placed := 0
		for k, a := range areas {
			want := crowd / len(areas)
			if k == len(areas)-1 {
				want = crowd - placed
			}
			got, err := g.SpawnInArea(wilds.id, a, 1, want) // wanderers
			if err != nil {
				b.Fatal(err)
			}
			placed += got
		}
		r := &region{id: wilds.id, name: fmt.Sprintf("wilds-%d", i), game: g}
		if r.repl, err = s.newReplicator(g); err != nil {
			b.Fatal(err)
		}
		s.regions = append(s.regions, r)
	}
}

// BenchmarkRegionsFrame measures the wall time of stepping 4 regions of 10k
// wandering NPCs each (the step and its replication preparation, no clients), one
// region at a time (workers=1) and on the server's pool (workers=GOMAXPROCS), in
// the same run. It reports the median frame and the CPU per frame.
func BenchmarkRegionsFrame(b *testing.B) {
	for _, workers := range []int{1, 0} {
		name := "serial"
		if workers == 0 {
			name = "parallel"
		}
		b.Run(fmt.Sprintf("regions=4/npcs=10000/%s", name), func(b *testing.B) {
			s := benchServer(b, func(c *Config) { c.Workers = workers })
			crowdedRegions(b, s, 4, 10000)
			frame := func() {
				start := s.stepRegions()
				s.prepareRegions(true, start)
			}
			for range 20 { // the crowds spread out first
				frame()
			}
			var walls []time.Duration
			cpu0 := cputime.Process()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				t0 := time.Now()
				frame()
				walls = append(walls, time.Since(t0))
			}
			b.StopTimer()
			cpu := cputime.Process() - cpu0
			slices.Sort(walls)
			b.ReportMetric(float64(walls[len(walls)/2].Microseconds())/1000, "median-ms")
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(walls)), "cpu-ms/frame")
			b.ReportMetric(float64(s.workers()), "workers")
		})
	}
}
