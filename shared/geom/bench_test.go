package geom

import (
	"math"
	"strconv"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

var (
	sinkHit Hit
	sinkOK  bool
)

func BenchmarkSweepCircleSegment(b *testing.B) {
	wall := Segment{v2(5, -3), v2(5, 3)}
	cases := []struct {
		name   string
		c      Circle
		motion mgl32.Vec2
	}{
		{"hit=side", Circle{v2(0, 0), 1}, v2(10, 0)},
		{"hit=end", Circle{v2(0, 8), 1}, v2(10, -10)},
		{"miss=past-end", Circle{v2(0, 9.6), 1}, v2(10, -10)},
		{"miss=away", Circle{v2(0, 0), 1}, v2(-10, 0)},
		{"overlap", Circle{v2(4.5, 0), 1}, v2(1, 0)},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkHit, sinkOK = SweepCircleSegment(tc.c, tc.motion, wall)
			}
		})
	}
}

func BenchmarkSweepCircleCircle(b *testing.B) {
	other := Circle{v2(6, 0), 2}
	cases := []struct {
		name   string
		c      Circle
		motion mgl32.Vec2
	}{
		{"hit", Circle{v2(0, 2), 1}, v2(12, 0)},
		{"miss", Circle{v2(0, 3.5), 1}, v2(12, 0)},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkHit, sinkOK = SweepCircleCircle(tc.c, tc.motion, other)
			}
		})
	}
}

func BenchmarkSweepCirclePoint(b *testing.B) {
	b.ReportAllocs()
	c, m, p := Circle{v2(0, 0), 1}, v2(6, 8), v2(3, 4)
	for b.Loop() {
		sinkHit, sinkOK = SweepCirclePoint(c, m, p)
	}
}

func BenchmarkSweepCircleAABB(b *testing.B) {
	box := AABB{v2(0, 0), v2(2, 1)}
	cases := []struct {
		name   string
		c      Circle
		motion mgl32.Vec2
	}{
		{"hit=face", Circle{v2(-3, 0.5), 1}, v2(4, 0)},
		{"hit=corner", Circle{v2(4, 3), 1}, v2(-4, -4)},
		{"miss=corner", Circle{v2(0.8, 3.8), 1}, v2(4, -4)},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkHit, sinkOK = SweepCircleAABB(tc.c, tc.motion, box)
			}
		})
	}
}

func BenchmarkClosestPointOnPolygon(b *testing.B) {
	for _, n := range []int{8, 64} {
		poly := make(Polygon, n)
		for i := range poly { // a regular n-gon of radius 1 (test code may use trigonometry)
			a := 2 * math.Pi * float64(i) / float64(n)
			poly[i] = v2(float32(math.Cos(a)), float32(math.Sin(a)))
		}
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			p := v2(0.3, 2)
			for b.Loop() {
				sinkHit.Point, _ = ClosestPointOnPolygon(p, poly)
			}
		})
	}
}
