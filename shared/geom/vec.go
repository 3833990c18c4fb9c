package geom

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// Internal vector helpers. Each product that feeds a sum is rounded explicitly so the
// compiler may not fuse it into a multiply-add (DESIGN.md §6); mathgl's Dot and chained
// Add(Mul()) would give it that freedom after inlining.

func dot2(a, b mgl32.Vec2) float32 { return float32(a[0]*b[0]) + float32(a[1]*b[1]) }

func cross2(a, b mgl32.Vec2) float32 { return float32(a[0]*b[1]) - float32(a[1]*b[0]) }

func sub2(a, b mgl32.Vec2) mgl32.Vec2 { return mgl32.Vec2{a[0] - b[0], a[1] - b[1]} }

// axpy2 returns p + d*t.
func axpy2(p, d mgl32.Vec2, t float32) mgl32.Vec2 {
	return mgl32.Vec2{p[0] + float32(d[0]*t), p[1] + float32(d[1]*t)}
}

func sqrt32(x float32) float32 { return float32(math.Sqrt(float64(x))) }

// finite reports whether x is neither NaN nor ±Inf.
func finite(x float32) bool { return x-x == 0 }

func finite2(v mgl32.Vec2) bool { return finite(v[0]) && finite(v[1]) }

func validRadius(r float32) bool { return r >= 0 && finite(r) }

// Unit returns v scaled to unit length and true, or the zero vector and false when v is zero
// (or its length underflows). The length is computed in float64, where the squares of float32
// values are exact, so the result cannot overflow and does not depend on fusion: callers that
// must reproduce geom's normals bit for bit (the simulation's own sweeps) use it too.
func Unit(v mgl32.Vec2) (mgl32.Vec2, bool) {
	x, y := float64(v[0]), float64(v[1])
	l := math.Sqrt(x*x + y*y)
	if !(l > 0) || math.IsInf(l, 0) {
		return mgl32.Vec2{}, false
	}
	return mgl32.Vec2{float32(x / l), float32(y / l)}, true
}

// awayFrom2 returns the unit vector opposing motion, or +X when motion is zero.
func awayFrom2(motion mgl32.Vec2) mgl32.Vec2 {
	if n, ok := Unit(mgl32.Vec2{-motion[0], -motion[1]}); ok {
		return n
	}
	return mgl32.Vec2{1, 0}
}

// checked returns h and true when all of h is finite, and no hit otherwise. Only inputs so
// large that intermediate products overflow float32 can fail it; the guard keeps NaN and Inf
// out of callers' state.
func checked(h Hit) (Hit, bool) {
	if finite(h.T) && finite2(h.Point) && finite2(h.Normal) {
		return h, true
	}
	return Hit{}, false
}
