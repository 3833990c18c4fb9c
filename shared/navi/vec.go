package navi

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// float32 helpers that round every product (float32(a*b) + c), so no fused
// multiply-add changes a result between architectures (DESIGN.md §6).

func sub(a, b mgl32.Vec2) mgl32.Vec2 { return mgl32.Vec2{a[0] - b[0], a[1] - b[1]} }
func add(a, b mgl32.Vec2) mgl32.Vec2 { return mgl32.Vec2{a[0] + b[0], a[1] + b[1]} }
func scale(a mgl32.Vec2, s float32) mgl32.Vec2 {
	return mgl32.Vec2{float32(a[0] * s), float32(a[1] * s)}
}
func madd(p, d mgl32.Vec2, s float32) mgl32.Vec2 {
	return mgl32.Vec2{p[0] + float32(d[0]*s), p[1] + float32(d[1]*s)}
}
func dot(a, b mgl32.Vec2) float32  { return float32(a[0]*b[0]) + float32(a[1]*b[1]) }
func length(a mgl32.Vec2) float32  { return float32(math.Sqrt(float64(dot(a, a)))) }
func dist(a, b mgl32.Vec2) float32 { return length(sub(a, b)) }

// xy is a point in scalars: unlike mgl32.Vec2 (an array), the compiler
// keeps a small struct in registers.
type xy struct{ x, y float32 }

// dist2 is dist((ax, ay), (bx, by)) in scalars.
func dist2(ax, ay, bx, by float32) float32 {
	dx, dy := ax-bx, ay-by
	return float32(math.Sqrt(float64(float32(dx*dx) + float32(dy*dy))))
}

// normalize returns a/|a|, or zero for a zero vector.
func normalize(a mgl32.Vec2) mgl32.Vec2 {
	l := length(a)
	if !(l > 0) {
		return mgl32.Vec2{}
	}
	return mgl32.Vec2{a[0] / l, a[1] / l}
}

// closestOnSegment returns the point of segment ab closest to p.
func closestOnSegment(p, a, b mgl32.Vec2) mgl32.Vec2 {
	ab := sub(b, a)
	l2 := dot(ab, ab)
	if !(l2 > 0) {
		return a
	}
	t := dot(sub(p, a), ab) / l2
	if t <= 0 {
		return a
	}
	if t >= 1 {
		return b
	}
	return madd(a, ab, t)
}

func segDist2(p, a, b mgl32.Vec2) float32 {
	d := sub(p, closestOnSegment(p, a, b))
	return dot(d, d)
}

// segDist2xy is segDist2 in scalars.
func segDist2xy(px, py, ax, ay, bx, by float32) float32 {
	abx, aby := bx-ax, by-ay
	l2 := float32(abx*abx) + float32(aby*aby)
	cx, cy := ax, ay
	if l2 > 0 {
		t := (float32((px-ax)*abx) + float32((py-ay)*aby)) / l2
		if t <= 0 {
			// a
		} else if t >= 1 {
			cx, cy = bx, by
		} else {
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

func finite2(p mgl32.Vec2) bool { return finite32(p[0]) && finite32(p[1]) }
