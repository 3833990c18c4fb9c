package geom

import "testing"

// TestNoAllocations checks that the queries allocate nothing.
func TestNoAllocations(t *testing.T) {
	poly := Polygon{v2(0, 0), v2(4, 0), v2(4, 2), v2(2, 2), v2(2, 4), v2(0, 4)}
	queries := map[string]func(){
		"SweepCircleSegment": func() {
			sinkHit, sinkOK = SweepCircleSegment(Circle{v2(0, 8), 1}, v2(10, -10), Segment{v2(5, 3), v2(5, -3)})
		},
		"SweepCircleCircle":     func() { sinkHit, sinkOK = SweepCircleCircle(Circle{v2(0, 2), 1}, v2(12, 0), Circle{v2(6, 0), 2}) },
		"SweepCircleAABB":       func() { sinkHit, sinkOK = SweepCircleAABB(Circle{v2(4, 3), 1}, v2(-4, -4), AABB{v2(0, 0), v2(2, 1)}) },
		"ClosestPointOnPolygon": func() { sinkHit.Point, _ = ClosestPointOnPolygon(v2(3, 3), poly) },
		"Polygon.Contains":      func() { sinkOK = poly.Contains(v2(3, 3)) },
		"Polygon.Validate":      func() { sinkOK = poly.Validate() == nil },
	}
	for name, q := range queries {
		if n := testing.AllocsPerRun(100, q); n != 0 {
			t.Errorf("%s allocates %v times per call", name, n)
		}
	}
}
