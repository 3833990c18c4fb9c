package sim

import (
	"errors"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/navi"

	"github.com/twinframe/twinframe/shared/geom"
)

// Prototype ids of the default world.
const (
	protoAvatar   int32 = 0
	protoWanderer int32 = 1
	protoGhost    int32 = 2
	protoDummy    int32 = 3
)

// quiet returns the default world without population.
func quiet(t testing.TB) *Game {
	t.Helper()
	g, err := New(defaultWorld(t), &Options{Seed: 7, NoPopulation: true})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func spawn(t testing.TB, g *Game, proto int32, p mgl32.Vec2) EntityID {
	t.Helper()
	id, err := g.Spawn(proto, 0, p, 0)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// run steps g n frames, checking invariants after each (after every tenth frame, and the
// last, under the race detector).
func run(t testing.TB, g *Game, n int) {
	t.Helper()
	for i := range n {
		if err := g.Step(); err != nil {
			t.Fatal(err)
		}
		if raceEnabled && g.Frame()%10 != 0 && i != n-1 {
			continue
		}
		if err := g.CheckInvariants(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCommandErrors(t *testing.T) {
	nan := float32(math.NaN())
	g := quiet(t)
	av := spawn(t, g, protoAvatar, mgl32.Vec2{64, 64})
	tests := []struct {
		name string
		do   func() error
		want error
	}{
		{"move missing entity", func() error { return g.MoveTo(999, mgl32.Vec2{1, 1}) }, ErrNoEntity},
		{"move to NaN", func() error { return g.MoveTo(av, mgl32.Vec2{nan, 1}) }, ErrNotFinite},
		{"path to Inf", func() error {
			_, err := g.MoveAlongPath(av, mgl32.Vec2{float32(math.Inf(1)), 1})
			return err
		}, ErrNotFinite},
		{"move a static prop", func() error { return g.MoveTo(1, mgl32.Vec2{10, 10}) }, ErrCannotMove},
		{"negative speed", func() error { return g.SetSpeed(av, -1) }, ErrBadSpeed},
		{"NaN speed", func() error { return g.SetSpeed(av, nan) }, ErrBadSpeed},
		{"follow itself", func() error { return g.Follow(av, av, 1) }, ErrSelf},
		{"follow missing", func() error { return g.Follow(av, 12345, 1) }, ErrNoEntity},
		{"follow NaN range", func() error { return g.Follow(av, 1, nan) }, ErrNotFinite},
		{"look at itself", func() error { return g.LookAt(av, mgl32.Vec2{64, 64}) }, ErrZeroDirection},
		{"fire at itself", func() error { _, err := g.Fire(av, mgl32.Vec2{64, 64}); return err }, ErrZeroDirection},
		{"teleport into a building", func() error { return g.Teleport(av, mgl32.Vec2{14, 14}) }, ErrNoSpace},
		{"teleport NaN", func() error { return g.Teleport(av, mgl32.Vec2{nan, nan}) }, ErrNotFinite},
		{"enqueue unknown command", func() error { return g.Enqueue(Input{Entity: av, Command: 99}) }, ErrBadCommand},
		{"enqueue NaN", func() error { return g.Enqueue(Input{Entity: av, Command: CmdMoveTo, Point: mgl32.Vec2{nan, 0}}) }, ErrNotFinite},
		{"spawn unknown prototype", func() error { _, err := g.Spawn(77, 0, mgl32.Vec2{64, 64}, 0); return err }, ErrNoPrototype},
		{"spawn unknown region", func() error { _, err := g.Spawn(1, 9, mgl32.Vec2{64, 64}, 0); return err }, ErrNoRegion},
		{"spawn NaN", func() error { _, err := g.Spawn(1, 0, mgl32.Vec2{nan, 64}, 0); return err }, ErrNotFinite},
		{"spawn inside a building", func() error { _, err := g.Spawn(1, 0, mgl32.Vec2{14, 14}, 0); return err }, ErrNoSpace},
		{"destroy missing", func() error { return g.Destroy(4242) }, ErrNoEntity},
		{"stop missing", func() error { return g.Stop(4242) }, ErrNoEntity},
		{"bad rule", func() error { return g.AddRule(Rule{Hotspot: 0, On: Enter, Action: ActionSpawn}) }, ErrBadCommand},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.do(); !errors.Is(err, tc.want) {
				t.Errorf("got %v, want %v", err, tc.want)
			}
		})
	}
	run(t, g, 5) // nothing above left the game in a bad state
}

func TestSpeedClamping(t *testing.T) {
	g := quiet(t)
	av := spawn(t, g, protoAvatar, mgl32.Vec2{64, 64})
	must(t, g.SetSpeed(av, 1e30))
	if s := g.Entity(av).Speed(); s != MaxSpeed {
		t.Fatalf("speed %v, want clamped to %v", s, MaxSpeed)
	}
	if _, err := g.MoveAlongPath(av, mgl32.Vec2{128, 64}); err != nil {
		t.Fatal(err)
	}
	run(t, g, 30) // 5 m per frame through the streets: sweeps keep it on walkable ground
	must(t, g.SetSpeed(av, 0))
	if g.Entity(av).Mode() != Idle {
		t.Error("speed 0 did not stop the entity")
	}
	if err := g.MoveTo(av, mgl32.Vec2{70, 64}); !errors.Is(err, ErrCannotMove) {
		t.Errorf("move at speed 0: %v", err)
	}
}

func TestRejectedInputs(t *testing.T) {
	g := quiet(t)
	av := spawn(t, g, protoAvatar, mgl32.Vec2{64, 64})
	must(t, g.Enqueue(Input{Entity: 555, Command: CmdStop}))
	must(t, g.Enqueue(Input{Entity: av, Command: CmdMoveAlongPath, Point: mgl32.Vec2{100, 34}}))
	must(t, g.Step())
	rej := g.Rejected()
	if len(rej) != 1 || rej[0].Input.Entity != 555 || !errors.Is(rej[0].Err, ErrNoEntity) {
		t.Fatalf("rejected %+v", rej)
	}
	if g.Entity(av).Mode() != PathMove {
		t.Errorf("the valid input was not applied")
	}
}

func TestAtan2(t *testing.T) {
	for i := range 2000 {
		a := float64(i) * 2 * math.Pi / 2000
		for _, r := range []float64{1e-3, 1, 250} {
			x, y := float32(r*math.Cos(a)), float32(r*math.Sin(a))
			got, want := float64(atan2(y, x)), math.Atan2(float64(y), float64(x))
			if d := math.Abs(got - want); d > 1e-6 && math.Abs(d-2*math.Pi) > 1e-6 {
				t.Fatalf("atan2(%v, %v) = %v, want %v", y, x, got, want)
			}
		}
	}
	if atan2(0, 0) != 0 {
		t.Error("atan2(0, 0) != 0")
	}
}

func TestLookAt(t *testing.T) {
	g := quiet(t)
	av := spawn(t, g, protoAvatar, mgl32.Vec2{64, 64})
	must(t, g.LookAt(av, mgl32.Vec2{64, 70}))
	if y := g.Entity(av).Yaw(); math.Abs(float64(y)-math.Pi/2) > 1e-5 {
		t.Errorf("yaw %v, want π/2", y)
	}
	must(t, g.LookAt(1, mgl32.Vec2{0, 55})) // any entity may turn, even a prop
}

func TestMoveAlongPathArrives(t *testing.T) {
	g := quiet(t)
	start, goal := mgl32.Vec2{64, 64}, mgl32.Vec2{170, 64}
	av := spawn(t, g, protoAvatar, start)
	st, err := g.MoveAlongPath(av, goal)
	if err != nil || st != navi.PathComplete {
		t.Fatalf("path: %v %v", st, err)
	}
	e := g.Entity(av)
	step := float32(e.Speed() * FrameSeconds)
	for f := 0; f < 2000 && e.Mode() != Idle; f++ {
		prev := e.Pos()
		run(t, g, 1)
		if d := geom.Dist(prev, e.Pos()); d > step+1e-4 {
			t.Fatalf("frame %d: moved %v, more than speed × 50 ms = %v", g.Frame(), d, step)
		}
		if e.ChangedFrame() != g.Frame() {
			t.Fatalf("frame %d: a moving entity did not report a change", g.Frame())
		}
	}
	if e.Mode() != Idle || geom.Dist(e.Pos(), goal) > 0.01 {
		t.Fatalf("after %d frames: mode %v at %v, want idle at %v", g.Frame(), e.Mode(), e.Pos(), goal)
	}
	if e.CommandFrame() != g.Frame() && e.CommandFrame() != g.Frame()-1 {
		t.Errorf("arrival not reported as a command change: %d at frame %d", e.CommandFrame(), g.Frame())
	}
}

func TestUnreachableGoal(t *testing.T) {
	g := quiet(t)
	av := spawn(t, g, protoAvatar, mgl32.Vec2{64, 64})
	// Inside the south-west tower: the path leads to walkable ground next to it.
	st, err := g.MoveAlongPath(av, mgl32.Vec2{14, 14})
	if err != nil || (st != navi.PathComplete && st != navi.PathPartial) {
		t.Fatalf("status %v err %v", st, err)
	}
	run(t, g, 1500)
	if g.Entity(av).Mode() != Idle {
		t.Errorf("still moving after 1500 frames")
	}
}

func TestMoveIntoWallSlidesAndGivesUp(t *testing.T) {
	g := quiet(t)
	av := spawn(t, g, protoAvatar, mgl32.Vec2{64, 64})
	must(t, g.MoveTo(av, mgl32.Vec2{14, 14})) // straight at the tower
	walls := 0
	for f := 0; f < 1000 && g.Entity(av).Mode() != Idle; f++ {
		run(t, g, 1)
		for _, ev := range g.Events() {
			if ev.Kind == OnCollide && ev.A == av && ev.B == 0 {
				walls++
			}
		}
	}
	if g.Entity(av).Mode() != Idle {
		t.Fatal("never gave up")
	}
	if walls == 0 {
		t.Error("no wall collision reported")
	}
	if sw, ok := g.Entity(av).LastSweep(); !ok || sw.Radius != 0.5 {
		t.Errorf("last sweep %+v %v", sw, ok)
	}
}

func TestFollow(t *testing.T) {
	g := quiet(t)
	av := spawn(t, g, protoAvatar, mgl32.Vec2{64, 64})
	npc := spawn(t, g, protoDummy, mgl32.Vec2{60, 60})
	must(t, g.Follow(npc, av, 3))
	if _, err := g.MoveAlongPath(av, mgl32.Vec2{100, 34}); err != nil {
		t.Fatal(err)
	}
	run(t, g, 800)
	if d := geom.Dist(g.Entity(npc).Pos(), g.Entity(av).Pos()); d > 3.5 {
		t.Errorf("follower %v m from its target", d)
	}
	must(t, g.Destroy(av))
	run(t, g, 2)
	if g.Entity(npc).Mode() != Idle {
		t.Error("follower of a destroyed entity did not stop")
	}
}

func TestAppendChanged(t *testing.T) {
	g := quiet(t)
	a := spawn(t, g, protoAvatar, mgl32.Vec2{64, 64})
	b := spawn(t, g, protoDummy, mgl32.Vec2{70, 70})
	must(t, g.MoveTo(a, mgl32.Vec2{60, 64}))
	must(t, g.Step())
	got := g.AppendChanged(nil, g.Frame())
	if len(got) != 1 || got[0] != a {
		t.Fatalf("changed %v, want [%d] (not %d, standing still)", got, a, b)
	}
	must(t, g.LookAt(b, mgl32.Vec2{0, 0}))
	if got := g.AppendChanged(nil, g.Frame()); len(got) != 2 || got[0] != a || got[1] != b {
		t.Errorf("after LookAt: %v", got)
	}
}

func TestPlacementRespectsBlocking(t *testing.T) {
	g := quiet(t)
	a := spawn(t, g, protoDummy, mgl32.Vec2{64, 64})
	b := spawn(t, g, protoDummy, mgl32.Vec2{64, 64}) // moved to a free spot nearby
	if d := geom.Dist(g.Entity(a).Pos(), g.Entity(b).Pos()); d < 0.9 {
		t.Errorf("second spawn %v m from the first", d)
	}
	if err := g.Teleport(b, mgl32.Vec2{64.2, 64}); !errors.Is(err, ErrNoSpace) {
		t.Errorf("teleport onto a blocking entity: %v", err)
	}
	if _, err := g.Spawn(6, 0, mgl32.Vec2{64.3, 64}, 0); !errors.Is(err, ErrNoSpace) { // a crate on a dummy
		t.Errorf("static prop on a blocking entity: %v", err)
	}
	crate, err := g.Spawn(6, 0, mgl32.Vec2{70, 64}, 0)
	if err != nil {
		t.Fatal(err)
	}
	must(t, g.MoveTo(a, mgl32.Vec2{76, 64}))
	run(t, g, 100) // walks into the crate's disc and stops or slides around it
	if g.Entity(crate).footprint {
		t.Error("a crate spawned at run time is not in the navmesh")
	}
}
