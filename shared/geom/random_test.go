package geom

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

var seedFlag = flag.Uint64("geom.seed", 0, "seed for the randomized geom tests (0: the fixed default)")

// testSeed returns the seed for a randomized test and logs it, so a failure can be
// reproduced with -geom.seed.
func testSeed(t testing.TB) uint64 {
	t.Helper()
	s := *seedFlag
	if s == 0 {
		s = 0x7a67812c0b5812c5
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("reproduce with: go test -run '^%s$' -geom.seed=%d ./shared/geom/", t.Name(), s)
		}
	})
	return s
}

// vec is a point in float64 for the reference computations; 2D cases leave z = 0.
type vec = [3]float64

func f64(v mgl32.Vec3) vec { return vec{float64(v[0]), float64(v[1]), float64(v[2])} }

// to3 and to2 move 2D values into and out of the reference's 3-vectors (z = 0): the
// reference and the random motions are 3D so that one checker serves every shape.
func to3(v mgl32.Vec2) mgl32.Vec3 { return mgl32.Vec3{v[0], v[1], 0} }

func to2(v mgl32.Vec3) mgl32.Vec2 { return mgl32.Vec2{v[0], v[1]} }

func vsub(a, b vec) vec     { return vec{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func vdot(a, b vec) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func vlen(a vec) float64    { return math.Sqrt(vdot(a, a)) }
func vat(o, d vec, t float64) vec {
	return vec{o[0] + d[0]*t, o[1] + d[1]*t, o[2] + d[2]*t}
}

// refDistSegment is the distance from p to the segment a-b, in float64.
func refDistSegment(p, a, b vec) float64 {
	ab := vsub(b, a)
	l2 := vdot(ab, ab)
	t := 0.0
	if l2 > 0 {
		t = math.Max(0, math.Min(1, vdot(vsub(p, a), ab)/l2))
	}
	return vlen(vsub(p, vat(a, ab, t)))
}

// refDistBox is the distance from p to the solid box [lo, hi], in float64.
func refDistBox(p, lo, hi vec) float64 {
	var d vec
	for i := range 3 {
		d[i] = math.Max(0, math.Max(lo[i]-p[i], p[i]-hi[i]))
	}
	return vlen(d)
}

// sweepCase is one swept query with its float64 reference: the mover's centre o moves by d,
// and dist gives the distance from a point to the obstacle. The mover touches the obstacle
// when dist(centre) = r.
type sweepCase struct {
	o, d vec
	r    float64
	dist func(vec) float64
}

// check compares a sweep's answer with sub-stepping: n+1 evenly spaced samples of the motion.
// All comparisons are of distances, with tolerance tol, so that grazing contacts (where the
// time of impact is ill-conditioned) do not make the test flaky:
//   - no sample before T (or at all, without a hit) is deeper than tol inside the obstacle;
//   - at T the mover touches (|dist - r| <= tol), unless T = 0 and it starts overlapping;
//   - a start overlapping by more than tol gives T = 0;
//   - Point is on the obstacle, Normal is a unit vector, and with r > tol the contact point is
//     r from the centre along Normal (when the centre is outside the obstacle).
func (c sweepCase) check(n int, tol float64, ok bool, T float64, point, normal vec) error {
	gap := func(t float64) float64 { return c.dist(vat(c.o, c.d, t)) - c.r }
	if g := gap(0); g < -tol && (!ok || T != 0) {
		return fmt.Errorf("starts overlapping by %g but hit=%v T=%g", -g, ok, T)
	}
	for i := 0; i <= n; i++ {
		t := float64(i) / float64(n)
		if ok && t >= T {
			break
		}
		if g := gap(t); g < -tol {
			if ok {
				return fmt.Errorf("sample t=%g overlaps by %g before the reported T=%g", t, -g, T)
			}
			return fmt.Errorf("sample t=%g overlaps by %g but no hit was reported", t, -g)
		}
	}
	if !ok {
		return nil
	}
	if !(T >= 0 && T <= 1) {
		return fmt.Errorf("T=%g outside [0,1]", T)
	}
	if g := gap(T); g > tol || (T > 0 && g < -tol) {
		return fmt.Errorf("at T=%g the gap is %g, want 0", T, g)
	}
	if d := c.dist(point); d > tol {
		return fmt.Errorf("contact point %v is %g off the obstacle", point, d)
	}
	if l := vlen(normal); math.Abs(l-1) > 1e-5 {
		return fmt.Errorf("normal %v has length %g", normal, l)
	}
	centre := vat(c.o, c.d, T)
	rel := vsub(centre, point)
	if T > 0 && c.r > tol {
		if e := math.Abs(vlen(rel) - c.r); e > tol {
			return fmt.Errorf("contact point %v is %g from the centre, want r=%g", point, vlen(rel), c.r)
		}
	}
	if l := vlen(rel); l > 100*tol && c.dist(centre) > 100*tol { // centre outside the obstacle
		ntol := math.Max(1e-3, 2*tol/l) // the direction of rel is only known to about tol/l
		for i := range 3 {
			if math.Abs(rel[i]/l-normal[i]) > ntol {
				return fmt.Errorf("normal %v, want %v", normal, vec{rel[0] / l, rel[1] / l, rel[2] / l})
			}
		}
	}
	return nil
}

// gen draws test inputs. Every third case is snapped to a grid of 1/4 so that exact contacts,
// axis-aligned motions and starts on the expanded boundary occur often.
type gen struct {
	rng  *rand.Rand
	snap bool
}

func (g *gen) f(lo, hi float64) float32 {
	x := lo + float64((hi-lo)*g.rng.Float64()) // rounded product: no fused multiply-add
	if g.snap {
		x = math.Round(x*4) / 4
	}
	return float32(x)
}

func (g *gen) v2(lo, hi float64) mgl32.Vec2 { return mgl32.Vec2{g.f(lo, hi), g.f(lo, hi)} }

func (g *gen) v3(lo, hi float64) mgl32.Vec3 {
	return mgl32.Vec3{g.f(lo, hi), g.f(lo, hi), g.f(lo, hi)}
}

func (g *gen) radius() float32 {
	if g.rng.IntN(10) == 0 {
		return 0
	}
	return g.f(0, 2)
}

// motionToward returns a motion from o toward a point near target, of random length,
// sometimes with components zeroed (axis-aligned or zero motion).
func (g *gen) motionToward(o, target mgl32.Vec3, spread float64) mgl32.Vec3 {
	aim := target.Add(g.v3(-spread, spread))
	k := float32(g.rng.Float64() * 1.5)
	m := mgl32.Vec3{float32((aim[0] - o[0]) * k), float32((aim[1] - o[1]) * k), float32((aim[2] - o[2]) * k)}
	for i := range 3 {
		if g.rng.IntN(6) == 0 {
			m[i] = 0
		}
	}
	return m
}

const (
	subSteps  = 500
	randomTol = 2e-4
)

// randomCases is the number of cases per randomized test: fewer under wasm (Node), where the
// golden hash test, not volume, is the point, and under the race detector, which these
// single-goroutine tests do not need.
var randomCases = map[bool]int{false: 10000, true: 2000}[runtime.GOARCH == "wasm" || raceEnabled]

func TestSweepCircleAABBRandom(t *testing.T) {
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, 2))
	for i := range randomCases {
		g := gen{rng: rng, snap: i%3 == 0}
		lo, size := g.v2(-2, 2), g.v2(0, 3)
		b := AABB{lo, lo.Add(size)}
		c := Circle{g.v2(-8, 8), g.radius()}
		motion := to2(g.motionToward(to3(c.Center), to3(Axpy(lo, size, 0.5)), 3))
		h, ok := SweepCircleAABB(c, motion, b)
		lo64, hi64 := f64(to3(b.Min)), f64(to3(b.Max))
		sc := sweepCase{o: f64(to3(c.Center)), d: f64(to3(motion)), r: float64(c.Radius),
			dist: func(p vec) float64 { return refDistBox(p, lo64, hi64) }}
		if err := sc.check(subSteps, randomTol, ok, float64(h.T), f64(to3(h.Point)), f64(to3(h.Normal))); err != nil {
			t.Fatalf("case %d: SweepCircleAABB(%v, %v, %v) = %+v, %v: %v", i, c, motion, b, h, ok, err)
		}
	}
}

func TestSweepCircleSegmentRandom(t *testing.T) {
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, 3))
	hits := 0
	for i := range randomCases {
		g := gen{rng: rng, snap: i%3 == 0}
		s := Segment{g.v2(-3, 3), g.v2(-3, 3)}
		if rng.IntN(20) == 0 {
			s.B = s.A
		}
		c := Circle{g.v2(-8, 8), g.radius()}
		motion := to2(g.motionToward(to3(c.Center), to3(Axpy(s.A, Sub(s.B, s.A), 0.5)), 3))
		h, ok := SweepCircleSegment(c, motion, s)
		if ok {
			hits++
		}
		a64, b64 := f64(to3(s.A)), f64(to3(s.B))
		sc := sweepCase{o: f64(to3(c.Center)), d: f64(to3(motion)), r: float64(c.Radius),
			dist: func(p vec) float64 { return refDistSegment(p, a64, b64) }}
		if err := sc.check(subSteps, randomTol, ok, float64(h.T), f64(to3(h.Point)), f64(to3(h.Normal))); err != nil {
			t.Fatalf("case %d: SweepCircleSegment(%v, %v, %v) = %+v, %v: %v", i, c, motion, s, h, ok, err)
		}
	}
	t.Logf("%d of %d cases hit", hits, randomCases)
}

func TestSweepCircleCircleRandom(t *testing.T) {
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, 4))
	for i := range randomCases {
		g := gen{rng: rng, snap: i%3 == 0}
		other := Circle{g.v2(-3, 3), g.radius()}
		c := Circle{g.v2(-8, 8), g.radius()}
		motion := to2(g.motionToward(to3(c.Center), to3(other.Center), 3))
		h, ok := SweepCircleCircle(c, motion, other)
		oc, or := f64(to3(other.Center)), float64(other.Radius)
		sc := sweepCase{o: f64(to3(c.Center)), d: f64(to3(motion)), r: float64(c.Radius),
			dist: func(p vec) float64 { return math.Max(0, vlen(vsub(p, oc))-or) }}
		if err := sc.check(subSteps, randomTol, ok, float64(h.T), f64(to3(h.Point)), f64(to3(h.Normal))); err != nil {
			t.Fatalf("case %d: SweepCircleCircle(%v, %v, %v) = %+v, %v: %v", i, c, motion, other, h, ok, err)
		}
	}
}

func TestSweepCirclePointRandom(t *testing.T) {
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, 5))
	for i := range randomCases {
		g := gen{rng: rng, snap: i%3 == 0}
		p := g.v2(-3, 3)
		c := Circle{g.v2(-8, 8), g.radius()}
		motion := to2(g.motionToward(to3(c.Center), to3(p), 3))
		h, ok := SweepCirclePoint(c, motion, p)
		p64 := f64(to3(p))
		sc := sweepCase{o: f64(to3(c.Center)), d: f64(to3(motion)), r: float64(c.Radius),
			dist: func(q vec) float64 { return vlen(vsub(q, p64)) }}
		if err := sc.check(subSteps, randomTol, ok, float64(h.T), f64(to3(h.Point)), f64(to3(h.Normal))); err != nil {
			t.Fatalf("case %d: SweepCirclePoint(%v, %v, %v) = %+v, %v: %v", i, c, motion, p, h, ok, err)
		}
	}
}

func TestSweepCircleCapsuleRandom(t *testing.T) {
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, 9))
	for i := range randomCases {
		g := gen{rng: rng, snap: i%3 == 0}
		k := Capsule{g.v2(-3, 3), g.v2(-3, 3), g.radius()}
		c := Circle{g.v2(-8, 8), g.radius()}
		motion := to2(g.motionToward(to3(c.Center), to3(k.A), 3))
		h, ok := SweepCircleCapsule(c, motion, k)
		a64, b64, kr := f64(to3(k.A)), f64(to3(k.B)), float64(k.Radius)
		sc := sweepCase{o: f64(to3(c.Center)), d: f64(to3(motion)), r: float64(c.Radius),
			dist: func(p vec) float64 { return math.Max(0, refDistSegment(p, a64, b64)-kr) }}
		if err := sc.check(subSteps, randomTol, ok, float64(h.T), f64(to3(h.Point)), f64(to3(h.Normal))); err != nil {
			t.Fatalf("case %d: SweepCircleCapsule(%v, %v, %v) = %+v, %v: %v", i, c, motion, k, h, ok, err)
		}
	}
}

// TestSweepCircleSegmentWorldScale repeats the comparison far from the origin, where a
// navmesh's edges live: coordinates around 4096 (float32 spacing 2^-11 ≈ 0.0005 there), long
// edges and small radii. The tolerance is a few units of that spacing.
func TestSweepCircleSegmentWorldScale(t *testing.T) {
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, 11))
	const base = 4096
	for i := range randomCases {
		g := gen{rng: rng, snap: i%3 == 0}
		off := mgl32.Vec2{base, base}
		s := Segment{g.v2(-50, 50).Add(off), g.v2(-50, 50).Add(off)}
		c := Circle{g.v2(-60, 60).Add(off), g.f(0, 1)}
		motion := to2(g.motionToward(to3(c.Center), to3(Axpy(s.A, Sub(s.B, s.A), float32(rng.Float64()))), 2))
		h, ok := SweepCircleSegment(c, motion, s)
		a64, b64 := f64(to3(s.A)), f64(to3(s.B))
		sc := sweepCase{o: f64(to3(c.Center)), d: f64(to3(motion)), r: float64(c.Radius),
			dist: func(p vec) float64 { return refDistSegment(p, a64, b64) }}
		if err := sc.check(subSteps, 4e-3, ok, float64(h.T), f64(to3(h.Point)), f64(to3(h.Normal))); err != nil {
			t.Fatalf("case %d: SweepCircleSegment(%v, %v, %v) = %+v, %v: %v", i, c, motion, s, h, ok, err)
		}
	}
}
