package sim

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/twinframe/twinframe/shared/geom"
)

// TestFacingInAJam: two avatars walked straight at each other, a few centimetres off
// centre, jam and push; each one's resolved move is then a slide of micrometres whose
// direction turns from frame to frame. Each must keep facing where it walks to (its
// goal, on a straight move) and never turn by more than its plan does.
func TestFacingInAJam(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		aFrom, aTo mgl32.Vec2
		bFrom, bTo mgl32.Vec2
	}{
		// In the 1.2 m alley between the sw-tower and the sw-shop: walls on both sides.
		{"alley", mgl32.Vec2{24.55, 6}, mgl32.Vec2{24.65, 18}, mgl32.Vec2{24.62, 18}, mgl32.Vec2{24.58, 6}},
		{"open ground", mgl32.Vec2{58, 64}, mgl32.Vec2{75, 64.01}, mgl32.Vec2{70, 64}, mgl32.Vec2{53, 63.99}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			g := quiet(t)
			a := spawn(t, g, protoAvatar, c.aFrom)
			b := spawn(t, g, protoAvatar, c.bFrom)
			must(t, g.MoveTo(a, c.aTo))
			must(t, g.MoveTo(b, c.bTo))
			contacts := 0
			for f := 0; f < 80 && g.Entity(a).Mode() != Idle; f++ {
				run(t, g, 1)
				for _, e := range []*Entity{g.Entity(a), g.Entity(b)} {
					if e.Mode() == Idle {
						continue
					}
					goal := e.loco.path[len(e.loco.path)-1]
					from := e.Pos() // where the frame started: its sweep's start if it moved
					if e.sweep.Frame == g.Frame() {
						from = e.sweep.Start
					}
					want := atan2(goal[1]-from[1], goal[0]-from[0])
					if d := angleDiff(e.Yaw(), want); d > 0.01 {
						t.Fatalf("frame %d: entity %d at %v (moved %v, hit %v) faces %v, %v from its goal's direction",
							g.Frame(), e.ID(), e.Pos(), geom.Sub(e.Pos(), from), e.sweep.Hit, e.Yaw(), d)
					}
					if e.sweep.Hit && e.sweep.Frame == g.Frame() && e.sweep.Other != 0 {
						contacts++
					}
				}
			}
			if contacts < 10 {
				t.Fatalf("%d contact frames: the avatars did not jam", contacts)
			}
		})
	}
}

// angleDiff returns |a - b| wrapped to [0, π].
func angleDiff(a, b float32) float32 {
	d := float32(math.Abs(float64(a - b)))
	if d > math.Pi {
		d = 2*math.Pi - d
	}
	return d
}

func TestFaceMotion(t *testing.T) {
	t.Parallel()
	const step = 0.25 // 5 m/s
	for _, c := range []struct {
		name   string
		motion mgl32.Vec2
		step   float32
		want   float32
	}{
		{"along +y", mgl32.Vec2{0, 0.2}, step, atan2(1, 0)},
		{"backwards sliver", mgl32.Vec2{-1e-5, 0}, step, 0.5},
		{"zero", mgl32.Vec2{}, step, 0.5},
		{"just long enough", mgl32.Vec2{0, -minFacingMotion}, step, atan2(-1, 0)},
		{"slow mover's full step", mgl32.Vec2{-0.004, 0}, 0.005, atan2(0, -1)},
	} {
		if got := faceMotion(c.motion, 0.5, c.step); got != c.want {
			t.Errorf("%s: faceMotion(%v) = %v, want %v", c.name, c.motion, got, c.want)
		}
	}
}
