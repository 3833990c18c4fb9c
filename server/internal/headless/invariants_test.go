package headless

import (
	"bytes"
	"github.com/twinframe/twinframe/shared/archive"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/server/internal/gameserver"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
	"github.com/twinframe/twinframe/shared/world"
)

// The frame hook checks the live game: a game whose entities break the invariants
// gives one named violation per problem, at the frame the hook saw.
func TestFrameCheckerNamesInvariants(t *testing.T) {
	t.Parallel()
	w, err := world.LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	g, err := sim.New(w, &sim.Options{NoPopulation: true})
	if err != nil {
		t.Fatal(err)
	}
	var c frameChecker
	step := func() {
		t.Helper()
		if err := g.Step(); err != nil {
			t.Fatal(err)
		}
		c.onFrame(gameserver.FrameView{Frame: g.Frame(), Games: []*sim.Game{g}})
	}
	step()
	if n, bad := c.take(); n != 1 || len(bad) != 0 {
		t.Fatalf("the default world: %d checks, %+v", n, bad)
	}
	region := g.Regions()[0]
	spawn := region.SpawnPoints()[0]
	a, err := g.Spawn(gameserver.AvatarPrototype, region.ID(), spawn, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := g.Spawn(gameserver.AvatarPrototype, region.ID(), spawn.Add(mgl32.Vec2{3, 0}), 0)
	if err != nil {
		t.Fatal(err)
	}
	// SetLocomotion places without checks: one avatar onto the other, and
	// then (a frame later) the other off the map.
	if err := g.SetLocomotion(b, &locomotion.State{Position: mgl32.Vec3{spawn[0] + 0.1, spawn[1]}}); err != nil {
		t.Fatal(err)
	}
	step()
	if err := g.SetLocomotion(a, &locomotion.State{Position: mgl32.Vec3{-500, -500}}); err != nil {
		t.Fatal(err)
	}
	step()
	n, bad := c.take()
	if n != 2 || len(bad) != 2 {
		t.Fatalf("%d checks, violations %+v", n, bad)
	}
	want := []struct {
		frame     uint64
		invariant string
		entity    uint64
	}{
		{g.Frame() - 1, "interpenetration", 0},
		{g.Frame(), "walkable", uint64(a)},
	}
	for i, w := range want {
		if v := bad[i]; v.Frame != w.frame || v.Check != "invariants" || v.Invariant != w.invariant || v.Entity != w.entity {
			t.Errorf("violation %d: %+v, want frame %d, %s, entity %d", i, v, w.frame, w.invariant, w.entity)
		}
	}
	c.close()
	step()
	if n, bad := c.take(); n != 0 || bad != nil {
		t.Errorf("checked after close: %d, %+v", n, bad)
	}
}

// A bolt alive after its flight ended is a projectileRange violation, named with
// its entity. The state is built through a Migration archive of a game whose
// frame counter is moved past the bolt's last frame.
func TestFrameCheckerNamesProjectileRange(t *testing.T) {
	t.Parallel()
	w, err := world.LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	g, err := sim.New(w, &sim.Options{NoPopulation: true})
	if err != nil {
		t.Fatal(err)
	}
	region := g.Regions()[0]
	spawn := region.SpawnPoints()[0]
	a, err := g.Spawn(gameserver.AvatarPrototype, region.ID(), spawn, 0)
	if err != nil {
		t.Fatal(err)
	}
	bolt, err := g.Fire(a, spawn.Add(mgl32.Vec2{0, 1}))
	if err != nil {
		t.Fatal(err)
	}
	frame := func(f uint64) []byte {
		p := archive.NewPacker(archive.Migration, archive.AllChannels)
		p.TransferUint64(&f)
		return p.Bytes()
	}
	p := archive.NewPacker(archive.Migration, archive.AllChannels)
	p.TransferObject(g)
	data, old, late := p.Bytes(), frame(g.Frame()), frame(100)
	if !bytes.HasPrefix(data, old) || len(old) != len(late) {
		t.Fatalf("the archive does not start with frame %d", g.Frame())
	}
	data = append(late, data[len(old):]...)
	h, err := sim.New(w, &sim.Options{NoPopulation: true})
	if err != nil {
		t.Fatal(err)
	}
	u, err := archive.NewUnpacker(archive.Migration, data)
	if err != nil {
		t.Fatal(err)
	}
	u.TransferObject(h)
	if err := u.Done(); err != nil {
		t.Fatal(err)
	}
	var c frameChecker
	c.onFrame(gameserver.FrameView{Frame: h.Frame(), Games: []*sim.Game{h}})
	n, bad := c.take()
	if n != 1 || len(bad) != 1 {
		t.Fatalf("%d checks, violations %+v", n, bad)
	}
	if v := bad[0]; v.Frame != 100 || v.Check != "invariants" || v.Invariant != "projectileRange" || v.Entity != uint64(bolt) {
		t.Errorf("violation %+v, want frame 100, projectileRange, entity %d", v, bolt)
	}
	// The next frame ends the flight.
	if err := h.Step(); err != nil {
		t.Fatal(err)
	}
	c.onFrame(gameserver.FrameView{Frame: h.Frame(), Games: []*sim.Game{h}})
	if n, bad := c.take(); n != 1 || len(bad) != 0 {
		t.Errorf("after a step: %d checks, %+v", n, bad)
	}
}
