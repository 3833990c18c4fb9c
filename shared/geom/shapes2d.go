package geom

import "github.com/go-gl/mathgl/mgl32"

// Segment is the 2D line segment from A to B. A segment with A == B is a point.
type Segment struct{ A, B mgl32.Vec2 }

// Circle is a 2D disc. A radius of zero makes it a point; a negative radius is invalid.
type Circle struct {
	Center mgl32.Vec2
	Radius float32
}

// Hit describes a contact of a moving shape: T is the fraction of the motion (0..1) at first
// contact, Point the contact point on the obstacle, Normal the unit normal pointing from the
// obstacle toward the mover.
type Hit struct {
	T             float32
	Point, Normal mgl32.Vec2
}

// ClosestPointOnSegment returns the point q of s closest to p and its parameter t in [0, 1],
// q = A + t*(B-A). A degenerate segment (A == B) gives q = A, t = 0.
func ClosestPointOnSegment(p mgl32.Vec2, s Segment) (q mgl32.Vec2, t float32) {
	ab := Sub(s.B, s.A)
	l2 := Dot(ab, ab)
	if !(l2 > 0) {
		return s.A, 0
	}
	t = Dot(Sub(p, s.A), ab)
	if t <= 0 {
		return s.A, 0
	}
	if t >= l2 {
		return s.B, 1
	}
	t /= l2
	return Axpy(s.A, ab, t), t
}

// Capsule is the set of points within Radius of the segment from A to B.
type Capsule struct {
	A, B   mgl32.Vec2
	Radius float32
}

// AABB is a solid axis-aligned rectangle; Min must not exceed Max on either axis.
type AABB struct{ Min, Max mgl32.Vec2 }

// Valid reports whether b has finite corners with Min <= Max on both axes.
func (b AABB) Valid() bool {
	return Finite2(b.Min) && Finite2(b.Max) && b.Min[0] <= b.Max[0] && b.Min[1] <= b.Max[1]
}

// ClosestPointOnAABB returns the point of the solid rectangle b closest to p (p itself when
// inside).
func ClosestPointOnAABB(p mgl32.Vec2, b AABB) mgl32.Vec2 {
	return mgl32.Vec2{clamp(p[0], b.Min[0], b.Max[0]), clamp(p[1], b.Min[1], b.Max[1])}
}

// ClosestPointsSegmentSegment returns the closest points c1 = s1.A + t1*(s1.B-s1.A) and
// c2 = s2.A + t2*(s2.B-s2.A) of two segments (Ericson 5.1.9); crossing segments give their
// intersection. Parallel segments give one of the closest pairs; degenerate ones are points.
func ClosestPointsSegmentSegment(s1, s2 Segment) (c1, c2 mgl32.Vec2, t1, t2 float32) {
	d1 := Sub(s1.B, s1.A)
	d2 := Sub(s2.B, s2.A)
	r := Sub(s1.A, s2.A)
	a := Dot(d1, d1)
	e := Dot(d2, d2)
	f := Dot(d2, r)
	switch {
	case !(a > 0) && !(e > 0):
		return s1.A, s2.A, 0, 0
	case !(a > 0):
		t2 = clamp01(f / e)
	default:
		c := Dot(d1, r)
		if !(e > 0) {
			t1 = clamp01(-c / a)
			break
		}
		b := Dot(d1, d2)
		// a*e - b*b, computed as (d1×d2)² to avoid cancellation for near-parallel segments.
		cr := Cross(d1, d2)
		if denom := float32(cr * cr); denom > 0 {
			t1 = clamp01((float32(b*f) - float32(c*e)) / denom)
		}
		t2 = (float32(b*t1) + f) / e
		if t2 < 0 {
			t2 = 0
			t1 = clamp01(-c / a)
		} else if t2 > 1 {
			t2 = 1
			t1 = clamp01((b - c) / a)
		}
	}
	return Axpy(s1.A, d1, t1), Axpy(s2.A, d2, t2), t1, t2
}
