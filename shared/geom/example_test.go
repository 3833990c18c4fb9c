package geom_test

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/geom"
)

func ExampleSweepCircleSegment() {
	// A disc of radius 1 moves 10 units right toward a vertical wall at x = 5.
	disc := geom.Circle{Center: mgl32.Vec2{0, 0}, Radius: 1}
	wall := geom.Segment{A: mgl32.Vec2{5, -3}, B: mgl32.Vec2{5, 3}}
	hit, ok := geom.SweepCircleSegment(disc, mgl32.Vec2{10, 0}, wall)
	fmt.Println(ok, hit.T, hit.Point, hit.Normal)
	// Output: true 0.4 [5 0] [-1 0]
}

func ExampleSweepCircleCircle() {
	a := geom.Circle{Center: mgl32.Vec2{0, 0}, Radius: 1}
	b := geom.Circle{Center: mgl32.Vec2{6, 0}, Radius: 2}
	hit, ok := geom.SweepCircleCircle(a, mgl32.Vec2{6, 0}, b)
	fmt.Println(ok, hit.T, hit.Point, hit.Normal)
	// Output: true 0.5 [4 0] [-1 0]
}

func ExampleClosestPointOnSegment() {
	q, t := geom.ClosestPointOnSegment(mgl32.Vec2{1, 5}, geom.Segment{A: mgl32.Vec2{0, 0}, B: mgl32.Vec2{4, 0}})
	fmt.Println(q, t)
	// Output: [1 0] 0.25
}

func ExamplePolygon_Contains() {
	l := geom.Polygon{{0, 0}, {4, 0}, {4, 2}, {2, 2}, {2, 4}, {0, 4}}
	fmt.Println(l.Validate(), l.Area(), l.Contains(mgl32.Vec2{1, 3}), l.Contains(mgl32.Vec2{3, 3}))
	q, edge := geom.ClosestPointOnPolygon(mgl32.Vec2{3, 3}, l)
	fmt.Println(q, edge)
	// Output:
	// <nil> 12 true false
	// [3 2] 2
}
