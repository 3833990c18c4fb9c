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

func ExampleSweepSphereAABB() {
	box := geom.AABB3{Min: mgl32.Vec3{0, 0, 0}, Max: mgl32.Vec3{1, 1, 1}}

	// This path crosses the corner of the box expanded by the radius, but never comes within
	// 1 of the box itself: no hit.
	_, ok := geom.SweepSphereAABB(geom.Sphere{Center: mgl32.Vec3{-0.3, 3.7, 1.7}, Radius: 1}, mgl32.Vec3{4, -4, 0}, box)
	fmt.Println("corner pass:", ok)

	// Head-on at the vertex (1,1,1): contact when the centre is 1 from it, at T = 1 - 1/(2√3).
	hit, ok := geom.SweepSphereAABB(geom.Sphere{Center: mgl32.Vec3{3, 3, 3}, Radius: 1}, mgl32.Vec3{-2, -2, -2}, box)
	fmt.Printf("vertex: %v T=%.4f point=%v normal=(%.4f %.4f %.4f)\n", ok, hit.T, hit.Point, hit.Normal[0], hit.Normal[1], hit.Normal[2])
	// Output:
	// corner pass: false
	// vertex: true T=0.7113 point=[1 1 1] normal=(0.5774 0.5774 0.5774)
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

func ExampleRaycastAABB3() {
	box := geom.AABB3{Min: mgl32.Vec3{0, 0, 0}, Max: mgl32.Vec3{1, 2, 3}}
	// The segment from (-1,-1,1) to (1,3,1): origin A, dir B-A, maxT 1.
	hit, ok := geom.RaycastAABB3(mgl32.Vec3{-1, -1, 1}, mgl32.Vec3{2, 4, 0}, box, 1)
	fmt.Println(ok, hit.T, hit.Point, hit.Normal)
	// Output: true 0.5 [0 1 1] [-1 0 0]
}
