package sim

import (
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
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
			path, next := e.Path()
			w := Walker{Pos: e.Pos(), Yaw: e.Yaw(), Speed: e.Speed(), Path: slices.Clone(path), Next: next}
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
			if frames < 10 || e.Mode() != Idle || dist2(e.Pos(), c.to) > 0.01 {
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
	for _, w := range []Walker{
		{Pos: mgl32.Vec2{1, 2}, Speed: 3},
		{Pos: mgl32.Vec2{1, 2}, Speed: 0, Path: []mgl32.Vec2{{1, 2}, {5, 2}}, Next: 1},
		{Pos: mgl32.Vec2{1, 2}, Speed: 3, Path: []mgl32.Vec2{{1, 2}, {5, 2}}, Next: 2},
		{Pos: mgl32.Vec2{1, 2}, Speed: 3, Path: []mgl32.Vec2{{1, 2}, {5, 2}}, Next: -1},
	} {
		before := w
		if w.Step() || w.Pos != before.Pos || w.Yaw != before.Yaw {
			t.Errorf("%+v stepped to %v", before, w.Pos)
		}
	}
}
