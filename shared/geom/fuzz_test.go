package geom

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// The fuzz targets check, for any finite input, that a sweep returns no NaN or Inf, T in
// [0, 1] and a unit normal; and, for inputs of moderate size (|x| <= fuzzDomain), that it
// agrees with sub-stepping (sweepCase.check) within a tolerance scaled to the input.

const fuzzDomain = 1000

func allFinite(xs ...float32) bool {
	for _, x := range xs {
		if !Finite(x) {
			return false
		}
	}
	return true
}

// fuzzScale returns the largest magnitude among xs (at least 1), or 0 when one exceeds
// fuzzDomain.
func fuzzScale(xs ...float32) float64 {
	s := 1.0
	for _, x := range xs {
		a := math.Abs(float64(x))
		if a > fuzzDomain {
			return 0
		}
		s = math.Max(s, a)
	}
	return s
}

func checkOutputs(t *testing.T, ok bool, T float32, out ...float32) {
	t.Helper()
	if !ok {
		return
	}
	if !(T >= 0 && T <= 1) {
		t.Fatalf("T = %v outside [0, 1]", T)
	}
	for _, x := range out {
		if !Finite(x) {
			t.Fatalf("non-finite output %v in %v", x, out)
		}
	}
}

func checkUnit(t *testing.T, n ...float32) {
	t.Helper()
	var l float64
	for _, x := range n {
		l += float64(x) * float64(x)
	}
	if math.Abs(math.Sqrt(l)-1) > 1e-5 {
		t.Fatalf("normal %v is not a unit vector", n)
	}
}

const fuzzSubSteps = 200

func FuzzSweepCircleSegment(f *testing.F) {
	f.Add(float32(0), float32(0), float32(1), float32(10), float32(0), float32(5), float32(-3), float32(5), float32(3))
	f.Fuzz(func(t *testing.T, cx, cy, r, mx, my, ax, ay, bx, by float32) {
		c, m, s := Circle{mgl32.Vec2{cx, cy}, r}, mgl32.Vec2{mx, my}, Segment{mgl32.Vec2{ax, ay}, mgl32.Vec2{bx, by}}
		h, ok := SweepCircleSegment(c, m, s)
		if !allFinite(cx, cy, r, mx, my, ax, ay, bx, by) || r < 0 {
			if ok {
				t.Fatalf("invalid input gave a hit %+v", h)
			}
			return
		}
		checkOutputs(t, ok, h.T, h.Point[0], h.Point[1], h.Normal[0], h.Normal[1])
		if ok {
			checkUnit(t, h.Normal[0], h.Normal[1])
		}
		if scale := fuzzScale(cx, cy, r, mx, my, ax, ay, bx, by); scale > 0 {
			a64, b64 := f64(to3(s.A)), f64(to3(s.B))
			sc := sweepCase{o: f64(to3(c.Center)), d: f64(to3(m)), r: float64(r),
				dist: func(p vec) float64 { return refDistSegment(p, a64, b64) }}
			if err := sc.check(fuzzSubSteps, 1e-4*scale, ok, float64(h.T), f64(to3(h.Point)), f64(to3(h.Normal))); err != nil {
				t.Fatalf("SweepCircleSegment(%v, %v, %v) = %+v, %v: %v", c, m, s, h, ok, err)
			}
		}
	})
}

func FuzzSweepCircleCircle(f *testing.F) {
	f.Add(float32(0), float32(0), float32(1), float32(6), float32(0), float32(6), float32(0), float32(2))
	f.Fuzz(func(t *testing.T, cx, cy, r, mx, my, ox, oy, or float32) {
		c, m, o := Circle{mgl32.Vec2{cx, cy}, r}, mgl32.Vec2{mx, my}, Circle{mgl32.Vec2{ox, oy}, or}
		h, ok := SweepCircleCircle(c, m, o)
		if !allFinite(cx, cy, r, mx, my, ox, oy, or) || r < 0 || or < 0 {
			if ok {
				t.Fatalf("invalid input gave a hit %+v", h)
			}
			return
		}
		checkOutputs(t, ok, h.T, h.Point[0], h.Point[1], h.Normal[0], h.Normal[1])
		if ok {
			checkUnit(t, h.Normal[0], h.Normal[1])
		}
		if scale := fuzzScale(cx, cy, r, mx, my, ox, oy, or); scale > 0 {
			oc, orr := f64(to3(o.Center)), float64(or)
			sc := sweepCase{o: f64(to3(c.Center)), d: f64(to3(m)), r: float64(r),
				dist: func(p vec) float64 { return math.Max(0, vlen(vsub(p, oc))-orr) }}
			if err := sc.check(fuzzSubSteps, 1e-4*scale, ok, float64(h.T), f64(to3(h.Point)), f64(to3(h.Normal))); err != nil {
				t.Fatalf("SweepCircleCircle(%v, %v, %v) = %+v, %v: %v", c, m, o, h, ok, err)
			}
		}
	})
}

func FuzzSweepCircleAABB(f *testing.F) {
	f.Add(float32(4), float32(3), float32(1), float32(-4), float32(-4), float32(0), float32(0), float32(2), float32(1))
	f.Fuzz(func(t *testing.T, cx, cy, r, mx, my, lx, ly, hx, hy float32) {
		c, m, b := Circle{mgl32.Vec2{cx, cy}, r}, mgl32.Vec2{mx, my}, AABB{mgl32.Vec2{lx, ly}, mgl32.Vec2{hx, hy}}
		h, ok := SweepCircleAABB(c, m, b)
		if !allFinite(cx, cy, r, mx, my, lx, ly, hx, hy) || r < 0 || !b.Valid() {
			if ok {
				t.Fatalf("invalid input gave a hit %+v", h)
			}
			return
		}
		checkOutputs(t, ok, h.T, h.Point[0], h.Point[1], h.Normal[0], h.Normal[1])
		if ok {
			checkUnit(t, h.Normal[0], h.Normal[1])
		}
		if scale := fuzzScale(cx, cy, r, mx, my, lx, ly, hx, hy); scale > 0 {
			lo, hi := f64(to3(b.Min)), f64(to3(b.Max))
			sc := sweepCase{o: f64(to3(c.Center)), d: f64(to3(m)), r: float64(r),
				dist: func(p vec) float64 { return refDistBox(p, lo, hi) }}
			if err := sc.check(fuzzSubSteps, 1e-4*scale, ok, float64(h.T), f64(to3(h.Point)), f64(to3(h.Normal))); err != nil {
				t.Fatalf("SweepCircleAABB(%v, %v, %v) = %+v, %v: %v", c, m, b, h, ok, err)
			}
		}
	})
}

// FuzzPolygon decodes a polygon and a query point from little-endian float32s and checks that
// the polygon queries never panic and return consistent answers: a valid polygon's closest
// boundary point lies on the reported edge, and Contains agrees with itself under reversal
// of the winding when the point is not within 1e-3 of the boundary.
func FuzzPolygon(f *testing.F) {
	f.Add([]byte{})
	f.Add(polygonBytes(1, 1, 0, 0, 4, 0, 4, 2, 2, 2, 2, 4, 0, 4))
	f.Add(polygonBytes(3, 3, 0, 0, 4, 0, 4, 2, 2, 2, 2, 4, 0, 4))
	f.Add(polygonBytes(1, 1, 0, 0, 2, 2, 2, 0, 0, 2))
	f.Fuzz(func(t *testing.T, data []byte) {
		var xs []float32
		for len(data) >= 4 && len(xs) < 2*64+2 {
			xs = append(xs, math.Float32frombits(uint32(data[0])|uint32(data[1])<<8|uint32(data[2])<<16|uint32(data[3])<<24))
			data = data[4:]
		}
		if len(xs) < 2 {
			return
		}
		p := mgl32.Vec2{xs[0], xs[1]}
		var poly Polygon
		for i := 2; i+1 < len(xs); i += 2 {
			poly = append(poly, mgl32.Vec2{xs[i], xs[i+1]})
		}
		err := poly.Validate()
		inside := poly.Contains(p)
		q, edge := ClosestPointOnPolygon(p, poly)
		if len(poly) == 0 {
			if edge != -1 {
				t.Fatalf("empty polygon gave edge %d", edge)
			}
			return
		}
		if edge < 0 || edge >= len(poly) {
			t.Fatalf("edge %d out of range for %d vertices", edge, len(poly))
		}
		if err != nil || fuzzScale(xs...) == 0 {
			return
		}
		e, _ := ClosestPointOnSegment(q, Segment{poly[edge], poly[(edge+1)%len(poly)]})
		if d := vlen(vsub(f64(to3(e)), f64(to3(q)))); d > 1e-3 {
			t.Fatalf("closest point %v is %g off edge %d", q, d, edge)
		}
		rev := make(Polygon, len(poly))
		for i, v := range poly {
			rev[len(poly)-1-i] = v
		}
		if vlen(vsub(f64(to3(p)), f64(to3(q)))) > 1e-3 && rev.Contains(p) != inside {
			t.Fatalf("Contains(%v) = %v, but %v for the reversed polygon", p, inside, !inside)
		}
	})
}

func polygonBytes(xs ...float32) []byte {
	var b []byte
	for _, x := range xs {
		u := math.Float32bits(x)
		b = append(b, byte(u), byte(u>>8), byte(u>>16), byte(u>>24))
	}
	return b
}
