package sim

import (
	"testing"

	"github.com/twinframe/twinframe/internal/cputime"
)

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
