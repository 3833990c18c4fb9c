package geom

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

func v3(x, y, z float32) mgl32.Vec3 { return mgl32.Vec3{x, y, z} }

func near3(a, b mgl32.Vec3, tol float32) bool {
	return near(a[0], b[0], tol) && near(a[1], b[1], tol) && near(a[2], b[2], tol)
}

func checkHit3(t *testing.T, name string, got Hit3, gotOK bool, want Hit3, wantOK bool) {
	t.Helper()
	if gotOK != wantOK {
		t.Errorf("%s: hit = %v (%+v), want %v", name, gotOK, got, wantOK)
		return
	}
	if !wantOK {
		return
	}
	if !near(got.T, want.T, tolT) || !near3(got.Point, want.Point, 1e-4) || !near3(got.Normal, want.Normal, 1e-4) {
		t.Errorf("%s: got %+v, want %+v", name, got, want)
	}
}

func TestSweepSphereAABB(t *testing.T) {
	unit := AABB3{v3(0, 0, 0), v3(1, 1, 1)}
	r2, r3 := 1/float32(math.Sqrt2), 1/float32(math.Sqrt(3))
	// Vertex hit: the centre moves along (1,-1,0) through (1.5,1.5,1.5); relative to the
	// vertex (1,1,1) it is (0.5+s, 0.5-s, 0.5) with s = -2+4T, touching when 0.75+2s² = 1.
	sv := -float32(math.Sqrt(0.125))
	tv := (sv + 2) / 4
	cv := v3(1.5+sv, 1.5-sv, 1.5).Sub(v3(1, 1, 1)).Normalize()
	// Enters the expanded box in the region of edge (1,1,z) at s = 0.2 (z = 0.9), stays
	// more than 1 from that edge while z <= 1, and meets the ball at vertex (1,1,1) when
	// |(1.2-s, 0.6, s-0.3)| = 1, i.e. 2s² - 3s + 0.89 = 0.
	se := float32((3 - math.Sqrt(9-8*0.89)) / 4)
	tests := []struct {
		name   string
		s      Sphere
		motion mgl32.Vec3
		b      AABB3
		want   Hit3
		ok     bool
	}{
		{"face -x", Sphere{v3(-3, 0.5, 0.5), 1}, v3(4, 0, 0), unit, Hit3{0.5, v3(0, 0.5, 0.5), v3(-1, 0, 0)}, true},
		{"face +y oblique", Sphere{v3(0.5, 4, 0.2), 1}, v3(0.4, -4, 0.4), unit, Hit3{0.5, v3(0.7, 1, 0.4), v3(0, 1, 0)}, true},
		{"face +z short", Sphere{v3(0.5, 0.5, 4), 1}, v3(0, 0, -1.9), unit, Hit3{}, false},
		// Edge (1,1,z): the centre moves along -(1,1,0); the expanded box is entered at T = 0.25,
		// the edge capsule only at T = (2 - 1/√2)/4... here 2 units away diagonally.
		{"edge", Sphere{v3(3, 3, 0.5), 1}, v3(-4, -4, 0), unit, Hit3{(2 - r2) / 4, v3(1, 1, 0.5), v3(r2, r2, 0)}, true},
		// Passes edge (1,1,z) at distance 1.05, entering the expanded box in that edge's region.
		{"edge near miss", Sphere{v3(2.5, 0.985, 0.5), 1}, v3(-2, 2, 0), unit, Hit3{}, false},
		{"edge grazing hit", Sphere{v3(2.5, 0.9, 0.5), 1}, v3(-2, 2, 0), unit,
			Hit3{0.35, v3(1, 1, 0.5), v3(0.8, 0.6, 0)}, true}, // |(1.5-2T, 2T-0.1)| = 1
		// Diagonal pass through the expanded box's corner region, never within 1 of the box:
		// relative to the vertex the centre is (0.7+s, 0.7-s, 0.7), |·| >= 1.21.
		{"vertex region false positive", Sphere{v3(1.7-2, 1.7+2, 1.7), 1}, v3(4, -4, 0), unit, Hit3{}, false},
		{"vertex region false positive 2", Sphere{v3(2.9, 2.9, 2.9), 1}, v3(-0.5, 0.1, 0.2), unit, Hit3{}, false},
		{"vertex", Sphere{v3(1.5-2, 1.5+2, 1.5), 1}, v3(4, -4, 0), unit, Hit3{tv, v3(1, 1, 1), cv}, true},
		{"vertex head-on", Sphere{v3(3, 3, 3), 1}, v3(-2, -2, -2), unit, Hit3{(1 - r3/2), v3(1, 1, 1), v3(r3, r3, r3)}, true},
		{"vertex min corner", Sphere{v3(-3, -3, -3), 1}, v3(4, 4, 4), unit, Hit3{(3 - r3) / 4, v3(0, 0, 0), v3(-r3, -r3, -r3)}, true},
		// Enters the expanded box in an edge region but hits the far end's vertex ball.
		{"edge region, vertex ball", Sphere{v3(2.2, 1.6, 0.7), 1}, v3(-1, 0, 1), unit,
			Hit3{se, v3(1, 1, 1), v3(1.2-se, 0.6, se-0.3)}, true},
		{"touching, moving in", Sphere{v3(2, 0.5, 0.5), 1}, v3(-1, 0, 0), unit, Hit3{0, v3(1, 0.5, 0.5), v3(1, 0, 0)}, true},
		{"touching, moving out", Sphere{v3(2, 0.5, 0.5), 1}, v3(1, 0, 0), unit, Hit3{}, false},
		{"touching, sliding", Sphere{v3(2, 0.5, 0.5), 1}, v3(0, 3, 0), unit, Hit3{}, false},
		{"overlap", Sphere{v3(1.5, 0.5, 0.5), 1}, v3(3, 0, 0), unit, Hit3{0, v3(1, 0.5, 0.5), v3(1, 0, 0)}, true},
		{"centre inside", Sphere{v3(0.5, 0.9, 0.5), 1}, v3(0, 0, 0), unit, Hit3{0, v3(0.5, 1, 0.5), v3(0, 1, 0)}, true},
		{"zero motion apart", Sphere{v3(3, 3, 3), 1}, v3(0, 0, 0), unit, Hit3{}, false},
		{"point through", Sphere{v3(-1, 0.5, 0.5), 0}, v3(2, 0, 0), unit, Hit3{0.5, v3(0, 0.5, 0.5), v3(-1, 0, 0)}, true},
		{"flat box", Sphere{v3(0.5, 3, 0.5), 1}, v3(0, -4, 0), AABB3{v3(0, 0, 0), v3(1, 0, 1)}, Hit3{0.5, v3(0.5, 0, 0.5), v3(0, 1, 0)}, true},
		{"inverted box", Sphere{v3(-3, 0.5, 0.5), 1}, v3(4, 0, 0), AABB3{v3(1, 0, 0), v3(0, 1, 1)}, Hit3{}, false},
		{"negative radius", Sphere{v3(-3, 0.5, 0.5), -1}, v3(4, 0, 0), unit, Hit3{}, false},
		{"NaN", Sphere{v3(-3, float32(math.NaN()), 0.5), 1}, v3(4, 0, 0), unit, Hit3{}, false},
	}
	for _, tc := range tests {
		got, ok := SweepSphereAABB(tc.s, tc.motion, tc.b)
		checkHit3(t, tc.name, got, ok, tc.want, tc.ok)
	}
}

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

func TestSweepSphereSphere(t *testing.T) {
	got, ok := SweepSphereSphere(Sphere{v3(0, 0, 0), 1}, v3(0, 0, 10), Sphere{v3(0, 0, 8), 2})
	checkHit3(t, "head-on", got, ok, Hit3{0.5, v3(0, 0, 6), v3(0, 0, -1)}, true)
	got, ok = SweepSphereSphere(Sphere{v3(0, 3.1, 0), 1}, v3(0, 0, 10), Sphere{v3(0, 0, 8), 2})
	checkHit3(t, "miss", got, ok, Hit3{}, false)
}

func TestSweepCircleCapsule(t *testing.T) {
	k := Capsule{v2(5, -3), v2(5, 3), 0.5}
	got, ok := SweepCircleCapsule(Circle{v2(0, 0), 1}, v2(10, 0), k)
	checkHit2(t, "side", got, ok, Hit{0.35, v2(4.5, 0), v2(-1, 0)}, true)
	got, ok = SweepCircleCapsule(Circle{v2(5, 10), 1}, v2(0, -10), k)
	checkHit2(t, "end", got, ok, Hit{0.55, v2(5, 3.5), v2(0, 1)}, true)
}

// TestSweepSphereAABBMinkowski compares SweepSphereAABB with a second exact method that does
// no region classification: the box expanded by r is the union of three boxes (b grown by r
// along one axis) and twelve edge capsules, and the first contact is the earliest entry into
// any of them. Cases whose path only grazes the rounded box (within 1e-3) are skipped, since
// there hit or miss is decided by rounding; elsewhere T must agree to 1e-4.
func TestSweepSphereAABBMinkowski(t *testing.T) {
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, 10))
	compared := 0
	for i := range randomCases {
		g := gen{rng: rng, snap: i%3 == 0}
		lo, size := g.v3(-2, 2), g.v3(0, 3)
		b := AABB3{lo, lo.Add(size)}
		s := Sphere{g.v3(-8, 8), max(g.f(0.25, 2), 0.25)} // r = 0 is the open-box special case
		aim := corner3(b, rng.IntN(8))
		motion := g.motionToward(s.Center, aim, 1+float64(s.Radius))

		// Skip grazing paths and starts within 1e-3 of touching.
		lo64, hi64 := f64(b.Min), f64(b.Max)
		minGap := math.Inf(1)
		for k := 0; k <= 400; k++ {
			p := vat(f64(s.Center), f64(motion), float64(k)/400)
			minGap = math.Min(minGap, refDistBox(p, lo64, hi64)-float64(s.Radius))
		}
		if math.Abs(minGap) < 1e-3 || refDistBox(f64(s.Center), lo64, hi64)-float64(s.Radius) < 1e-3 {
			continue
		}
		compared++

		want, wantOK := float32(math.Inf(1)), false
		r := s.Radius
		for axis := range 3 {
			grown := b
			grown.Min[axis] -= r
			grown.Max[axis] += r
			if h, ok := RaycastAABB3(s.Center, motion, grown, 1); ok && h.T < want {
				want, wantOK = h.T, true
			}
		}
		for c := range 8 {
			for _, k := range [3]int{1, 2, 4} {
				if c&k != 0 {
					continue // each edge once, from its lower corner
				}
				k := Capsule3{corner3(b, c), corner3(b, c|k), r}
				if h, ok := RaycastCapsule3(s.Center, motion, k, 1); ok && h.T < want {
					want, wantOK = h.T, true
				}
			}
		}
		got, ok := SweepSphereAABB(s, motion, b)
		if ok != wantOK || ok && !near(got.T, want, 1e-4) {
			t.Fatalf("case %d: SweepSphereAABB(%v, %v, %v) = %+v, %v; the Minkowski union gives T=%v, %v",
				i, s, motion, b, got, ok, want, wantOK)
		}
	}
	if compared < randomCases/2 {
		t.Errorf("only %d of %d cases compared", compared, randomCases)
	}
}

// TestSweepAABBTouchingThroughRounding: a ball resting exactly on the top face (centre
// 0.1, radius 15.1, face at -15) whose centre lies inside the expanded box only because
// -15+15.1 rounds up to 0.10000038. Such a start touches the box: a hit at T = 0 with the
// face's normal when moving in, no hit when moving out or sliding. The sweeps used to take
// the motion's reverse as the normal and report hits when moving away (a fuzz crasher).
func TestSweepAABBTouchingThroughRounding(t *testing.T) {
	box := AABB{v2(-47, -32.444443), v2(518, -15)}
	box3 := AABB3{v3(-47, -32.444443, -1), v3(518, -15, 1)}
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
		checkHit2(t, "circle "+tc.name, got, ok, tc.want, tc.ok)
		got3, ok3 := SweepSphereAABB(Sphere{v3(-3, 0.1, 0), 15.1}, v3(tc.motion[0], tc.motion[1], 0), box3)
		want3 := Hit3{tc.want.T, v3(tc.want.Point[0], tc.want.Point[1], 0), v3(tc.want.Normal[0], tc.want.Normal[1], 0)}
		checkHit3(t, "sphere "+tc.name, got3, ok3, want3, tc.ok)
	}
}
