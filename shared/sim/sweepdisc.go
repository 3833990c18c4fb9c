package sim

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/geom"
)

// discT and discHit are geom.SweepCircleCircle for sweepNear's candidates: the disc at
// start, moved by m, against the disc of radius r at p, with d = p - start, dm = d·m,
// mm = m·m, rr2 = float32(rr*rr) for the sum rr of the radii and c = |d|² - rr2 (what
// sweepNear's tests compute anyway). discT returns the time of first contact, or false
// when there is none.
// geom works with start - p = -d; the quadratic's terms follow from d by a change of
// sign (|-d|² = |d|², (-d)·m = -dm, ((-d)×m)² = (d×m)², all exact), so the results are
// geom's to the bit. The input checks are left out: the simulation's positions and
// radii are finite and small (TestSweepDiscMatchesGeom compares the two on random
// cases). It is split from discHit so that sweepNear computes a contact's normal only
// for a hit that would become its first.
func discT(d, m mgl32.Vec2, c, dm, mm, rr2 float32) (float32, bool) {
	switch {
	case c < 0: // already overlapping
		return 0, true
	case dm <= 0: // not approaching
		return 0, false
	case c == 0: // touching
		return 0, true
	}
	// geom: c / (√(a r² - (m×d)²) - b) with b = -dm and a = mm.
	cr := float32(d[0]*m[1]) - float32(d[1]*m[0])
	disc := float32(mm*rr2) - float32(cr*cr)
	if disc < 0 {
		return 0, false
	}
	t := c / (float32(math.Sqrt(float64(disc))) + dm)
	return t, t <= 1
}

// discHit returns the contact at time t: the normal from the other centre
// to the moved one, and the point on the other disc.
func discHit(start, m, p mgl32.Vec2, r, t float32) geom.Hit {
	n, l := geom.Unit(geom.Sub(geom.Axpy(start, m, t), p))
	if !(l > 0) {
		// Coincident centres: push back against the motion.
		if n, l = geom.Unit(mgl32.Vec2{-m[0], -m[1]}); !(l > 0) {
			n = mgl32.Vec2{1, 0}
		}
	}
	return geom.Hit{T: t, Point: geom.Axpy(p, n, r), Normal: n}
}
