package sim

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/geom"
)

// sweepDisc is geom.SweepCircleCircle for sweepNear's candidates: the disc at start,
// moved by m, against the disc of radius r at p, with rr2 = float32(rr*rr) for the sum
// rr of the radii. sweepNear's closest-approach test has already computed d = p - start,
// dm = d·m and mm = m·m, from which the quadratic's terms follow by a change of sign
// (geom works with start - p = -d: |-d|² = |d|², (-d)·m = -dm, ((-d)×m)² = (d×m)²,
// all exact), so the results are geom's to the bit. The input checks are left out: the
// simulation's positions and radii are finite and small (sweepDisc_test compares the
// two on random cases).
func sweepDisc(start, m, p mgl32.Vec2, r float32, d mgl32.Vec2, dm, mm, rr2 float32) (geom.Hit, bool) {
	c := lenSq2(d) - rr2
	var t float32
	switch {
	case c < 0: // already overlapping
	case dm <= 0: // not approaching
		return geom.Hit{}, false
	case c == 0: // touching
	default:
		// geom: c / (√(a r² - (m×d)²) - b) with b = -dm and a = mm.
		cr := float32(d[0]*m[1]) - float32(d[1]*m[0])
		disc := float32(mm*rr2) - float32(cr*cr)
		if disc < 0 {
			return geom.Hit{}, false
		}
		t = c / (float32(math.Sqrt(float64(disc))) + dm)
		if !(t <= 1) {
			return geom.Hit{}, false
		}
	}
	n, ok := unit64(sub2(axpy2(start, m, t), p))
	if !ok {
		// Coincident centres: push back against the motion.
		if n, ok = unit64(mgl32.Vec2{-m[0], -m[1]}); !ok {
			n = mgl32.Vec2{1, 0}
		}
	}
	return geom.Hit{T: t, Point: axpy2(p, n, r), Normal: n}, true
}

// unit64 returns v / |v| divided in float64, as geom does (unit2 divides in float32).
func unit64(v mgl32.Vec2) (mgl32.Vec2, bool) {
	x, y := float64(v[0]), float64(v[1])
	l := math.Sqrt(x*x + y*y)
	if !(l > 0) || math.IsInf(l, 0) {
		return mgl32.Vec2{}, false
	}
	return mgl32.Vec2{float32(x / l), float32(y / l)}, true
}
