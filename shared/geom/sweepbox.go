package geom

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// SweepCircleAABB moves c by motion and reports when it first touches the solid rectangle b,
// as in Ericson 5.5.7. The centre's path is intersected with b expanded by the radius; the
// entry point is classified by which sides of b it lies outside of. In a side region that
// entry is the contact. In a corner region the contact is with the disc of radius c.Radius
// around the corner (a path leaving the corner region toward a side crosses that disc
// first), so a path that cuts the expanded rectangle's rounded-off corner without touching
// the disc does not hit.
//
// If c already overlaps b, the hit is at T = 0 with Point the closest point of b to the
// centre and Normal from it toward the centre; when the centre is inside b, Point is the
// centre's projection on the nearest side and Normal that side's outward normal. A circle of
// radius zero is a point against the open rectangle: it must enter the interior to hit. A
// rectangle with Min > Max on either axis, NaN or Inf input, or a negative radius give no hit.
func SweepCircleAABB(c Circle, motion mgl32.Vec2, b AABB) (Hit, bool) {
	if !Finite2(c.Center) || !validRadius(c.Radius) || !Finite2(motion) || !b.Valid() {
		return Hit{}, false
	}
	o, r := c.Center, c.Radius

	q := ClosestPointOnAABB(o, b)
	d := Sub(o, q)
	if d2 := Dot(d, d); d2 < float32(r*r) || d2 == 0 && insideOpen(o, b) {
		n, nl := Unit(d)
		if !(nl > 0) {
			q, n = nearestSide(o, b)
		}
		return checked(Hit{T: 0, Point: q, Normal: n})
	}

	// Ray against the rectangle expanded by r (open, so grazing its boundary is no hit).
	e := AABB{
		Min: mgl32.Vec2{b.Min[0] - r, b.Min[1] - r},
		Max: mgl32.Vec2{b.Max[0] + r, b.Max[1] + r},
	}
	t, axis, ok := slab(o, motion, e, 1, true)
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
			// The centre starts inside the expanded rectangle only through the rounding of
			// b.Max+r (or b.Min-r): the exact test above found it at least r from b, so it
			// touches q. As for any touching start, that is a hit only when moving inward;
			// the normal is the side's, from q to the centre, not the motion's.
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

// insideOpen reports whether p lies strictly inside b.
func insideOpen(p mgl32.Vec2, b AABB) bool {
	return p[0] > b.Min[0] && p[0] < b.Max[0] && p[1] > b.Min[1] && p[1] < b.Max[1]
}

// nearestSide returns the projection of p (inside b) on b's nearest side and that side's
// outward normal. Ties go to the lower axis, then to the Min side.
func nearestSide(p mgl32.Vec2, b AABB) (mgl32.Vec2, mgl32.Vec2) {
	best := float32(math.Inf(1))
	axis, sign := 0, float32(-1)
	for i := range 2 {
		if dl := p[i] - b.Min[i]; dl < best {
			best, axis, sign = dl, i, -1
		}
		if dh := b.Max[i] - p[i]; dh < best {
			best, axis, sign = dh, i, 1
		}
	}
	var n mgl32.Vec2
	n[axis] = sign
	if sign < 0 {
		p[axis] = b.Min[axis]
	} else {
		p[axis] = b.Max[axis]
	}
	return p, n
}
