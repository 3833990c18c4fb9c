package sim

import (
	"bytes"
	"errors"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/world"
)

// transition returns the default world's transition named name.
func transition(t *testing.T, w *world.World, name string) world.Transition {
	t.Helper()
	for _, tr := range w.Transitions {
		if tr.Name == name {
			return tr
		}
	}
	t.Fatalf("no transition %q", name)
	return world.Transition{}
}

// walkIn spawns an owned avatar beside the hub's park gate, walks it into the portal
// and steps until it is inside, then 10 more frames; it returns the game, the avatar
// and every departure reported.
func walkIn(t *testing.T, seed uint64) (*Game, EntityID, []Departure) {
	t.Helper()
	w := defaultWorld(t)
	g, err := New(w, &Options{Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	gate := transition(t, w, "park-gate")
	av := spawn(t, g, protoAvatar, mgl32.Vec2{112, 180})
	must(t, g.SetOwner(av, 7))
	must(t, g.MoveTo(av, gate.Pos))
	var deps []Departure
	for f := 0; f < 200 && len(deps) == 0; f++ {
		run(t, g, 1)
		deps = append(deps, g.Departures()...)
	}
	for range 10 { // standing inside: no new departure
		run(t, g, 1)
		deps = append(deps, g.Departures()...)
	}
	return g, av, deps
}

// TestDepartureOnce: an owned avatar walking into a portal is reported once, with the
// portal's target; it is not moved; leaving and entering again reports it again.
func TestDepartureOnce(t *testing.T) {
	t.Parallel()
	g, av, deps := walkIn(t, 1)
	gate := transition(t, g.World(), "park-gate")
	want := Departure{Entity: av, Transition: gate.ID, Region: gate.Region, Marker: gate.Marker}
	if len(deps) != 1 || deps[0] != want {
		t.Fatalf("departures %+v, want [%+v]", deps, want)
	}
	if e := g.Entity(av); e == nil || e.Region() != g.Home().ID() {
		t.Fatal("the game moved the avatar itself")
	}
	must(t, g.MoveTo(av, mgl32.Vec2{112, 180}))
	run(t, g, 40)
	must(t, g.MoveTo(av, gate.Pos))
	n := 0
	for range 60 {
		run(t, g, 1)
		n += len(g.Departures())
	}
	if n != 1 {
		t.Errorf("re-entry reported %d times, want 1", n)
	}
	// An NPC or an unowned avatar does not travel.
	must(t, g.SetOwner(av, -1))
	must(t, g.MoveTo(av, mgl32.Vec2{112, 180}))
	run(t, g, 40)
	must(t, g.MoveTo(av, gate.Pos))
	for range 60 {
		run(t, g, 1)
		if len(g.Departures()) != 0 {
			t.Fatal("an unowned avatar departed")
		}
	}
}

// TestHandoffRoundTrip: Emigrate then Immigrate into the target region's game keeps
// the entity bit for bit but for its place (region, position, stopped move, frames of
// change); the source game no longer has it; both games stay deterministic.
func TestHandoffRoundTrip(t *testing.T) {
	t.Parallel()
	src, av, deps := walkIn(t, 1)
	dep := deps[0]
	dst, err := New(src.World(), &Options{Seed: 2, Region: dep.Region})
	if err != nil {
		t.Fatal(err)
	}
	run(t, dst, int(src.Frame()-dst.Frame())) // the games step together
	b, err := src.Emigrate(av)
	if err != nil {
		t.Fatal(err)
	}
	if src.Entity(av) != nil {
		t.Fatal("the avatar is still in the source game")
	}
	if _, err := src.Emigrate(av); !errors.Is(err, ErrNoEntity) {
		t.Errorf("second Emigrate: %v", err)
	}
	id, err := dst.Immigrate(b, dep.Marker)
	if err != nil {
		t.Fatal(err)
	}
	e := dst.Entity(id)
	if id != av || e == nil || e.Owner() != 7 || e.Region() != dep.Region {
		t.Fatalf("immigrant %d (%+v), want %d", id, e, av)
	}
	// What the bytes said, with the place changed as documented, packs to what the
	// immigrant packs to.
	u, err := archive.NewUnpacker(archive.Migration, b)
	must(t, err)
	var want Entity
	u.TransferObject(&want)
	must(t, u.Done())
	var arrival mgl32.Vec2
	for _, m := range src.World().Markers {
		if m.ID == dep.Marker {
			arrival = m.Pos
		}
	}
	want.region, want.pos = dep.Region, arrival
	want.loco = locomotor{}
	want.follow = follow{}
	want.changed, want.locoFrame, want.wake = dst.Frame(), dst.Frame(), 0
	pack := func(e *Entity) []byte {
		p := archive.NewPacker(archive.Migration, archive.AllChannels)
		p.TransferObject(e)
		must(t, p.Err())
		return p.Bytes()
	}
	if !bytes.Equal(pack(&want), pack(e)) {
		t.Errorf("immigrant differs from the emigrant beyond its place:\n got %+v\nwant %+v", *e, want)
	}
	// Errors, with nothing changed.
	h := dst.StateHash()
	if _, err := dst.Immigrate(b, dep.Marker); !errors.Is(err, ErrCorrupt) {
		t.Errorf("same id again: %v", err)
	}
	if _, err := dst.Immigrate(b, 0); !errors.Is(err, ErrNoRegion) {
		t.Errorf("marker of another region: %v", err)
	}
	if _, err := dst.Immigrate(b[:len(b)/2], dep.Marker); err == nil {
		t.Error("truncated bytes accepted")
	}
	if _, err := dst.Immigrate([]byte("junk"), dep.Marker); err == nil {
		t.Error("junk accepted")
	}
	if dst.StateHash() != h {
		t.Error("a failed Immigrate changed the game")
	}
	run(t, dst, 20)
	must(t, dst.CheckInvariants())
	must(t, src.CheckInvariants())
	// The same handoff again gives the same hashes.
	src2, av2, _ := walkIn(t, 1)
	dst2, err := New(src2.World(), &Options{Seed: 2, Region: dep.Region})
	must(t, err)
	run(t, dst2, int(src2.Frame()-dst2.Frame()))
	b2, err := src2.Emigrate(av2)
	must(t, err)
	_, err = dst2.Immigrate(b2, dep.Marker)
	must(t, err)
	run(t, dst2, 20)
	if src2.StateHash() != src.StateHash() || dst2.StateHash() != dst.StateHash() {
		t.Error("the same handoff gave other state hashes")
	}
}

// TestImmigrateInTransit: during a Step, an emigrant stays in the game until the end
// of the frame; its id cannot immigrate meanwhile.
func TestImmigrateInTransit(t *testing.T) {
	t.Parallel()
	g, av, _ := walkIn(t, 3)
	var b []byte
	var err, again error
	g.Schedule(g.Frame()+1, func(uint64) {
		b, err = g.Emigrate(av)
		_, again = g.Immigrate(b, 65)
	})
	run(t, g, 1)
	must(t, err)
	if !errors.Is(again, ErrInTransit) {
		t.Errorf("Immigrate mid-handoff: %v, want ErrInTransit", again)
	}
	if g.Entity(av) != nil {
		t.Error("the emigrant is still there after the frame")
	}
	if id, err := g.Immigrate(b, 65); err != nil || id != av {
		t.Errorf("coming back: %d, %v", id, err)
	}
}

// TestImmigrateOntoOccupiedMarker: a second traveller to a marker another one still
// stands on arrives beside it, not inside it (blocking bodies at one point have no
// direction to be pushed apart in), and the game keeps its invariants.
func TestImmigrateOntoOccupiedMarker(t *testing.T) {
	t.Parallel()
	src, av, deps := walkIn(t, 1)
	dep := deps[0]
	dst, err := New(src.World(), &Options{Seed: 2, Region: dep.Region, NoPopulation: true})
	must(t, err)
	b, err := src.Emigrate(av)
	must(t, err)
	first, err := dst.Immigrate(b, dep.Marker)
	must(t, err)
	// The second traveller: the same avatar under a fresh id of the source's block.
	other, err := src.Spawn(dst.Entity(first).Prototype(), src.Home().ID(), src.Home().SpawnPoints()[0], 0)
	must(t, err)
	b2, err := src.Emigrate(other)
	must(t, err)
	second, err := dst.Immigrate(b2, dep.Marker)
	must(t, err)
	p1, p2 := dst.Entity(first).Pos(), dst.Entity(second).Pos()
	if d := p1.Sub(p2).Len(); d < dst.Entity(first).Radius()+dst.Entity(second).Radius() {
		t.Errorf("the travellers stand %g m apart, at %v and %v", d, p1, p2)
	}
	if err := dst.CheckInvariants(); err != nil {
		t.Error(err)
	}
}

// TestImmigrateCooldownFromAnotherCount: an avatar that fired just before leaving
// a region whose frames count far ahead of the target's (another node's region)
// may fire again there within one cooldown, not after the source's frame number.
func TestImmigrateCooldownFromAnotherCount(t *testing.T) {
	t.Parallel()
	src, av, deps := walkIn(t, 1)
	dep := deps[0]
	for range 3000 {
		must(t, src.Step())
	}
	e := src.Entity(av)
	_, err := src.Fire(av, e.Pos().Add(mgl32.Vec2{1, 0}))
	must(t, err)
	b, err := src.Emigrate(av)
	must(t, err)
	dst, err := New(src.World(), &Options{Seed: 2, Region: dep.Region, NoPopulation: true})
	must(t, err)
	id, err := dst.Immigrate(b, dep.Marker)
	must(t, err)
	cooldown := int(dst.World().FireCooldown(PowerBolt))
	fired := -1
	for f := 0; f <= cooldown+1 && fired < 0; f++ {
		p := dst.Entity(id).Pos()
		if _, err := dst.Fire(id, p.Add(mgl32.Vec2{1, 0})); err == nil {
			fired = f
		} else if !errors.Is(err, ErrCooldown) {
			t.Fatal(err)
		}
		must(t, dst.Step())
	}
	if fired < 0 {
		t.Fatalf("no fire within %d frames of arriving (source at frame %d, target at %d)", cooldown+1, src.Frame(), dst.Frame())
	}
}

// TestSkipIDs: a region restored from a save taken before its earlier run handed
// out an id to an entity that then left takes that entity back after SkipIDs (and
// refuses it without), and never hands the id out again.
func TestSkipIDs(t *testing.T) {
	t.Parallel()
	_, _, deps := walkIn(t, 1)
	dep := deps[0]
	g, err := New(defaultWorld(t), &Options{Seed: 3, Region: dep.Region, NoPopulation: true})
	if err != nil {
		t.Fatal(err)
	}
	var at mgl32.Vec2
	for _, m := range g.World().Markers {
		if m.ID == dep.Marker {
			at = m.Pos
		}
	}
	saved, err := g.Snapshot()
	must(t, err)
	x, err := g.Spawn(protoAvatar, g.Home().ID(), at, 0)
	must(t, err)
	b, err := g.Emigrate(x) // left for another region, after the save
	must(t, err)

	restore := func() *Game {
		h, err := Restore(g.World(), saved, &g.opt)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	if _, err := restore().Immigrate(b, dep.Marker); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("without SkipIDs, the traveller's return: %v, want ErrCorrupt", err)
	}
	h := restore()
	must(t, h.SkipIDs())
	id, err := h.Immigrate(b, dep.Marker)
	if err != nil || id != x {
		t.Fatalf("after SkipIDs the traveller %d returns as %d, %v", x, id, err)
	}
	y, err := h.Spawn(protoAvatar, h.Home().ID(), at.Add(mgl32.Vec2{3, 0}), 0)
	must(t, err)
	if y < x+IDEpoch {
		t.Errorf("the restored game hands out %d after the traveller's %d", y, x)
	}
	run(t, h, 5)
}
