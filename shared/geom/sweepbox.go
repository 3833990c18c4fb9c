package geom

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// SweepSphereAABB moves s by motion and reports when it first touches the solid box b, as in
// Ericson 5.5.7. The centre's path is intersected with b expanded by the radius; the entry
// point is classified by which faces of b it lies outside of. In a face region that entry is
// the contact. In an edge region the contact is with the capsule of radius s.Radius around
// that edge; in a vertex region with the three edge capsules meeting at the vertex, taking the
// earliest. A path that enters the expanded box at a rounded-off edge or corner and passes it
// without touching the capsules does not hit, so there are no false or early corner hits.
//
// If s already overlaps b, the hit is at T = 0 with Point the closest point of b to the
// centre and Normal from it toward the centre; when the centre is inside b, Point is the
// centre's projection on the nearest face and Normal that face's outward normal. A sphere of
// radius zero is a point against the open box: it must enter the interior to hit. A box with
// Min > Max on any axis, NaN or Inf input, or a negative radius give no hit.
func SweepSphereAABB(s Sphere, motion mgl32.Vec3, b AABB3) (Hit3, bool) {
	if !Finite3(s.Center) || !validRadius(s.Radius) || !Finite3(motion) || !b.Valid() {
		return Hit3{}, false
	}
	o, r := s.Center, s.Radius

	// Already overlapping.
	q := ClosestPointOnAABB3(o, b)
	d := sub3(o, q)
	if d2 := dot3(d, d); d2 < float32(r*r) || d2 == 0 && insideOpen(&o, &b.Min, &b.Max, 3) {
		n, ok := unit3(d)
		if !ok {
			q, n = nearestFace(o, b.Min, b.Max, 3)
		}
		return checked3(Hit3{T: 0, Point: q, Normal: n})
	}

	// Ray against the box expanded by r (open, so grazing its surface is no hit).
	e := AABB3{
		Min: mgl32.Vec3{b.Min[0] - r, b.Min[1] - r, b.Min[2] - r},
		Max: mgl32.Vec3{b.Max[0] + r, b.Max[1] + r, b.Max[2] + r},
	}
	t, axis, ok := slab(&o, &motion, &e.Min, &e.Max, 3, 1, true)
	if !ok {
		return Hit3{}, false
	}
	p := axpy3(o, motion, t)

	// u: the axes on which p is below b; v: those on which it is above.
	var u, v int
	for i := range 3 {
		if p[i] < b.Min[i] {
			u |= 1 << i
		}
		if p[i] > b.Max[i] {
			v |= 1 << i
		}
	}
	m := u | v

	if m&(m-1) == 0 {
		// Face region (m == 0 only through rounding): the entry point is the contact.
		var n mgl32.Vec3
		q := ClosestPointOnAABB3(p, b)
		if axis >= 0 {
			n[axis] = faceSign(motion[axis])
			q[axis] = b.Max[axis] // exactly on the face, whatever the rounding of p
			if n[axis] < 0 {
				q[axis] = b.Min[axis]
			}
		} else {
			// The centre starts inside e only through the rounding of b.Max+r (or b.Min-r):
			// the exact test above found it at least r from b, so it touches q. As for any
			// touching start, that is a hit only when moving inward; the normal is the face's,
			// from q to the centre, not the motion's.
			var ok bool
			if n, ok = unit3(sub3(o, q)); !ok || dot3(n, motion) >= 0 {
				return Hit3{}, false
			}
		}
		return checked3(Hit3{T: t, Point: q, Normal: n})
	}

	var edge Segment3
	if m == 7 {
		// Vertex region: the earliest hit of the three edge capsules meeting at the vertex.
		// They share the vertex ball, so test it once: three cylinders and four balls.
		vert := corner3(b, v)
		best := float32(math.Inf(1))
		if tv, ok := sweepPoint3(o, motion, vert, r, 1); ok {
			best, edge = tv, Segment3{vert, vert}
		}
		for _, k := range [3]int{1, 2, 4} {
			other := corner3(b, v^k)
			if tk, ok := sweepCylinder3(o, motion, vert, other, r, 1); ok && tk < best {
				best, edge = tk, Segment3{vert, other}
			}
			if tk, ok := sweepPoint3(o, motion, other, r, 1); ok && tk < best {
				best, edge = tk, Segment3{other, other}
			}
		}
		if best > 1 {
			return Hit3{}, false
		}
		t = best
	} else {
		// Edge region: the capsule around the edge parallel to the axis on which p is inside.
		edge = Segment3{corner3(b, u^7), corner3(b, v)}
		if t, ok = sweepCapsule3(o, motion, edge.A, edge.B, r, 1); !ok {
			return Hit3{}, false
		}
	}
	c := axpy3(o, motion, t)
	pt, _ := ClosestPointOnSegment3(c, edge)
	n, ok := unit3(sub3(c, pt))
	if !ok {
		n = awayFrom3(motion)
	}
	return checked3(Hit3{T: t, Point: pt, Normal: n})
}

// SweepSphereSphere moves s by motion and reports when it first touches the ball other, like
// SweepCircleCircle.
func SweepSphereSphere(s Sphere, motion mgl32.Vec3, other Sphere) (Hit3, bool) {
	if !validRadius(s.Radius) || !validRadius(other.Radius) || !Finite3(s.Center) ||
		!Finite3(motion) || !Finite3(other.Center) {
		return Hit3{}, false
	}
	r := s.Radius + other.Radius
	if !Finite(r) {
		return Hit3{}, false
	}
	t, ok := sweepPoint3(s.Center, motion, other.Center, r, 1)
	if !ok {
		return Hit3{}, false
	}
	n, ok := unit3(sub3(axpy3(s.Center, motion, t), other.Center))
	if !ok {
		n = awayFrom3(motion)
	}
	return checked3(Hit3{T: t, Point: axpy3(other.Center, n, other.Radius), Normal: n})
}

// SweepCircleAABB moves c by motion and reports when it first touches the solid rectangle b:
// the 2D form of SweepSphereAABB. In 2D a corner region needs only the disc around its
// corner: a path leaving the corner region toward a side crosses that disc first. Overlapping
// starts, a zero radius (a point against the open rectangle) and invalid input are handled
// as in SweepSphereAABB.
func SweepCircleAABB(c Circle, motion mgl32.Vec2, b AABB) (Hit, bool) {
	if !Finite2(c.Center) || !validRadius(c.Radius) || !Finite2(motion) || !b.Valid() {
		return Hit{}, false
	}
	o, r := c.Center, c.Radius

	q := ClosestPointOnAABB(o, b)
	d := Sub(o, q)
	o3, lo3, hi3 := to3(o), to3(b.Min), to3(b.Max)
	if d2 := Dot(d, d); d2 < float32(r*r) || d2 == 0 && insideOpen(&o3, &lo3, &hi3, 2) {
		n, nl := Unit(d)
		if !(nl > 0) {
			q3, n3 := nearestFace(o3, lo3, hi3, 2)
			q, n = to2(q3), to2(n3)
		}
		return checked(Hit{T: 0, Point: q, Normal: n})
	}

	m3 := to3(motion)
	lo := mgl32.Vec3{b.Min[0] - r, b.Min[1] - r}
	hi := mgl32.Vec3{b.Max[0] + r, b.Max[1] + r}
	t, axis, ok := slab(&o3, &m3, &lo, &hi, 2, 1, true)
	if !ok {
		return Hit{}, false
	}
	p := Axpy(o, motion, t)
	var v int
	out := 0
	for i := range 2 {
		if p[i] < b.Min[i] {
			out++
		}
		if p[i] > b.Max[i] {
			out++
			v |= 1 << i
		}
	}
	if out < 2 {
		var n mgl32.Vec2
		q := ClosestPointOnAABB(p, b)
		if axis >= 0 {
			n[axis] = faceSign(motion[axis])
			q[axis] = b.Max[axis]
			if n[axis] < 0 {
				q[axis] = b.Min[axis]
			}
		} else {
			// Touching through the rounding of the expanded rectangle, as in SweepSphereAABB.
			var nl float32
			if n, nl = Unit(Sub(o, q)); !(nl > 0) || Dot(n, motion) >= 0 {
				return Hit{}, false
			}
		}
		return checked(Hit{T: t, Point: q, Normal: n})
	}
	k := mgl32.Vec2{b.Min[0], b.Min[1]}
	for i := range 2 {
		if v&(1<<i) != 0 {
			k[i] = b.Max[i]
		}
	}
	if t, ok = sweepPoint2(o, motion, k, r, 1); !ok {
		return Hit{}, false
	}
	n, nl := Unit(Sub(Axpy(o, motion, t), k))
	if !(nl > 0) {
		n = awayFrom2(motion)
	}
	return checked(Hit{T: t, Point: k, Normal: n})
}

// SweepCircleCapsule moves c by motion and reports when it first touches the capsule k: the
// sweep of a circle of radius c.Radius+k.Radius against k's segment, with Point moved out to
// k's surface.
func SweepCircleCapsule(c Circle, motion mgl32.Vec2, k Capsule) (Hit, bool) {
	if !validRadius(k.Radius) {
		return Hit{}, false
	}
	r := c.Radius + k.Radius
	if !Finite(r) {
		return Hit{}, false
	}
	h, ok := SweepCircleSegment(Circle{c.Center, r}, motion, Segment{k.A, k.B})
	if ok {
		h.Point = Axpy(h.Point, h.Normal, k.Radius)
	}
	return h, ok
}

// corner3 returns the corner of b that has Max on the axes whose bit is set in n.
func corner3(b AABB3, n int) mgl32.Vec3 {
	p := b.Min
	for i := range 3 {
		if n&(1<<i) != 0 {
			p[i] = b.Max[i]
		}
	}
	return p
}

// insideOpen reports whether p lies strictly inside [lo, hi] on the first n axes.
func insideOpen(p, lo, hi *mgl32.Vec3, n int) bool {
	for i := range n {
		if !(p[i] > lo[i] && p[i] < hi[i]) {
			return false
		}
	}
	return true
}

// nearestFace returns the projection of p (inside [lo, hi]) on the box's nearest face, using
// the first n axes, and that face's outward normal. Ties go to the lower axis, then to the
// Min face.
func nearestFace(p, lo, hi mgl32.Vec3, n int) (mgl32.Vec3, mgl32.Vec3) {
	best := float32(math.Inf(1))
	axis, sign := 0, float32(-1)
	for i := range n {
		if dl := p[i] - lo[i]; dl < best {
			best, axis, sign = dl, i, -1
		}
		if dh := hi[i] - p[i]; dh < best {
			best, axis, sign = dh, i, 1
		}
	}
	var nv mgl32.Vec3
	nv[axis] = sign
	if sign < 0 {
		p[axis] = lo[axis]
	} else {
		p[axis] = hi[axis]
	}
	return p, nv
}
