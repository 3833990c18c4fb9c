package geom

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// The float32 kernel: the vector operations every package of shared/ uses, one name each.
//
// Rounding rule. The Go specification lets a compiler fuse x*y + z into one multiply-add
// with a single rounding, and it does where the target has the instruction (GOAMD64=v3,
// arm64) but not where it lacks it (plain amd64, wasm); an explicit conversion forbids the
// fusion. So, to give the same bits natively, under GOAMD64=v3 and under wasm:
//
//   - every float32 product that feeds a sum is rounded explicitly, float32(a*b) + c;
//   - a length is computed from the float64 squares of the float32 components, which are
//     exact (24-bit significands, 48-bit products), so fused or not the sum is rounded once;
//     the square root is taken in float64 and rounded once to float32;
//   - a unit vector divides the float64 components by that float64 length before rounding,
//     so it exists (and is unit) for every finite non-zero vector, even when |v| itself
//     exceeds float32's range.
//
// mathgl's Dot, Len, Normalize and chained Add(Mul()) leave the compiler the freedom to
// fuse, so shared/ does not use them. These functions are small enough to inline.

// Sub returns a - b.
func Sub(a, b mgl32.Vec2) mgl32.Vec2 { return mgl32.Vec2{a[0] - b[0], a[1] - b[1]} }

// Add returns a + b.
func Add(a, b mgl32.Vec2) mgl32.Vec2 { return mgl32.Vec2{a[0] + b[0], a[1] + b[1]} }

// Scale returns a*s.
func Scale(a mgl32.Vec2, s float32) mgl32.Vec2 {
	return mgl32.Vec2{float32(a[0] * s), float32(a[1] * s)}
}

// Axpy returns p + d*t, each product rounded before the sum.
func Axpy(p, d mgl32.Vec2, t float32) mgl32.Vec2 {
	return mgl32.Vec2{p[0] + float32(d[0]*t), p[1] + float32(d[1]*t)}
}

// Dot returns a·b, each product rounded before the sum.
func Dot(a, b mgl32.Vec2) float32 { return float32(a[0]*b[0]) + float32(a[1]*b[1]) }

// Cross returns the z component of a×b, each product rounded before the difference.
func Cross(a, b mgl32.Vec2) float32 { return float32(a[0]*b[1]) - float32(a[1]*b[0]) }

// LenSq returns |v|² in float32 (Dot(v, v)); it overflows to +Inf beyond about 1.8e19.
func LenSq(v mgl32.Vec2) float32 { return Dot(v, v) }

// Hypot returns |(x, y)| by the length rule above.
func Hypot(x, y float32) float32 {
	a, b := float64(x), float64(y)
	return float32(math.Sqrt(a*a + b*b))
}

// Len returns |v| by the length rule above.
func Len(v mgl32.Vec2) float32 { return Hypot(v[0], v[1]) }

// Dist returns |a - b| (the difference rounded to float32 first).
func Dist(a, b mgl32.Vec2) float32 { return Hypot(a[0]-b[0], a[1]-b[1]) }

// Unit returns v scaled to unit length and |v| rounded to float32, or the zero vector and 0
// when v is zero or not finite; so l > 0 says u is valid. l is +Inf when |v| exceeds
// float32's range, u is valid then too.
func Unit(v mgl32.Vec2) (u mgl32.Vec2, l float32) {
	x, y := float64(v[0]), float64(v[1])
	l64 := math.Sqrt(x*x + y*y)
	if !(l64 > 0) || math.IsInf(l64, 0) {
		return mgl32.Vec2{}, 0
	}
	return mgl32.Vec2{float32(x / l64), float32(y / l64)}, float32(l64)
}

// Finite reports whether x is neither NaN nor ±Inf: x - x is 0 for every finite x and NaN
// otherwise.
func Finite(x float32) bool { return x-x == 0 }

// Finite2 reports whether both components of v are finite.
func Finite2(v mgl32.Vec2) bool { return Finite(v[0]) && Finite(v[1]) }

// Finite3 reports whether all components of v are finite.
func Finite3(v mgl32.Vec3) bool { return Finite(v[0]) && Finite(v[1]) && Finite(v[2]) }

func sqrt32(x float32) float32 { return float32(math.Sqrt(float64(x))) }

func clamp01(x float32) float32 { return clamp(x, 0, 1) }

func clamp(x, lo, hi float32) float32 {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

func validRadius(r float32) bool { return r >= 0 && Finite(r) }

// awayFrom2 returns the unit vector opposing motion, or +X when motion is zero.
func awayFrom2(motion mgl32.Vec2) mgl32.Vec2 {
	if n, l := Unit(mgl32.Vec2{-motion[0], -motion[1]}); l > 0 {
		return n
	}
	return mgl32.Vec2{1, 0}
}

// checked returns h and true when all of h is finite, and no hit otherwise. Only inputs so
// large that intermediate products overflow float32 can fail it; the guard keeps NaN and Inf
// out of callers' state.
func checked(h Hit) (Hit, bool) {
	if Finite(h.T) && Finite2(h.Point) && Finite2(h.Normal) {
		return h, true
	}
	return Hit{}, false
}
