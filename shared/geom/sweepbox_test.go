package geom

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

func TestSweepCircleAABB(t *testing.T) {
	box := AABB{v2(0, 0), v2(2, 1)}
	r2 := 1 / float32(math.Sqrt2)
	tests := []struct {
		name   string
		c      Circle
		motion mgl32.Vec2
		want   Hit
		ok     bool
	}{
		{"face", Circle{v2(-3, 0.5), 1}, v2(4, 0), Hit{0.5, v2(0, 0.5), v2(-1, 0)}, true},
		{"corner", Circle{v2(4, 3), 1}, v2(-4, -4), Hit{(2 - r2) / 4, v2(2, 1), v2(r2, r2)}, true},
		// Cuts across the expanded box's corner square but stays outside the corner disc.
		{"corner false positive", Circle{v2(2.8-2, 1.8+2), 1}, v2(4, -4), Hit{}, false},
		{"touching, sliding", Circle{v2(1, 2), 1}, v2(5, 0), Hit{}, false},
		{"centre inside", Circle{v2(1.9, 0.5), 0.5}, v2(0, 0), Hit{0, v2(2, 0.5), v2(1, 0)}, true},
	}
	for _, tc := range tests {
		got, ok := SweepCircleAABB(tc.c, tc.motion, box)
		checkHit2(t, tc.name, got, ok, tc.want, tc.ok)
	}
}

func TestSweepCircleCapsule(t *testing.T) {
	k := Capsule{v2(5, -3), v2(5, 3), 0.5}
	got, ok := SweepCircleCapsule(Circle{v2(0, 0), 1}, v2(10, 0), k)
	checkHit2(t, "side", got, ok, Hit{0.35, v2(4.5, 0), v2(-1, 0)}, true)
	got, ok = SweepCircleCapsule(Circle{v2(5, 10), 1}, v2(0, -10), k)
	checkHit2(t, "end", got, ok, Hit{0.55, v2(5, 3.5), v2(0, 1)}, true)
}

// TestSweepAABBTouchingThroughRounding: a ball resting exactly on the top face (centre
// 0.1, radius 15.1, face at -15) whose centre lies inside the expanded box only because
// -15+15.1 rounds up to 0.10000038. Such a start touches the box: a hit at T = 0 with the
// face's normal when moving in, no hit when moving out or sliding. A sweep that took the
// motion's reverse as the normal would report hits when moving away.
func TestSweepAABBTouchingThroughRounding(t *testing.T) {
	box := AABB{v2(-47, -32.444443), v2(518, -15)}
	tests := []struct {
		name   string
		motion mgl32.Vec2
		want   Hit
		ok     bool
	}{
		{"moving in", v2(-50.72, -504), Hit{0, v2(-3, -15), v2(0, 1)}, true},
		{"moving in, straight down", v2(0, -1), Hit{0, v2(-3, -15), v2(0, 1)}, true},
		{"moving out", v2(-50.72, 504), Hit{}, false},
		{"sliding", v2(100, 0), Hit{}, false},
		{"still", v2(0, 0), Hit{}, false},
	}
	for _, tc := range tests {
		got, ok := SweepCircleAABB(Circle{v2(-3, 0.1), 15.1}, tc.motion, box)
		checkHit2(t, tc.name, got, ok, tc.want, tc.ok)
	}
}
