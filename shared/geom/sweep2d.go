package geom

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// SweepCirclePoint moves c by motion and reports when it first touches the point p (a ray
// against a circle of radius c.Radius around p). Hit.Point is p. If c already contains p,
// the hit is at T = 0 with Normal from p toward c's centre, or opposing the motion when the
// centre is exactly p (+X when motion is zero too).
func SweepCirclePoint(c Circle, motion mgl32.Vec2, p mgl32.Vec2) (Hit, bool) {
	if !validRadius(c.Radius) || !Finite2(c.Center) || !Finite2(motion) || !Finite2(p) {
		return Hit{}, false
	}
	t, ok := sweepPoint2(c.Center, motion, p, c.Radius, 1)
	if !ok {
		return Hit{}, false
	}
	n, nl := Unit(Sub(Axpy(c.Center, motion, t), p))
	if !(nl > 0) {
		n = awayFrom2(motion)
	}
	return checked(Hit{T: t, Point: p, Normal: n})
}

// SweepCircleCircle moves c by motion and reports when it first touches the circle other.
// Hit.Point lies on other's boundary. If the circles already overlap, the hit is at T = 0
// with Normal from other's centre toward c's, or opposing the motion when the centres
// coincide (+X when motion is zero too).
func SweepCircleCircle(c Circle, motion mgl32.Vec2, other Circle) (Hit, bool) {
	if !validRadius(c.Radius) || !validRadius(other.Radius) || !Finite2(c.Center) ||
		!Finite2(motion) || !Finite2(other.Center) {
		return Hit{}, false
	}
	r := c.Radius + other.Radius
	if !Finite(r) {
		return Hit{}, false
	}
	t, ok := sweepPoint2(c.Center, motion, other.Center, r, 1)
	if !ok {
		return Hit{}, false
	}
	n, nl := Unit(Sub(Axpy(c.Center, motion, t), other.Center))
	if !(nl > 0) {
		n = awayFrom2(motion)
	}
	return checked(Hit{T: t, Point: Axpy(other.Center, n, other.Radius), Normal: n})
}

// SweepCircleSegment moves c by motion and reports when it first touches the segment s:
// the centre's path is intersected with the capsule of radius c.Radius around s (its two
// sides and its two end discs), and the earliest contact wins. A degenerate segment is a point
// (SweepCirclePoint). If c already overlaps s, the hit is at T = 0 with Point the closest point
// of s and Normal from it toward the centre; when the centre lies on s, Normal is the side
// normal of s that opposes the motion (the left normal of A→B when motion is zero or along s).
func SweepCircleSegment(c Circle, motion mgl32.Vec2, s Segment) (Hit, bool) {
	if !validRadius(c.Radius) || !Finite2(c.Center) || !Finite2(motion) ||
		!Finite2(s.A) || !Finite2(s.B) {
		return Hit{}, false
	}
	ab := Sub(s.B, s.A)
	l2 := Dot(ab, ab)
	if !(l2 > 0) { // A == B, or so close that |B-A|² underflows
		return SweepCirclePoint(c, motion, s.A)
	}
	side, nl := Unit(mgl32.Vec2{-ab[1], ab[0]}) // left normal of A→B
	if !(nl > 0) {                              // B-A overflowed
		return Hit{}, false
	}
	r := c.Radius
	o := c.Center

	// Already overlapping: report T = 0.
	q, _ := ClosestPointOnSegment(o, s)
	d := Sub(o, q)
	if Dot(d, d) < float32(r*r) {
		n, nl := Unit(d)
		if !(nl > 0) {
			n = side
			if Dot(n, motion) > 0 {
				n = mgl32.Vec2{-n[0], -n[1]}
			}
		}
		return checked(Hit{T: 0, Point: q, Normal: n})
	}

	// The two long sides of the capsule: lines parallel to s at distance r.
	dist := Dot(Sub(o, s.A), side)
	vn := Dot(motion, side)
	n := side
	if dist < 0 {
		dist, vn = -dist, -vn
		n = mgl32.Vec2{-side[0], -side[1]}
	}
	if vn < 0 {
		// dist < r here means touching up to rounding (a deeper overlap was reported above) or
		// a centre beyond the ends, which the projection test below rejects.
		t := max(dist-r, 0) / -vn
		if t <= 1 {
			u := Dot(Sub(Axpy(o, motion, t), s.A), ab)
			if u >= 0 && u <= l2 {
				// The capsule is convex, so a path entering through its flat side cannot
				// have touched an end disc before: this is the contact.
				return checked(Hit{T: t, Point: Axpy(s.A, ab, u/l2), Normal: n})
			}
		}
	}

	// The end discs.
	best := float32(math.Inf(1))
	var hit Hit
	for _, p := range [2]mgl32.Vec2{s.A, s.B} {
		if t, ok := sweepPoint2(o, motion, p, r, 1); ok && t < best {
			n, nl := Unit(Sub(Axpy(o, motion, t), p))
			if !(nl > 0) {
				n = awayFrom2(motion)
			}
			best = t
			hit = Hit{T: t, Point: p, Normal: n}
		}
	}
	if best > 1 {
		return Hit{}, false
	}
	return checked(hit)
}

// sweepPoint2 intersects the path o + t*d, t in [0, maxT], with the disc of radius r around p and
// returns the first t inside or on it. A start inside the disc gives 0; a start on its
// boundary gives 0 only when d points inward.
func sweepPoint2(o, d, p mgl32.Vec2, r, maxT float32) (float32, bool) {
	m := Sub(o, p)
	rr := float32(r * r)
	c := Dot(m, m) - rr
	b := Dot(m, d)
	if c < 0 {
		return 0, true
	}
	if b >= 0 { // on or outside and not approaching
		return 0, false
	}
	if c == 0 {
		return 0, true
	}
	// Roots of a t² + 2b t + c with a = |d|². The discriminant b² - ac equals a r² - (m×d)²
	// (Lagrange's identity), which avoids cancelling two large terms; and the smaller root
	// (-b - √disc)/a is computed as c/(√disc - b), which has no cancellation since b < 0.
	a := Dot(d, d)
	cr := Cross(m, d)
	disc := float32(a*rr) - float32(cr*cr)
	if disc < 0 {
		return 0, false
	}
	t := c / (sqrt32(disc) - b)
	if !(t <= maxT) {
		return 0, false
	}
	return t, true
}
