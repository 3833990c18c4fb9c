package navi

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// The exact predicates are checked against math/big rationals, which stay
// in the tests: the package itself must not allocate in a predicate.

func ratOf(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }

func orientBig(a, b, c vec2) int {
	sub := func(p, q float64) *big.Rat { return new(big.Rat).Sub(ratOf(p), ratOf(q)) }
	l := new(big.Rat).Mul(sub(a.x, c.x), sub(b.y, c.y))
	r := new(big.Rat).Mul(sub(a.y, c.y), sub(b.x, c.x))
	return l.Cmp(r)
}

func inCircleBig(a, b, c, d vec2) int {
	sub := func(p, q float64) *big.Rat { return new(big.Rat).Sub(ratOf(p), ratOf(q)) }
	mul := func(p, q *big.Rat) *big.Rat { return new(big.Rat).Mul(p, q) }
	add := func(p, q *big.Rat) *big.Rat { return new(big.Rat).Add(p, q) }
	adx, ady := sub(a.x, d.x), sub(a.y, d.y)
	bdx, bdy := sub(b.x, d.x), sub(b.y, d.y)
	cdx, cdy := sub(c.x, d.x), sub(c.y, d.y)
	alift := add(mul(adx, adx), mul(ady, ady))
	blift := add(mul(bdx, bdx), mul(bdy, bdy))
	clift := add(mul(cdx, cdx), mul(cdy, cdy))
	det := mul(alift, new(big.Rat).Sub(mul(bdx, cdy), mul(cdx, bdy)))
	det = add(det, mul(blift, new(big.Rat).Sub(mul(cdx, ady), mul(adx, cdy))))
	det = add(det, mul(clift, new(big.Rat).Sub(mul(adx, bdy), mul(bdx, ady))))
	return det.Sign()
}

func TestPredicateCases(t *testing.T) {
	t.Parallel()
	up := func(x float64) float64 { return math.Nextafter(x, math.Inf(1)) }
	down := func(x float64) float64 { return math.Nextafter(x, math.Inf(-1)) }
	cases := []struct {
		name       string
		a, b, c, d vec2
		orient     int // of a, b, c
		inCircle   int // of d in the circle through a, b, c (sign flips when a, b, c turn right)
	}{
		{"left turn, d inside", vec2{0, 0}, vec2{4, 0}, vec2{0, 4}, vec2{1, 1}, 1, 1},
		{"right turn, d outside", vec2{0, 0}, vec2{0, 4}, vec2{4, 0}, vec2{9, 9}, -1, 1},
		{"collinear", vec2{0, 0}, vec2{1, 1}, vec2{3, 3}, vec2{2, 2}, 0, 0},
		{"collinear, far out", vec2{1e6, 1e6}, vec2{1e6 + 1, 1e6 + 1}, vec2{1e6 + 3, 1e6 + 3}, vec2{1e6 + 2, 1e6 + 2}, 0, 0},
		{"one ulp left", vec2{0, 0}, vec2{2, 2}, vec2{1, up(1)}, vec2{0, 0}, 1, 0},
		{"one ulp right, far out", vec2{1e6, 1e6}, vec2{1e6 + 2, 1e6 + 2}, vec2{1e6 + 1, down(1e6 + 1)}, vec2{1e6, 1e6}, -1, 0},
		{"cocircular (3,4,5)", vec2{5, 0}, vec2{3, 4}, vec2{-4, 3}, vec2{0, -5}, 1, 0},
		{"cocircular, far out", vec2{2005, 1000}, vec2{2003, 1004}, vec2{1996, 1003}, vec2{2000, 995}, 1, 0},
		{"one ulp outside", vec2{5, 0}, vec2{3, 4}, vec2{-4, 3}, vec2{0, down(-5)}, 1, -1},
		{"one ulp inside", vec2{5, 0}, vec2{3, 4}, vec2{-4, 3}, vec2{0, up(-5)}, 1, 1},
		{"one ulp inside, far out", vec2{2005, 1000}, vec2{2003, 1004}, vec2{1996, 1003}, vec2{2000, up(995)}, 1, 1},
	}
	for _, tc := range cases {
		if got := orient(tc.a, tc.b, tc.c); got != tc.orient {
			t.Errorf("%s: orient = %d, want %d", tc.name, got, tc.orient)
		}
		if got := orientExact(tc.a, tc.b, tc.c); got != tc.orient {
			t.Errorf("%s: orientExact = %d, want %d", tc.name, got, tc.orient)
		}
		if got := inCircle(tc.a, tc.b, tc.c, tc.d); got != tc.inCircle {
			t.Errorf("%s: inCircle = %d, want %d", tc.name, got, tc.inCircle)
		}
		if got := inCircleExact(tc.a, tc.b, tc.c, tc.d); got != tc.inCircle {
			t.Errorf("%s: inCircleExact = %d, want %d", tc.name, got, tc.inCircle)
		}
	}
}

// nearDegenerate returns float32-valued points that make the float64
// filters fail often: c near the line ab, or d near the circle abc, each
// rounded to float32 and nudged by a few ulps, at random scales and
// offsets.
func nearDegenerate(r *rand.Rand) (a, b, c, d vec2) {
	f32 := func(x float64) float64 { return float64(float32(x)) }
	nudge := func(x float64) float64 {
		for k := r.IntN(5) - 2; k != 0; {
			if k > 0 {
				x, k = float64(math.Nextafter32(float32(x), float32(math.Inf(1)))), k-1
			} else {
				x, k = float64(math.Nextafter32(float32(x), float32(math.Inf(-1)))), k+1
			}
		}
		return x
	}
	scale := math.Ldexp(1, r.IntN(40)-20)
	off := vec2{f32((r.Float64() - 0.5) * 4096), f32((r.Float64() - 0.5) * 4096)}
	if r.IntN(4) == 0 {
		off = vec2{}
	}
	pt := func() vec2 {
		return vec2{f32(off.x + (r.Float64()-0.5)*scale), f32(off.y + (r.Float64()-0.5)*scale)}
	}
	a, b = pt(), pt()
	s := r.Float64()*3 - 1
	c = vec2{nudge(f32(a.x + s*(b.x-a.x))), nudge(f32(a.y + s*(b.y-a.y)))}
	// d on the circumcircle of a, b, c (where it exists), rounded.
	cx, cy := off.x+(r.Float64()-0.5)*scale, off.y+(r.Float64()-0.5)*scale
	rad := scale * (0.1 + r.Float64())
	on := func(k int) vec2 {
		th := r.Float64() * 2 * math.Pi
		return vec2{nudge(f32(cx + rad*math.Cos(th))), nudge(f32(cy + rad*math.Sin(th)))}
	}
	if r.IntN(2) == 0 {
		a, b, c = on(0), on(1), on(2)
	}
	d = on(3)
	return a, b, c, d
}

func TestPredicatesAgreeWithBig(t *testing.T) {
	t.Parallel()
	seed := uint64(20261201)
	r := rand.New(rand.NewPCG(seed, 3))
	n := 40000
	if testing.Short() || raceEnabled {
		n = 4000
	}
	exactOrient, exactCircle := 0, 0
	for i := range n {
		a, b, c, d := nearDegenerate(r)
		if i%8 == 0 { // plain random points too
			a, b, c, d = randPt(r), randPt(r), randPt(r), randPt(r)
		}
		want := orientBig(a, b, c)
		if got := orient(a, b, c); got != want {
			t.Fatalf("seed %d, case %d: orient(%v, %v, %v) = %d, math/big says %d", seed, i, a, b, c, got, want)
		}
		if got := orientExact(a, b, c); got != want {
			t.Fatalf("seed %d, case %d: orientExact(%v, %v, %v) = %d, math/big says %d", seed, i, a, b, c, got, want)
		}
		if want == 0 {
			exactOrient++
		}
		want = inCircleBig(a, b, c, d)
		if got := inCircle(a, b, c, d); got != want {
			t.Fatalf("seed %d, case %d: inCircle(%v, %v, %v, %v) = %d, math/big says %d", seed, i, a, b, c, d, got, want)
		}
		if got := inCircleExact(a, b, c, d); got != want {
			t.Fatalf("seed %d, case %d: inCircleExact(%v, %v, %v, %v) = %d, math/big says %d", seed, i, a, b, c, d, got, want)
		}
		if want == 0 {
			exactCircle++
		}
	}
	// The generator must reach the degenerate cases, or the test proves little.
	if exactOrient == 0 {
		t.Errorf("no exactly collinear case in %d", n)
	}
	t.Logf("%d cases: %d exactly collinear, %d exactly cocircular", n, exactOrient, exactCircle)
}

func randPt(r *rand.Rand) vec2 {
	return vec2{float64(float32((r.Float64() - 0.5) * 8192)), float64(float32((r.Float64() - 0.5) * 8192))}
}

func TestExactPredicatesNoAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	var pts [64][4]vec2
	for i := range pts {
		a, b, c, d := nearDegenerate(r)
		pts[i] = [4]vec2{a, b, c, d}
	}
	i := 0
	allocs := testing.AllocsPerRun(500, func() {
		p := &pts[i%len(pts)]
		i++
		orientExact(p[0], p[1], p[2])
		inCircleExact(p[0], p[1], p[2], p[3])
	})
	if allocs != 0 {
		t.Errorf("exact predicates allocate %v times per call pair", allocs)
	}
}

var predSink int

// The predicate benchmarks run on near-degenerate inputs, for the exact
// expansions and, as the baseline, the math/big rationals they replace.
func BenchmarkPredicates(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 5))
	var pts [256][4]vec2
	for i := range pts {
		a, b, c, d := nearDegenerate(r)
		pts[i] = [4]vec2{a, b, c, d}
	}
	for _, bc := range []struct {
		name string
		f    func(p *[4]vec2) int
	}{
		{"OrientExact", func(p *[4]vec2) int { return orientExact(p[0], p[1], p[2]) }},
		{"OrientBig", func(p *[4]vec2) int { return orientBig(p[0], p[1], p[2]) }},
		{"InCircleExact", func(p *[4]vec2) int { return inCircleExact(p[0], p[1], p[2], p[3]) }},
		{"InCircleBig", func(p *[4]vec2) int { return inCircleBig(p[0], p[1], p[2], p[3]) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				predSink += bc.f(&pts[i%len(pts)])
				i++
			}
		})
	}
}
