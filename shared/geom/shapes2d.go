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
	ab := sub2(s.B, s.A)
	l2 := dot2(ab, ab)
	if !(l2 > 0) {
		return s.A, 0
	}
	t = dot2(sub2(p, s.A), ab)
	if t <= 0 {
		return s.A, 0
	}
	if t >= l2 {
		return s.B, 1
	}
	t /= l2
	return axpy2(s.A, ab, t), t
}
