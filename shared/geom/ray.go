package geom

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// RaycastAABB intersects a ray with the solid rectangle b by the slab method (Ericson 5.3.3).
// A ray that only touches b's boundary hits it.
func RaycastAABB(origin, dir mgl32.Vec2, b AABB, maxT float32) (Hit, bool) {
	if !Finite2(origin) || !Finite2(dir) || !b.Valid() || !validMaxT(maxT) {
		return Hit{}, false
	}
	o, d := to3(origin), to3(dir)
	lo, hi := to3(b.Min), to3(b.Max)
	t, axis, ok := slab(&o, &d, &lo, &hi, 2, maxT, false)
	if !ok {
		return Hit{}, false
	}
	h := Hit{T: t, Point: Axpy(origin, dir, t)}
	if axis < 0 {
		h.Normal = awayFrom2(dir)
	} else {
		h.Normal[axis] = faceSign(dir[axis])
	}
	return checked(h)
}

// RaycastAABB3 is RaycastAABB for a solid box.
func RaycastAABB3(origin, dir mgl32.Vec3, b AABB3, maxT float32) (Hit3, bool) {
	if !Finite3(origin) || !Finite3(dir) || !b.Valid() || !validMaxT(maxT) {
		return Hit3{}, false
	}
	t, axis, ok := slab(&origin, &dir, &b.Min, &b.Max, 3, maxT, false)
	if !ok {
		return Hit3{}, false
	}
	h := Hit3{T: t, Point: axpy3(origin, dir, t)}
	if axis < 0 {
		h.Normal = awayFrom3(dir)
	} else {
		h.Normal[axis] = faceSign(dir[axis])
	}
	return checked3(h)
}

// RaycastCircle intersects a ray with the solid disc c.
func RaycastCircle(origin, dir mgl32.Vec2, c Circle, maxT float32) (Hit, bool) {
	if !Finite2(origin) || !Finite2(dir) || !Finite2(c.Center) || !validRadius(c.Radius) || !validMaxT(maxT) {
		return Hit{}, false
	}
	t, ok := sweepPoint2(origin, dir, c.Center, c.Radius, maxT)
	if !ok {
		return Hit{}, false
	}
	p := Axpy(origin, dir, t)
	n, nl := Unit(Sub(p, c.Center))
	if !(nl > 0) || t == 0 && Dot(Sub(origin, c.Center), Sub(origin, c.Center)) < float32(c.Radius*c.Radius) {
		n = awayFrom2(dir)
	}
	return checked(Hit{T: t, Point: p, Normal: n})
}

// RaycastSphere intersects a ray with the solid ball s.
func RaycastSphere(origin, dir mgl32.Vec3, s Sphere, maxT float32) (Hit3, bool) {
	if !Finite3(origin) || !Finite3(dir) || !Finite3(s.Center) || !validRadius(s.Radius) || !validMaxT(maxT) {
		return Hit3{}, false
	}
	t, ok := sweepPoint3(origin, dir, s.Center, s.Radius, maxT)
	if !ok {
		return Hit3{}, false
	}
	p := axpy3(origin, dir, t)
	n, ok := unit3(sub3(p, s.Center))
	if !ok || t == 0 && dot3(sub3(origin, s.Center), sub3(origin, s.Center)) < float32(s.Radius*s.Radius) {
		n = awayFrom3(dir)
	}
	return checked3(Hit3{T: t, Point: p, Normal: n})
}

// RaycastCapsule3 intersects a ray with the solid capsule c: its cylinder and its two end
// balls, taking the earliest.
func RaycastCapsule3(origin, dir mgl32.Vec3, c Capsule3, maxT float32) (Hit3, bool) {
	if !Finite3(origin) || !Finite3(dir) || !Finite3(c.A) || !Finite3(c.B) || !validRadius(c.Radius) || !validMaxT(maxT) {
		return Hit3{}, false
	}
	t, ok := sweepCapsule3(origin, dir, c.A, c.B, c.Radius, maxT)
	if !ok {
		return Hit3{}, false
	}
	p := axpy3(origin, dir, t)
	q, _ := ClosestPointOnSegment3(p, Segment3{c.A, c.B})
	n, ok := unit3(sub3(p, q))
	if !ok || t == 0 && dot3(sub3(origin, q), sub3(origin, q)) < float32(c.Radius*c.Radius) {
		n = awayFrom3(dir)
	}
	return checked3(Hit3{T: t, Point: p, Normal: n})
}

func validMaxT(t float32) bool { return t >= 0 } // false for NaN; +Inf allowed

// faceSign is the sign of the normal of the face a ray with direction component d enters.
func faceSign(d float32) float32 {
	if d > 0 {
		return -1
	}
	return 1
}

// slab intersects o + t*d, t in [0, maxT], with the box [lo, hi] on the first n axes (Ericson
// 5.3.3) and returns the entry parameter and the axis whose face is entered (-1 when o is
// already inside). With open set, the box is open: a path that only touches its boundary,
// runs along a face or starts on the boundary moving out does not hit.
func slab(o, d, lo, hi *mgl32.Vec3, n int, maxT float32, open bool) (float32, int, bool) {
	tEnter, tExit := float32(0), float32(math.Inf(1))
	axis := -1
	for i := range n {
		if d[i] == 0 {
			if open && !(o[i] > lo[i] && o[i] < hi[i]) || !(o[i] >= lo[i] && o[i] <= hi[i]) {
				return 0, -1, false
			}
			continue
		}
		// Division rather than a reciprocal: never NaN for finite operands and d != 0.
		t1 := (lo[i] - o[i]) / d[i]
		t2 := (hi[i] - o[i]) / d[i]
		if t1 > t2 {
			t1, t2 = t2, t1
		}
		if t1 >= tEnter {
			tEnter, axis = t1, i
		}
		if t2 < tExit {
			tExit = t2
		}
	}
	if open && !(tEnter < tExit) || !(tEnter <= tExit) || tEnter > maxT {
		return 0, -1, false
	}
	return tEnter, axis, true
}

// sweepPoint3 intersects o + t*d, t in [0, maxT], with the ball of radius r around p, like
// sweepPoint2.
func sweepPoint3(o, d, p mgl32.Vec3, r, maxT float32) (float32, bool) {
	m := sub3(o, p)
	rr := float32(r * r)
	c := dot3(m, m) - rr
	if c < 0 {
		return 0, true
	}
	b := dot3(m, d)
	if b >= 0 {
		return 0, false
	}
	if c == 0 {
		return 0, true
	}
	cr := cross3(m, d)
	disc := float32(dot3(d, d)*rr) - dot3(cr, cr)
	if disc < 0 {
		return 0, false
	}
	t := c / (sqrt32(disc) - b)
	if !(t <= maxT) {
		return 0, false
	}
	return t, true
}

// sweepCapsule3 returns the first t in [0, maxT] at which o + t*d is inside the capsule of
// radius r around the segment a-b: the earliest of its cylinder's side and its two end balls.
// As in sweepPoint2, touching counts only when moving inward.
func sweepCapsule3(o, d, a, b mgl32.Vec3, r, maxT float32) (float32, bool) {
	if t, ok := sweepCylinder3(o, d, a, b, r, maxT); ok {
		// The capsule is convex: an entry through the side is the first contact.
		return t, true
	}
	best := float32(math.Inf(1))
	for _, p := range [2]mgl32.Vec3{a, b} {
		if t, ok := sweepPoint3(o, d, p, r, maxT); ok && t < best {
			best = t
		}
	}
	if best > maxT {
		return 0, false
	}
	return best, true
}

// sweepCylinder3 returns the first t in [0, maxT] at which o + t*d enters the side of the
// cylinder of radius r around a-b (between the planes through a and b perpendicular to it),
// or 0 if o is inside that cylinder. Entries through the end discs are left to the caller's
// end balls, which contain them.
func sweepCylinder3(o, d, a, b mgl32.Vec3, r, maxT float32) (float32, bool) {
	ab := sub3(b, a)
	l2 := dot3(ab, ab)
	if !(l2 > 0) {
		return 0, false
	}
	// Work with the components of o-a and d perpendicular to the axis.
	m := sub3(o, a)
	md, nd := dot3(m, ab), dot3(d, ab)
	mp := axpy3(m, ab, -md/l2)
	dp := axpy3(d, ab, -nd/l2)
	rr := float32(r * r)
	c := dot3(mp, mp) - rr
	if c < 0 { // inside the infinite cylinder: inside the capsule if between the ends
		return 0, md >= 0 && md <= l2
	}
	bb := dot3(mp, dp)
	if bb >= 0 {
		return 0, false
	}
	t := float32(0)
	if c > 0 {
		cr := cross3(mp, dp)
		disc := float32(dot3(dp, dp)*rr) - dot3(cr, cr)
		if disc < 0 {
			return 0, false
		}
		t = c / (sqrt32(disc) - bb)
	}
	if !(t <= maxT) {
		return 0, false
	}
	if u := md + float32(t*nd); u >= 0 && u <= l2 {
		return t, true
	}
	return 0, false
}
