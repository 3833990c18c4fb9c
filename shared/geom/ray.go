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
	t, axis, ok := slab(origin, dir, b, maxT, false)
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

func validMaxT(t float32) bool { return t >= 0 } // false for NaN; +Inf allowed

// faceSign is the sign of the normal of the face a ray with direction component d enters.
func faceSign(d float32) float32 {
	if d > 0 {
		return -1
	}
	return 1
}

// slab intersects o + t*d, t in [0, maxT], with the rectangle b (Ericson 5.3.3) and returns
// the entry parameter and the axis whose side is entered (-1 when o is already inside). With
// open set, the rectangle is open: a path that only touches its boundary, runs along a side
// or starts on the boundary moving out does not hit.
func slab(o, d mgl32.Vec2, b AABB, maxT float32, open bool) (float32, int, bool) {
	tEnter, tExit := float32(0), float32(math.Inf(1))
	axis := -1
	for i := range 2 {
		lo, hi := b.Min[i], b.Max[i]
		if d[i] == 0 {
			if open && !(o[i] > lo && o[i] < hi) || !(o[i] >= lo && o[i] <= hi) {
				return 0, -1, false
			}
			continue
		}
		// Division rather than a reciprocal: never NaN for finite operands and d != 0.
		t1 := (lo - o[i]) / d[i]
		t2 := (hi - o[i]) / d[i]
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
