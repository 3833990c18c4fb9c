package sim

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/twinframe/twinframe/internal/cputime"
)

// BenchmarkRegionsFrame steps four region games of 10k wandering NPCs each (four
// games of the wilds, the only region big enough for 10k, with their own seeds) one
// after another and in parallel, one goroutine per game, alternately in the same
// run, after 200 warm-up frames. It reports the median wall time of a frame each
// way and their ratio (the target: parallel at most 0.6 of serial and 25 ms on the
// 2-core CI machine). The games share only the world, as the server's regions do.
func BenchmarkRegionsFrame(b *testing.B) {
	const regions, npcs = 4, 10000
	w := defaultWorld(b)
	games := make([]*Game, regions)
	for i := range games {
		games[i] = crowdIn(b, w, "wilds", npcs, uint64(i+1))
	}
	step := func(g *Game) {
		if err := g.Step(); err != nil {
			b.Error(err)
		}
	}
	serial := func() {
		for _, g := range games {
			step(g)
		}
	}
	parallel := func() {
		var wg sync.WaitGroup
		for _, g := range games {
			wg.Go(func() { step(g) })
		}
		wg.Wait()
	}
	for range 100 {
		serial()
		parallel()
	}
	var ts, tp []time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cputime.Process()
	for b.Loop() {
		t0 := time.Now()
		serial()
		t1 := time.Now()
		parallel()
		ts, tp = append(ts, t1.Sub(t0)), append(tp, time.Since(t1))
	}
	median := func(d []time.Duration) float64 {
		d = slices.Clone(d)
		slices.Sort(d)
		return float64(d[len(d)/2].Microseconds()) / 1000
	}
	ms, mp := median(ts), median(tp)
	b.ReportMetric(ms, "serial-ms/frame")
	b.ReportMetric(mp, "parallel-ms/frame")
	b.ReportMetric(mp/ms, "parallel/serial")
	b.ReportMetric(float64((cputime.Process()-cpu0).Microseconds())/1000/float64(2*b.N), "cpu-ms/frame")
}

// BenchmarkHandoff measures a region change as the server makes it: Emigrate from
// the hub's game and Immigrate into the wilds' game (10k NPCs, where the arrival
// looks for a free spot among them), and back; an op is two handoffs.
func BenchmarkHandoff(b *testing.B) {
	w := defaultWorld(b)
	hub, err := New(w, &Options{Seed: 1, NoPopulation: true})
	if err != nil {
		b.Fatal(err)
	}
	wilds := crowdIn(b, w, "wilds", 10000, 2)
	var toWilds, toHub int32 = -1, -1
	for _, t := range w.Transitions {
		switch {
		case t.Region == wilds.Home().ID() && toWilds < 0:
			toWilds = t.Marker
		case t.Region == hub.Home().ID() && toHub < 0:
			toHub = t.Marker
		}
	}
	at, _ := hub.MarkerPos(toHub)
	id, err := hub.Spawn(protoAvatar, hub.Home().ID(), at, 0)
	if err != nil {
		b.Fatal(err)
	}
	if err := hub.SetOwner(id, 1); err != nil {
		b.Fatal(err)
	}
	move := func(from, to *Game, marker int32) {
		bytes, err := from.Emigrate(id)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := to.Immigrate(bytes, marker); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	cpu0 := cputime.Process()
	for b.Loop() {
		move(hub, wilds, toWilds)
		move(wilds, hub, toHub)
	}
	b.ReportMetric(float64((cputime.Process()-cpu0).Nanoseconds())/1000/float64(2*b.N), "cpu-us/handoff")
}
