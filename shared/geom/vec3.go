package geom

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// 3D counterparts of the helpers in vec.go, with the same rounding rules.

func dot3(a, b mgl32.Vec3) float32 {
	return float32(a[0]*b[0]) + float32(a[1]*b[1]) + float32(a[2]*b[2])
}

func cross3(a, b mgl32.Vec3) mgl32.Vec3 {
	return mgl32.Vec3{
		float32(a[1]*b[2]) - float32(a[2]*b[1]),
		float32(a[2]*b[0]) - float32(a[0]*b[2]),
		float32(a[0]*b[1]) - float32(a[1]*b[0]),
	}
}

func sub3(a, b mgl32.Vec3) mgl32.Vec3 { return mgl32.Vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }

// axpy3 returns p + d*t.
func axpy3(p, d mgl32.Vec3, t float32) mgl32.Vec3 {
	return mgl32.Vec3{p[0] + float32(d[0]*t), p[1] + float32(d[1]*t), p[2] + float32(d[2]*t)}
}

func clamp01(x float32) float32 {
	if x < 0 {
		return 0
	}
	if x > 1 {
		return 1
	}
	return x
}

func clamp(x, lo, hi float32) float32 {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

// unit3 is Unit in 3D, by the same rule, without the length.
func unit3(v mgl32.Vec3) (mgl32.Vec3, bool) {
	x, y, z := float64(v[0]), float64(v[1]), float64(v[2])
	l := math.Sqrt(x*x + y*y + z*z)
	if !(l > 0) || math.IsInf(l, 0) {
		return mgl32.Vec3{}, false
	}
	return mgl32.Vec3{float32(x / l), float32(y / l), float32(z / l)}, true
}

// awayFrom3 returns the unit vector opposing motion, or +X when motion is zero.
func awayFrom3(motion mgl32.Vec3) mgl32.Vec3 {
	if n, ok := unit3(mgl32.Vec3{-motion[0], -motion[1], -motion[2]}); ok {
		return n
	}
	return mgl32.Vec3{1, 0, 0}
}

func to3(v mgl32.Vec2) mgl32.Vec3 { return mgl32.Vec3{v[0], v[1], 0} }

func to2(v mgl32.Vec3) mgl32.Vec2 { return mgl32.Vec2{v[0], v[1]} }

// checked3 is checked for Hit3.
func checked3(h Hit3) (Hit3, bool) {
	if Finite(h.T) && Finite3(h.Point) && Finite3(h.Normal) {
		return h, true
	}
	return Hit3{}, false
}
