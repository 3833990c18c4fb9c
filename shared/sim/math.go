package sim

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// Vector helpers. Every product that feeds a sum is rounded explicitly (float32(a*b) + c)
// so that no platform fuses it into a multiply-add (DESIGN.md §6); mathgl's Dot, Len and
// Normalize leave the compiler that freedom, so the simulation does not use them.

func dot2(a, b mgl32.Vec2) float32 { return float32(a[0]*b[0]) + float32(a[1]*b[1]) }

func sub2(a, b mgl32.Vec2) mgl32.Vec2 { return mgl32.Vec2{a[0] - b[0], a[1] - b[1]} }

func add2(a, b mgl32.Vec2) mgl32.Vec2 { return mgl32.Vec2{a[0] + b[0], a[1] + b[1]} }

func scale2(a mgl32.Vec2, s float32) mgl32.Vec2 {
	return mgl32.Vec2{float32(a[0] * s), float32(a[1] * s)}
}

// axpy2 returns p + d*t.
func axpy2(p, d mgl32.Vec2, t float32) mgl32.Vec2 {
	return mgl32.Vec2{p[0] + float32(d[0]*t), p[1] + float32(d[1]*t)}
}

// len2 returns |v|. The squares of float32 values are exact in float64, so the sum is
// rounded once and the result does not depend on fusion.
func len2(v mgl32.Vec2) float32 {
	x, y := float64(v[0]), float64(v[1])
	return float32(math.Sqrt(x*x + y*y))
}

func lenSq2(v mgl32.Vec2) float32 { return dot2(v, v) }

func dist2(a, b mgl32.Vec2) float32 { return len2(sub2(a, b)) }

// unit2 returns v / |v| and |v|, or the zero vector and 0 when v is zero.
func unit2(v mgl32.Vec2) (mgl32.Vec2, float32) {
	l := len2(v)
	if !(l > 0) || !finite(l) {
		return mgl32.Vec2{}, 0
	}
	return mgl32.Vec2{v[0] / l, v[1] / l}, l
}

func finite(x float32) bool { return x-x == 0 }

func finite2(v mgl32.Vec2) bool { return finite(v[0]) && finite(v[1]) }

// atan2 is a float32 arctangent that gives the same bits on every platform: the
// polynomial of Abramowitz & Stegun 4.4.49 on [0, 1] (error below 1e-7 rad before
// float32 rounding) with explicitly rounded products, instead of math.Atan2, whose
// float64 code may be fused differently on arm64.
func atan2(y, x float32) float32 {
	ax, ay := float32(math.Abs(float64(x))), float32(math.Abs(float64(y)))
	if ax == 0 && ay == 0 {
		return 0
	}
	mn, mx := min(ax, ay), max(ax, ay)
	a := mn / mx
	s := float32(a * a)
	// Horner's scheme, unrolled: a loop over the coefficients cost twice as much.
	r := float32(0.0028662257)
	r = float32(r*s) - 0.0161657367
	r = float32(r*s) + 0.0429096138
	r = float32(r*s) - 0.0752896400
	r = float32(r*s) + 0.1065626393
	r = float32(r*s) - 0.1420889944
	r = float32(r*s) + 0.1999355085
	r = float32(r*s) - 0.3333314528
	r = float32(r*s) + 1
	r = float32(r * a)
	if ay > ax {
		r = 1.57079637 - r
	}
	if x < 0 {
		r = 3.14159274 - r
	}
	if y < 0 {
		r = -r
	}
	return r
}

// yawTo returns the yaw (radians, counter-clockwise from +x) of direction d, or yaw when
// d is zero.
func yawTo(d mgl32.Vec2, yaw float32) float32 {
	if d[0] == 0 && d[1] == 0 {
		return yaw
	}
	return atan2(d[1], d[0])
}

// lo2 and hi2 return the componentwise minimum and maximum of a and b, for bounding
// boxes. The built-in min and max compile to branch-free code; comparisons with
// branches ran fewer instructions but were slower on crowds, whose motions point every
// way (mispredicted branches).
func lo2(a, b mgl32.Vec2) mgl32.Vec2 { return mgl32.Vec2{min(a[0], b[0]), min(a[1], b[1])} }

func hi2(a, b mgl32.Vec2) mgl32.Vec2 { return mgl32.Vec2{max(a[0], b[0]), max(a[1], b[1])} }

func abs32(x float32) float32 { return float32(math.Abs(float64(x))) }
