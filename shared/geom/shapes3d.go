package geom

import "github.com/go-gl/mathgl/mgl32"

// Segment3 is the 3D line segment from A to B.
type Segment3 struct{ A, B mgl32.Vec3 }

// Sphere is a solid ball. A negative radius is invalid.
type Sphere struct {
	Center mgl32.Vec3
	Radius float32
}

// Capsule3 is the set of points within Radius of the segment from A to B.
type Capsule3 struct {
	A, B   mgl32.Vec3
	Radius float32
}

// AABB3 is a solid axis-aligned box; Min must not exceed Max on any axis.
type AABB3 struct{ Min, Max mgl32.Vec3 }

// Hit3 is the 3D Hit: T is the fraction of the motion (0..1) at first contact (for a raycast,
// the ray parameter), Point the contact point on the obstacle, Normal the unit normal pointing
// from the obstacle toward the mover.
type Hit3 struct {
	T             float32
	Point, Normal mgl32.Vec3
}

// Valid reports whether b has finite corners with Min <= Max on every axis.
func (b AABB3) Valid() bool {
	return Finite3(b.Min) && Finite3(b.Max) &&
		b.Min[0] <= b.Max[0] && b.Min[1] <= b.Max[1] && b.Min[2] <= b.Max[2]
}

// ClosestPointOnSegment3 returns the point q of s closest to p and its parameter t in [0, 1],
// q = A + t*(B-A). A degenerate segment gives q = A, t = 0.
func ClosestPointOnSegment3(p mgl32.Vec3, s Segment3) (q mgl32.Vec3, t float32) {
	ab := sub3(s.B, s.A)
	l2 := dot3(ab, ab)
	if !(l2 > 0) {
		return s.A, 0
	}
	t = dot3(sub3(p, s.A), ab)
	if t <= 0 {
		return s.A, 0
	}
	if t >= l2 {
		return s.B, 1
	}
	t /= l2
	return axpy3(s.A, ab, t), t
}

// ClosestPointOnAABB3 returns the point of the solid box b closest to p (p itself when inside).
func ClosestPointOnAABB3(p mgl32.Vec3, b AABB3) mgl32.Vec3 {
	return mgl32.Vec3{
		clamp(p[0], b.Min[0], b.Max[0]),
		clamp(p[1], b.Min[1], b.Max[1]),
		clamp(p[2], b.Min[2], b.Max[2]),
	}
}

// ClosestPointsSegmentSegment3 returns the closest points c1 = s1.A + t1*(s1.B-s1.A) and
// c2 = s2.A + t2*(s2.B-s2.A) of two segments (Ericson 5.1.9). Parallel segments give one of the
// closest pairs; degenerate segments are points.
func ClosestPointsSegmentSegment3(s1, s2 Segment3) (c1, c2 mgl32.Vec3, t1, t2 float32) {
	d1 := sub3(s1.B, s1.A)
	d2 := sub3(s2.B, s2.A)
	r := sub3(s1.A, s2.A)
	a := dot3(d1, d1)
	e := dot3(d2, d2)
	f := dot3(d2, r)
	switch {
	case !(a > 0) && !(e > 0):
		return s1.A, s2.A, 0, 0
	case !(a > 0):
		t2 = clamp01(f / e)
	default:
		c := dot3(d1, r)
		if !(e > 0) {
			t1 = clamp01(-c / a)
			break
		}
		b := dot3(d1, d2)
		// a*e - b*b, computed as |d1×d2|² to avoid cancellation for near-parallel segments.
		cr := cross3(d1, d2)
		if denom := dot3(cr, cr); denom > 0 {
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
	return axpy3(s1.A, d1, t1), axpy3(s2.A, d2, t2), t1, t2
}
