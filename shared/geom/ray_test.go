package geom

import (
	"math"
	"testing"
)

func TestRaycastAABB(t *testing.T) {
	b := AABB{v2(0, 0), v2(2, 1)}
	got, ok := RaycastAABB(v2(-2, 0.5), v2(4, 0), b, 1)
	checkHit2(t, "face", got, ok, Hit{0.5, v2(0, 0.5), v2(-1, 0)}, true)
	got, ok = RaycastAABB(v2(3, 3), v2(-1, -1), b, 10)
	checkHit2(t, "corner", got, ok, Hit{2, v2(1, 1), v2(0, 1)}, true)
	got, ok = RaycastAABB(v2(3, 3), v2(1, -1), b, 10)
	checkHit2(t, "miss", got, ok, Hit{}, false)
	// A zero-thickness box is still hit by a ray (closed box).
	got, ok = RaycastAABB(v2(1, 2), v2(0, -1), AABB{v2(0, 0), v2(2, 0)}, 10)
	checkHit2(t, "flat", got, ok, Hit{2, v2(1, 0), v2(0, 1)}, true)
}

func TestRaycastCircle(t *testing.T) {
	got, ok := RaycastCircle(v2(0, 0), v2(1, 0), Circle{v2(5, 0), 1}, float32(math.Inf(1)))
	checkHit2(t, "circle", got, ok, Hit{4, v2(4, 0), v2(-1, 0)}, true)
	got, ok = RaycastCircle(v2(0, 0), v2(1, 0), Circle{v2(5, 0), 1}, 3.9)
	checkHit2(t, "circle short", got, ok, Hit{}, false)
	got, ok = RaycastCircle(v2(5, 0.5), v2(1, 0), Circle{v2(5, 0), 1}, 1)
	checkHit2(t, "circle inside", got, ok, Hit{0, v2(5, 0.5), v2(-1, 0)}, true)
}
