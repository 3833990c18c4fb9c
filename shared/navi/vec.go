package navi

import (
	"github.com/go-gl/mathgl/mgl32"

	"github.com/twinframe/twinframe/shared/geom"
)

// Vector arithmetic comes from geom's float32 kernel (geom.Dot, geom.Len, ...), whose
// rounding rule keeps results the same natively, under GOAMD64=v3 and under wasm. The
// helpers here are navi's own, written to that rule: every product is rounded before it
// is summed.

// xy is a point in scalars: unlike mgl32.Vec2 (an array), the compiler
// keeps a small struct in registers.
type xy struct{ x, y float32 }

// segDist2 is the squared distance from p to segment ab.
func segDist2(p, a, b mgl32.Vec2) float32 {
	c, _ := geom.ClosestPointOnSegment(p, geom.Segment{A: a, B: b})
	d := geom.Sub(p, c)
	return geom.Dot(d, d)
}

// segDist2xy is segDist2 in scalars, with geom.ClosestPointOnSegment's arithmetic so the
// two agree bit for bit.
func segDist2xy(px, py, ax, ay, bx, by float32) float32 {
	abx, aby := bx-ax, by-ay
	l2 := float32(abx*abx) + float32(aby*aby)
	cx, cy := ax, ay
	if l2 > 0 {
		t := float32((px-ax)*abx) + float32((py-ay)*aby)
		if t <= 0 {
			// a
		} else if t >= l2 {
			cx, cy = bx, by
		} else {
			t /= l2
			cx, cy = ax+float32(abx*t), ay+float32(aby*t)
		}
	}
	dx, dy := px-cx, py-cy
	return float32(dx*dx) + float32(dy*dy)
}

// segSegDist2 is the squared distance between segments pq and ab.
func segSegDist2(p, q, a, b mgl32.Vec2) float32 {
	if segmentsIntersect(v64(p), v64(q), v64(a), v64(b)) {
		return 0
	}
	return min(segDist2(p, a, b), segDist2(q, a, b), segDist2(a, p, q), segDist2(b, p, q))
}
