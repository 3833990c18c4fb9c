package sim_test

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
	"github.com/twinframe/twinframe/shared/world"
)

// unpopulated returns a game of the default world without its population.
func unpopulated(t testing.TB) *sim.Game {
	t.Helper()
	w, err := world.LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	g, err := sim.New(w, &sim.Options{NoPopulation: true})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// SetLocomotion takes a state as a Replication create does, without rounding it
// to the wire's grid: on the grid both give the same entity; off it, the values
// stay exactly as given.
func TestSetLocomotion(t *testing.T) {
	t.Parallel()
	g := unpopulated(t)
	r := g.Regions()[0]
	id, err := g.Spawn(0, r.ID(), r.SpawnPoints()[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.MoveAlongPath(id, r.SpawnPoints()[1].Add(mgl32.Vec2{0.3, 0.2})); err != nil {
		t.Fatal(err)
	}
	for range 7 {
		if err := g.Step(); err != nil {
			t.Fatal(err)
		}
	}
	var exact locomotion.State
	g.Entity(id).LocomotionState(&exact, g.Frame())

	// The state through the wire, into an entity by archive and by SetLocomotion.
	p := archive.NewPacker(archive.Replication, archive.Owner)
	p.TransferObject(g.Entity(id))
	var wire sim.Entity
	u, err := archive.NewUnpacker(archive.Replication, p.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	u.TransferObject(&wire)
	if err := u.Done(); err != nil {
		t.Fatal(err)
	}
	var quantized locomotion.State
	wire.LocomotionState(&quantized, wire.ChangedFrame())
	if err := g.SetLocomotion(id, &quantized); err != nil {
		t.Fatal(err)
	}
	var got locomotion.State
	g.Entity(id).LocomotionState(&got, g.Entity(id).ChangedFrame())
	if d := locomotion.Diff(&quantized, &got); d.Fields&^(locomotion.Relative|locomotion.Moving) != 0 || got.Position != quantized.Position || got.Yaw != quantized.Yaw {
		t.Errorf("on the grid: set %+v, got %+v", quantized, got)
	}
	// Off the grid: exactly as given.
	if err := g.SetLocomotion(id, &exact); err != nil {
		t.Fatal(err)
	}
	g.Entity(id).LocomotionState(&got, exact.Frame)
	if got.Position != exact.Position || got.Yaw != exact.Yaw || got.Speed != exact.Speed || got.Goal != exact.Goal || len(got.Path) != len(exact.Path) {
		t.Fatalf("exact: set %+v, got %+v", exact, got)
	}
	for i := range got.Path {
		if got.Path[i].Point != exact.Path[i].Point {
			t.Errorf("path node %d: %v, want %v", i, got.Path[i].Point, exact.Path[i].Point)
		}
	}
	if quantized.Position == exact.Position {
		t.Errorf("the walk ended on the grid (%v): the exact case tests nothing", exact.Position)
	}
	// Bad states and unknown entities are refused.
	bad := exact
	bad.Goal = uint32(len(exact.Path) + 1)
	if err := g.SetLocomotion(id, &bad); err == nil {
		t.Error("a goal beyond the path was taken")
	}
	if err := g.SetLocomotion(id+100, &exact); err == nil {
		t.Error("an unknown entity was set")
	}
}

// TestSetLocomotionKeepsStorage: setting a state, idle or moving with turns, reuses
// the entity's path and arcs storage (a client's rewind sets its avatar's state at
// every correction, then replays path plans into it).
func TestSetLocomotionKeepsStorage(t *testing.T) {
	g := unpopulated(t)
	r := g.Regions()[0]
	id, err := g.Spawn(0, r.ID(), r.SpawnPoints()[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	idle := locomotion.State{Entity: uint64(id), Position: mgl32.Vec3{r.SpawnPoints()[0][0], r.SpawnPoints()[0][1], 0}}
	moving := idle
	moving.Fields = locomotion.Moving
	moving.Speed = 3
	moving.Path = []locomotion.PathNode{
		{Point: idle.Position},
		{Point: idle.Position.Add(mgl32.Vec3{4, 0, 0}), Side: locomotion.Left, Radius: 0.5},
		{Point: idle.Position.Add(mgl32.Vec3{4, 4, 0})},
	}
	moving.Goal = 1
	allocs := testing.AllocsPerRun(20, func() {
		for _, st := range []*locomotion.State{&moving, &idle, &moving} {
			if err := g.SetLocomotion(id, st); err != nil {
				t.Fatal(err)
			}
		}
	})
	if allocs != 0 {
		t.Errorf("SetLocomotion allocates %v times per idle and two moving states", allocs)
	}
	var got locomotion.State
	g.Entity(id).LocomotionState(&got, g.Frame())
	if got.Fields&locomotion.Moving == 0 || len(got.Path) != 3 || got.Path[1].Side != locomotion.Left || got.Path[1].Radius != 0.5 {
		t.Errorf("after a moving state: %+v", got)
	}
}
