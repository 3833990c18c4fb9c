package navi

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/debugdraw"
	"github.com/twinframe/twinframe/shared/debugdraw/debugdrawtest"

	"github.com/twinframe/twinframe/shared/geom"
)

func TestDebugDraw(t *testing.T) {
	t.Parallel()
	g := Geometry{Bounds: box100, Polygons: []Polygon{rect(Walkable, 0, 0, 100, 100), rect(Obstacle, 40, 40, 60, 60)}}
	m := mustBuild(t, g)
	m.AddBlackOutZone(mgl32.Vec2{20, 20}, 40)
	q := NewQuery(m)
	var p Path
	q.FindPath(mgl32.Vec2{10, 50}, mgl32.Vec2{90, 50}, 1, &p)
	var s SweepResult
	q.Sweep(mgl32.Vec2{30, 45}, mgl32.Vec2{50, 55}, 1, Walk, &s)

	var rec debugdrawtest.Recorder
	DebugDraw(&rec, m, DrawOptions{})
	if len(rec.Calls) != 0 {
		t.Fatalf("zero options drew %d primitives", len(rec.Calls))
	}
	DebugDraw(&rec, m, DrawOptions{Triangles: true, Constraints: true, BlackOut: true, Path: &p, Sweep: &s})
	c := DefaultDrawColors
	walk, solid := len(rec.Filter(debugdrawtest.Polygon, c.Walk)), len(rec.Filter(debugdrawtest.Polygon, c.Solid))
	if walk+solid != len(m.Triangles()) || solid < 2 {
		t.Errorf("triangles: %d walk + %d solid, mesh has %d", walk, solid, len(m.Triangles()))
	}
	if n := len(rec.Filter(debugdrawtest.Polygon, c.BlackOut)); n == 0 {
		t.Error("no blacked-out triangle drawn")
	}
	var wallLen float32
	for _, call := range rec.Filter(debugdrawtest.Segment, c.BlockingEdge) {
		wallLen += geom.Dist(call.Points[0], call.Points[1])
	}
	if wallLen != 4*100+4*20 {
		t.Errorf("blocking edges drawn have length %v, want bounds and obstacle outline 480", wallLen)
		for _, call := range rec.Filter(debugdrawtest.Segment, c.BlockingEdge) {
			t.Log(call.Points)
		}
	}
	if n := len(rec.Filter(debugdrawtest.Circle, c.Zone)); n != 1 {
		t.Errorf("%d zones drawn", n)
	}
	if n := len(rec.Filter(debugdrawtest.Segment, c.PathLeg)); n != len(p.Points)-1 {
		t.Errorf("%d path legs drawn, path has %d points", n, len(p.Points))
	}
	if n := len(rec.Filter(debugdrawtest.Point, c.PathCorner)); n != len(p.Points) {
		t.Errorf("%d corners drawn, path has %d points", n, len(p.Points))
	}
	if n := len(rec.Filter(debugdrawtest.Point, c.SweepHit)); !s.Hit || n != 1 {
		t.Errorf("sweep hit %v, %d hit points drawn", s.Hit, n)
	}
	if n := len(rec.Filter(debugdrawtest.Segment, c.SweepSlide)); n != 1 {
		t.Errorf("%d slide segments drawn", n)
	}
	// Deterministic output.
	var rec2 debugdrawtest.Recorder
	DebugDraw(&rec2, m, DrawOptions{Triangles: true, Constraints: true, BlackOut: true, Path: &p, Sweep: &s})
	if rec.String() != rec2.String() {
		t.Error("two draws differ")
	}
	var _ debugdraw.Drawer = &rec
}
