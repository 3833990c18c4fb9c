package replication_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/replication"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
	"github.com/twinframe/twinframe/shared/world"
)

func quietGame(t testing.TB) *sim.Game {
	t.Helper()
	w, err := world.LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	g, err := sim.New(w, &sim.Options{Seed: 3, NoPopulation: true})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// wireError is the largest distance between a position and the nearest one the
// wire carries (1/16 m per coordinate), plus float rounding.
const wireError = 0.0884 + 1e-4

// TestRemoteWalksWithTheEntity: a Remote corrected once, when an unobstructed
// entity starts walking, stays within the wire's rounding of the entity until it
// arrives, needs no correction on the way, and knows when it stops.
func TestRemoteWalksWithTheEntity(t *testing.T) {
	t.Parallel()
	g := quietGame(t)
	id, err := g.Spawn(2, 0, mgl32.Vec2{30, 40}, 0) // a ghost: nothing blocks it
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.MoveAlongPath(id, mgl32.Vec2{120, 30}); err != nil {
		t.Fatal(err)
	}
	if err := g.Step(); err != nil {
		t.Fatal(err)
	}
	e := g.Entity(id)
	var cur, u locomotion.State
	e.LocomotionState(&cur, g.Frame())
	var m replication.Remote
	m.Correction(&cur, &u, true)
	m.Reset(&u, g.Frame())
	frames := 0
	for e.Mode() != sim.Idle && frames < 2000 {
		if err := g.Step(); err != nil {
			t.Fatal(err)
		}
		frames++
		m.AdvanceTo(g.Frame())
		e.LocomotionState(&cur, g.Frame())
		p := m.State().Position
		if d := (mgl32.Vec2{p[0] - cur.Position[0], p[1] - cur.Position[1]}).Len(); d > wireError {
			t.Fatalf("frame %d: walked copy at %v, %.4f m from the entity at %v", g.Frame(), p, d, cur.Position)
		}
		if e.Mode() != sim.Idle && m.Off(&cur, replication.WalkTolerance, replication.YawTolerance) {
			t.Fatalf("frame %d: the walked copy of an unobstructed walk needs a correction", g.Frame())
		}
	}
	if frames < 100 || e.Mode() != sim.Idle {
		t.Fatalf("the walk took %d frames (mode %v)", frames, e.Mode())
	}
	if !m.Off(&cur, replication.WalkTolerance, replication.YawTolerance) {
		t.Error("the entity stopped; its walked copy does not report it")
	}
	m.Correction(&cur, &u, false)
	if err := m.Apply(&u); err != nil {
		t.Fatal(err)
	}
	if m.Off(&cur, 0, 0) || m.Walking() {
		t.Errorf("after the correction the copy is still off: %+v", *m.State())
	}
}

// TestCorrectionIsWireExact: a correction survives the archive unchanged, so the
// server's copy and a client's stay identical.
func TestCorrectionIsWireExact(t *testing.T) {
	t.Parallel()
	cur := locomotion.State{Entity: 9, Frame: 77, Fields: locomotion.HasPosition | locomotion.HasYaw | locomotion.HasSpeed | locomotion.HasPath | locomotion.Moving,
		Position: mgl32.Vec3{12.3689, -40.0626, 0}, Yaw: 3.1411, Speed: 2.5, Goal: 1,
		Path: []locomotion.PathNode{{Point: mgl32.Vec3{12.01, -40.2, 0}}, {Point: mgl32.Vec3{-3.99, 7.0624, 0}, Side: locomotion.Left, Radius: 0.4}}}
	for _, withPath := range []bool{false, true} {
		var m replication.Remote
		m.Reset(&locomotion.State{Entity: cur.Entity}, 0)
		var u locomotion.State
		m.Correction(&cur, &u, withPath)
		if u.Fields&locomotion.HasPath == 0 {
			t.Fatalf("withPath %v: a copy without the path got no path", withPath)
		}
		b, err := replication.PackLocomotion(&u)
		if err != nil {
			t.Fatal(err)
		}
		a, err := archive.NewUnpacker(archive.Replication, b)
		if err != nil {
			t.Fatal(err)
		}
		var got locomotion.State
		a.TransferObject(&got)
		if err := a.Done(); err != nil {
			t.Fatal(err)
		}
		if got.Position != u.Position || got.Yaw != u.Yaw || got.Speed != u.Speed || got.Goal != u.Goal || len(got.Path) != len(u.Path) {
			t.Fatalf("unpacked %+v, packed %+v", got, u)
		}
		for i := range got.Path {
			if got.Path[i] != u.Path[i] {
				t.Fatalf("node %d: unpacked %+v, packed %+v", i, got.Path[i], u.Path[i])
			}
		}
		if d := u.Position.Sub(cur.Position).Len(); d > wireError {
			t.Errorf("correction %v is %.3f m from %v", u.Position, d, cur.Position)
		}
		if err := m.Apply(&got); err != nil {
			t.Fatal(err)
		}
		if m.Off(&cur, 0, 0) {
			t.Errorf("after applying its own correction the copy is off: %+v", *m.State())
		}
	}
}

func TestRemoteOff(t *testing.T) {
	t.Parallel()
	base := locomotion.State{Entity: 1, Fields: locomotion.Moving, Position: mgl32.Vec3{10, 10, 0}, Yaw: 1, Speed: 3, Goal: 2,
		Path: []locomotion.PathNode{{Point: mgl32.Vec3{0, 0, 0}}, {Point: mgl32.Vec3{5, 5, 0}}, {Point: mgl32.Vec3{20, 20, 0}}, {Point: mgl32.Vec3{30, 20, 0}}}}
	tests := []struct {
		name   string
		change func(s *locomotion.State)
		tol    bool // with the default tolerances
		want   bool
	}{
		{"same", func(*locomotion.State) {}, true, false},
		{"same, exact", func(*locomotion.State) {}, false, false},
		{"within the position tolerance", func(s *locomotion.State) { s.Position[0] += 0.2 }, true, false},
		{"beyond the position tolerance", func(s *locomotion.State) { s.Position[1] -= 0.3 }, true, true},
		{"a sixteenth of a metre, exact", func(s *locomotion.State) { s.Position[1] += 0.0625 }, false, true},
		{"yaw within", func(s *locomotion.State) { s.Yaw += 0.2 }, true, false},
		{"yaw beyond", func(s *locomotion.State) { s.Yaw -= 0.3 }, true, true},
		{"yaw across ±π", func(s *locomotion.State) { s.Yaw += 2 * math.Pi }, true, false},
		{"stopped", func(s *locomotion.State) { s.Fields = 0 }, true, true},
		{"speed", func(s *locomotion.State) { s.Speed = 3.5 }, true, true},
		{"next corner", func(s *locomotion.State) { s.Goal = 3 }, true, false},
		{"next corner, exact", func(s *locomotion.State) { s.Goal = 3 }, false, true},
		{"two corners on", func(s *locomotion.State) { s.Goal = 0 }, true, true},
		{"another path", func(s *locomotion.State) { s.Path = s.Path[:3] }, true, true},
		{"a moved corner", func(s *locomotion.State) {
			s.Path = append([]locomotion.PathNode(nil), s.Path...)
			s.Path[3].Point[0] = 31
		}, true, true},
	}
	for _, tt := range tests {
		var m replication.Remote
		m.Reset(&base, 0)
		cur := base
		tt.change(&cur)
		pos, yaw := float32(0), float32(0)
		if tt.tol {
			pos, yaw = replication.WalkTolerance, replication.YawTolerance
		}
		if got := m.Off(&cur, pos, yaw); got != tt.want {
			t.Errorf("%s: Off = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestPackCreateLayout: with the entity's own state, PackCreate writes exactly the
// entity's replication archive.
func TestPackCreateLayout(t *testing.T) {
	t.Parallel()
	g := quietGame(t)
	id, err := g.Spawn(1, 0, mgl32.Vec2{30, 40}, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.MoveAlongPath(id, mgl32.Vec2{120, 30}); err != nil {
		t.Fatal(err)
	}
	for range 30 {
		if err := g.Step(); err != nil {
			t.Fatal(err)
		}
	}
	e := g.Entity(id)
	want, err := replication.PackEntity(e, false)
	if err != nil {
		t.Fatal(err)
	}
	var st locomotion.State
	e.LocomotionState(&st, e.ChangedFrame())
	var m replication.Remote
	m.Reset(&st, 0)
	a := archive.NewPacker(archive.Replication, archive.Proximity)
	m.PackCreate(a, e)
	if err := a.Err(); err != nil {
		t.Fatal(err)
	}
	if got := a.Bytes(); string(got) != string(want) {
		t.Errorf("PackCreate\n%x\nEntity.Serialize\n%x", got, want)
	}
}

// TestRemoteOnWire: a Remote reset from a correction is on the wire's grid (a create
// carries it exactly); a walk takes it off, and the next correction puts it back.
func TestRemoteOnWire(t *testing.T) {
	t.Parallel()
	g := quietGame(t)
	id, err := g.Spawn(2, 0, mgl32.Vec2{30, 40}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.MoveAlongPath(id, mgl32.Vec2{120, 30}); err != nil {
		t.Fatal(err)
	}
	var cur, u locomotion.State
	var m replication.Remote
	g.Entity(id).LocomotionState(&cur, g.Frame())
	m.Correction(&cur, &u, true)
	m.Reset(&u, g.Frame())
	if !m.OnWire() {
		t.Fatalf("reset from a correction: not on the wire: %+v", m.State())
	}
	for range 7 {
		if err := g.Step(); err != nil {
			t.Fatal(err)
		}
	}
	m.AdvanceTo(g.Frame())
	if m.OnWire() {
		t.Fatalf("walked 7 frames at %v: still on the wire's grid", m.State().Position)
	}
	g.Entity(id).LocomotionState(&cur, g.Frame())
	m.Correction(&cur, &u, false)
	if err := m.Apply(&u); err != nil {
		t.Fatal(err)
	}
	if !m.OnWire() {
		t.Fatalf("corrected: not on the wire: %+v", m.State())
	}
}
