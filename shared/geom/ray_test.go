package geom

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

func TestRaycastAABB3(t *testing.T) {
	b := AABB3{v3(0, 0, 0), v3(1, 2, 3)}
	inf := float32(math.Inf(1))
	tests := []struct {
		name string
		o, d mgl32.Vec3
		maxT float32
		want Hit3
		ok   bool
	}{
		{"+x face", v3(-1, 1, 1), v3(1, 0, 0), inf, Hit3{1, v3(0, 1, 1), v3(-1, 0, 0)}, true},
		{"-z face", v3(0.5, 0.5, 5), v3(0, 0, -4), 1, Hit3{0.5, v3(0.5, 0.5, 3), v3(0, 0, 1)}, true},
		{"segment too short", v3(0.5, 0.5, 5), v3(0, 0, -1), 1, Hit3{}, false},
		{"oblique", v3(-1, -1, 1), v3(2, 4, 0), 1, Hit3{0.5, v3(0, 1, 1), v3(-1, 0, 0)}, true},
		{"miss", v3(-1, 3, 1), v3(1, 0, 0), inf, Hit3{}, false},
		{"parallel outside", v3(-1, 2.5, 1), v3(0, 0, 1), inf, Hit3{}, false},
		{"along a face counts", v3(-1, 2, 1), v3(1, 0, 0), inf, Hit3{1, v3(0, 2, 1), v3(-1, 0, 0)}, true},
		{"through an edge", v3(-1, 3, 1), v3(1, -1, 0), inf, Hit3{1, v3(0, 2, 1), v3(0, 1, 0)}, true},
		{"pointing away", v3(-1, 1, 1), v3(-1, 0, 0), inf, Hit3{}, false},
		{"inside", v3(0.5, 0.5, 0.5), v3(0, 2, 0), 1, Hit3{0, v3(0.5, 0.5, 0.5), v3(0, -1, 0)}, true},
		{"NaN maxT", v3(-1, 1, 1), v3(1, 0, 0), float32(math.NaN()), Hit3{}, false},
	}
	for _, tc := range tests {
		got, ok := RaycastAABB3(tc.o, tc.d, b, tc.maxT)
		checkHit3(t, tc.name, got, ok, tc.want, tc.ok)
	}
}

func TestRaycastAABB(t *testing.T) {
	b := AABB{v2(0, 0), v2(2, 1)}
	got, ok := RaycastAABB(v2(-2, 0.5), v2(4, 0), b, 1)
	checkHit2(t, "face", got, ok, Hit{0.5, v2(0, 0.5), v2(-1, 0)}, true)
	got, ok = RaycastAABB(v2(3, 3), v2(-1, -1), b, 10)
	checkHit2(t, "corner", got, ok, Hit{2, v2(1, 1), v2(0, 1)}, true)
	got, ok = RaycastAABB(v2(3, 3), v2(1, -1), b, 10)
	checkHit2(t, "miss", got, ok, Hit{}, false)
	// A zero-thickness box is still hit by a ray (closed box).
	got, ok = RaycastAABB(v2(1, 2), v2(0, -1), AABB{v2(0, 0), v2(2, 0)}, 10)
	checkHit2(t, "flat", got, ok, Hit{2, v2(1, 0), v2(0, 1)}, true)
}

func TestRaycastCircleSphere(t *testing.T) {
	got, ok := RaycastCircle(v2(0, 0), v2(1, 0), Circle{v2(5, 0), 1}, float32(math.Inf(1)))
	checkHit2(t, "circle", got, ok, Hit{4, v2(4, 0), v2(-1, 0)}, true)
	got, ok = RaycastCircle(v2(0, 0), v2(1, 0), Circle{v2(5, 0), 1}, 3.9)
	checkHit2(t, "circle short", got, ok, Hit{}, false)
	got, ok = RaycastCircle(v2(5, 0.5), v2(1, 0), Circle{v2(5, 0), 1}, 1)
	checkHit2(t, "circle inside", got, ok, Hit{0, v2(5, 0.5), v2(-1, 0)}, true)
	got3, ok := RaycastSphere(v3(0, 0, 0), v3(0, 0, 2), Sphere{v3(0, 0.6, 5), 1}, 10)
	checkHit3(t, "sphere", got3, ok, Hit3{2.1, v3(0, 0, 4.2), v3(0, -0.6, -0.8)}, true)
}

func TestRaycastCapsule3(t *testing.T) {
	k := Capsule3{v3(0, 0, 0), v3(0, 0, 4), 1}
	tests := []struct {
		name string
		o, d mgl32.Vec3
		want Hit3
		ok   bool
	}{
		{"side", v3(-5, 0, 2), v3(1, 0, 0), Hit3{4, v3(-1, 0, 2), v3(-1, 0, 0)}, true},
		{"end ball along the axis", v3(0, 0, 10), v3(0, 0, -1), Hit3{5, v3(0, 0, 5), v3(0, 0, 1)}, true},
		{"end ball oblique", v3(-5, 0, 4.6), v3(1, 0, 0), Hit3{4.2, v3(-0.8, 0, 4.6), v3(-0.8, 0, 0.6)}, true},
		{"beyond the end", v3(-5, 0, 5.1), v3(1, 0, 0), Hit3{}, false},
		{"parallel outside", v3(1.5, 0, -3), v3(0, 0, 1), Hit3{}, false},
		{"inside", v3(0.5, 0, 1), v3(1, 0, 0), Hit3{0, v3(0.5, 0, 1), v3(-1, 0, 0)}, true},
	}
	for _, tc := range tests {
		got, ok := RaycastCapsule3(tc.o, tc.d, k, 100)
		checkHit3(t, tc.name, got, ok, tc.want, tc.ok)
	}
}

// TestRaycastCapsule3Random compares the capsule raycast, used by SweepSphereAABB's edge and
// vertex regions, with sub-stepping against the float64 distance to the axis segment.
func TestRaycastCapsule3Random(t *testing.T) {
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, 6))
	for i := range randomCases {
		g := gen{rng: rng, snap: i%3 == 0}
		k := Capsule3{g.v3(-3, 3), g.v3(-3, 3), g.radius()}
		if rng.IntN(10) == 0 {
			k.B = k.A
		}
		o := g.v3(-8, 8)
		d := g.motionToward(o, axpy3(k.A, sub3(k.B, k.A), 0.5), 3)
		h, ok := RaycastCapsule3(o, d, k, 1)
		a64, b64 := f64(k.A), f64(k.B)
		// The ray is a zero-radius mover against the capsule: distance to it = distance to the
		// axis minus its radius.
		sc := sweepCase{o: f64(o), d: f64(d), r: 0,
			dist: func(p vec) float64 { return math.Max(0, refDistSegment(p, a64, b64)-float64(k.Radius)) }}
		if err := sc.check(subSteps, randomTol, ok, float64(h.T), f64(h.Point), f64(h.Normal)); err != nil {
			t.Fatalf("case %d: RaycastCapsule3(%v, %v, %v) = %+v, %v: %v", i, o, d, k, h, ok, err)
		}
	}
}
