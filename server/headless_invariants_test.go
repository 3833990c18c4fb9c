package main

import (
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
		c.onFrame(gameserver.FrameView{Frame: g.Frame(), Game: g})
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
