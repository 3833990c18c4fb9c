package sim

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// Vector arithmetic comes from geom's float32 kernel (geom.Dot, geom.Len, geom.Unit, ...),
// whose rounding rule keeps results the same natively, under GOAMD64=v3 and under wasm:
// every product that feeds a sum is rounded explicitly. The helpers here are the
// simulation's own and follow the same rule.

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
// branches run fewer instructions but are slower on crowds, whose motions point every
// way (mispredicted branches).
func lo2(a, b mgl32.Vec2) mgl32.Vec2 { return mgl32.Vec2{min(a[0], b[0]), min(a[1], b[1])} }

func hi2(a, b mgl32.Vec2) mgl32.Vec2 { return mgl32.Vec2{max(a[0], b[0]), max(a[1], b[1])} }

func abs32(x float32) float32 { return float32(math.Abs(float64(x))) }
