package geom

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

var (
	inf = float32(math.Inf(1))
	nan = float32(math.NaN())
)

// same reports whether a and b are the same float32, NaN equal to NaN.
func same(a, b float32) bool { return a == b || a != a && b != b }

func TestLen(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		v    mgl32.Vec2
		want float32
	}{
		{"zero", mgl32.Vec2{}, 0},
		{"3-4-5", mgl32.Vec2{3, -4}, 5},
		// A float32 sum of squares overflows here, and underflows below: the squares are taken
		// in float64, where they are exact.
		{"square overflows float32", mgl32.Vec2{3e19, 4e19}, 5e19},
		{"square underflows float32", mgl32.Vec2{3e-30, 4e-30}, 5e-30},
		{"beyond float32", mgl32.Vec2{math.MaxFloat32, math.MaxFloat32}, inf},
		{"inf", mgl32.Vec2{-inf, 1}, inf},
		{"nan", mgl32.Vec2{nan, 1}, nan},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Len(tc.v); !same(got, tc.want) {
				t.Errorf("Len(%v) = %g, want %g", tc.v, got, tc.want)
			}
			if got := Hypot(tc.v[0], tc.v[1]); !same(got, tc.want) {
				t.Errorf("Hypot(%v) = %g, want %g", tc.v, got, tc.want)
			}
			if got := Dist(tc.v, mgl32.Vec2{}); !same(got, tc.want) {
				t.Errorf("Dist(%v, 0) = %g, want %g", tc.v, got, tc.want)
			}
		})
	}
}

func TestUnit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		v     mgl32.Vec2
		wantU mgl32.Vec2
		wantL float32
	}{
		{"zero", mgl32.Vec2{}, mgl32.Vec2{}, 0},
		{"3-4-5", mgl32.Vec2{3, -4}, mgl32.Vec2{0.6, -0.8}, 5},
		{"axis", mgl32.Vec2{0, 1e-40}, mgl32.Vec2{0, 1}, 1e-40},
		// |v| exceeds float32 but the direction is exact: divided in float64.
		{"beyond float32", mgl32.Vec2{-3e38, 0}, mgl32.Vec2{-1, 0}, 3e38},
		{"length overflows", mgl32.Vec2{3e38, 3e38}, mgl32.Vec2{float32(math.Sqrt2 / 2), float32(math.Sqrt2 / 2)}, inf},
		{"inf", mgl32.Vec2{inf, 0}, mgl32.Vec2{}, 0},
		{"nan", mgl32.Vec2{1, nan}, mgl32.Vec2{}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			u, l := Unit(tc.v)
			if u != tc.wantU || l != tc.wantL {
				t.Errorf("Unit(%v) = %v, %g; want %v, %g", tc.v, u, l, tc.wantU, tc.wantL)
			}
		})
	}
}

func TestFinite(t *testing.T) {
	t.Parallel()
	tests := []struct {
		x    float32
		want bool
	}{
		{0, true}, {-1.5, true}, {math.MaxFloat32, true}, {-math.MaxFloat32, true},
		{math.SmallestNonzeroFloat32, true}, {inf, false}, {-inf, false}, {nan, false},
	}
	for _, tc := range tests {
		if got := Finite(tc.x); got != tc.want {
			t.Errorf("Finite(%g) = %v, want %v", tc.x, got, tc.want)
		}
		v2, v3 := mgl32.Vec2{1, tc.x}, mgl32.Vec3{tc.x, 1, 1}
		if got := Finite2(v2); got != tc.want {
			t.Errorf("Finite2(%v) = %v, want %v", v2, got, tc.want)
		}
		if got := Finite3(v3); got != tc.want {
			t.Errorf("Finite3(%v) = %v, want %v", v3, got, tc.want)
		}
	}
}

// TestProductsRounded checks that each product is rounded before it is summed: the sums
// below cancel exactly when it is, but leave the rounding error of one product where the
// compiler fuses a multiply-add (arm64 fuses register operands freely; amd64 v3 only
// some), so a missing conversion fails there. The factors' products are inexact in float32.
func TestProductsRounded(t *testing.T) {
	t.Parallel()
	xs := []float32{1.1, 0.7, 3.3333333, -2.7182817, 1e-3, 12345.679}
	for _, x := range xs {
		for _, y := range xs {
			v, w := mgl32.Vec2{x, y}, mgl32.Vec2{y, -x}
			if got := Dot(v, w); got != 0 {
				t.Errorf("Dot(%v, %v) = %g, want 0", v, w, got)
			}
			if got := Cross(v, v); got != 0 {
				t.Errorf("Cross(%v, %v) = %g, want 0", v, v, got)
			}
			p := mgl32.Vec2{-float32(x * y), -float32(y * y)}
			if got := Axpy(p, v, y); got != (mgl32.Vec2{}) {
				t.Errorf("Axpy(%v, %v, %g) = %v, want 0", p, v, y, got)
			}
			if got := Add(Scale(v, y), Scale(v, -y)); got != (mgl32.Vec2{}) {
				t.Errorf("Scale(%v, ±%g) sum = %v, want 0", v, y, got)
			}
		}
	}
}
