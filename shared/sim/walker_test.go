package sim

import (
	"github.com/twinframe/twinframe/shared/sim/locomotion"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/twinframe/twinframe/shared/geom"
)

// TestWalkerFollowsTheLocomotor: a Walker started from an unobstructed entity's
// state is where the game puts the entity, bit for bit, every frame of its walk,
// and stops in the frame the locomotor stops it.
func TestWalkerFollowsTheLocomotor(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name        string
		proto       int32
		from, to    mgl32.Vec2
		direct      bool
		startFrames int // frames walked before the walker takes over
	}{
		{"path across the yard", protoGhost, mgl32.Vec2{64, 64}, mgl32.Vec2{170, 64}, false, 0},
		{"three corners, taken over mid-walk", protoGhost, mgl32.Vec2{30, 40}, mgl32.Vec2{120, 30}, false, 37},
		{"straight move", protoDummy, mgl32.Vec2{90, 136}, mgl32.Vec2{96, 140}, true, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			g := quiet(t)
			id := spawn(t, g, c.proto, c.from)
			if c.direct {
				must(t, g.MoveTo(id, c.to))
			} else if _, err := g.MoveAlongPath(id, c.to); err != nil {
				t.Fatal(err)
			}
			run(t, g, c.startFrames)
			e := g.Entity(id)
			var st locomotion.State
			e.LocomotionState(&st, g.Frame())
			w := Walker{Pos: e.Pos(), Yaw: e.Yaw(), Speed: e.Speed()}
			w.SetPath(st.Path, int(st.Goal))
			frames := 0
			for ; frames < 4000 && e.Mode() != Idle; frames++ {
				walking := w.Step()
				run(t, g, 1)
				if w.Pos != e.Pos() || w.Yaw != e.Yaw() {
					t.Fatalf("frame %d: walker at %v yaw %v, entity at %v yaw %v", g.Frame(), w.Pos, w.Yaw, e.Pos(), e.Yaw())
				}
				if walking != (e.Mode() != Idle) {
					t.Fatalf("frame %d: walker walking %v, entity mode %v", g.Frame(), walking, e.Mode())
				}
			}
			if frames < 10 || e.Mode() != Idle || geom.Dist(e.Pos(), c.to) > 0.01 {
				t.Fatalf("after %d frames the entity is %v at %v, want idle at %v", frames, e.Mode(), e.Pos(), c.to)
			}
			if w.Step() || w.Pos != e.Pos() {
				t.Errorf("a walker at the end of its path moved to %v", w.Pos)
			}
		})
	}
}

func TestWalkerIdle(t *testing.T) {
	t.Parallel()
	line := []locomotion.PathNode{{Point: mgl32.Vec3{1, 2, 0}}, {Point: mgl32.Vec3{5, 2, 0}}}
	for _, c := range []struct {
		speed float32
		path  []locomotion.PathNode
		next  int
	}{
		{3, nil, 0},
		{0, line, 1},
		{3, line, 2},
		{3, line, -1},
	} {
		w := Walker{Pos: mgl32.Vec2{1, 2}, Speed: c.speed}
		w.SetPath(c.path, c.next)
		before := w
		if w.Step() || w.Pos != before.Pos || w.Yaw != before.Yaw {
			t.Errorf("%+v stepped to %v", before, w.Pos)
		}
	}
}
