package draw

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/debugdraw"
)

func near(a, b mgl32.Vec2) bool { return a.Sub(b).Len() < 1e-3 }

func TestCameraRoundTrip(t *testing.T) {
	c := NewCamera(800, 600, mgl32.Vec2{0, 0}, mgl32.Vec2{192, 192})
	for _, p := range []mgl32.Vec2{{0, 0}, {192, 192}, {10, 150}} {
		x, y := c.ToScreen(p)
		if got := c.ToWorld(x, y); !near(got, p) {
			t.Errorf("ToWorld(ToScreen(%v)) = %v", p, got)
		}
	}
	// Fit: the whole region is on screen, y points down.
	x0, y0 := c.ToScreen(mgl32.Vec2{0, 0})
	x1, y1 := c.ToScreen(mgl32.Vec2{192, 192})
	if x0 < 0 || x1 > 800 || y1 < 0 || y0 > 600 || y1 >= y0 {
		t.Errorf("fit: corners at (%v,%v) and (%v,%v)", x0, y0, x1, y1)
	}
}

func TestCameraZoomAtKeepsPoint(t *testing.T) {
	c := NewCamera(800, 600, mgl32.Vec2{0, 0}, mgl32.Vec2{100, 100})
	before := c.ToWorld(123, 456)
	c.ZoomAt(123, 456, 2.5)
	if after := c.ToWorld(123, 456); !near(before, after) {
		t.Errorf("point under cursor moved: %v → %v", before, after)
	}
	c.ZoomAt(0, 0, 1e9)
	if c.Zoom != MaxZoom {
		t.Errorf("zoom %v, want clamped to %v", c.Zoom, MaxZoom)
	}
	c.ZoomAt(0, 0, 0) // ignored
	if c.Zoom != MaxZoom {
		t.Errorf("zoom by 0 changed the zoom to %v", c.Zoom)
	}
}

func TestCameraPanFollowsDrag(t *testing.T) {
	c := NewCamera(800, 600, mgl32.Vec2{0, 0}, mgl32.Vec2{100, 100})
	p := c.ToWorld(100, 100)
	c.Pan(30, -20)
	if got := c.ToWorld(130, 80); !near(got, p) {
		t.Errorf("after a drag the point under the pointer is %v, want %v", got, p)
	}
}

func TestListPrimitives(t *testing.T) {
	var l List
	l.Reset(NewCamera(100, 100, mgl32.Vec2{0, 0}, mgl32.Vec2{10, 10}))
	c := debugdraw.Red
	l.Segment(mgl32.Vec2{1, 1}, mgl32.Vec2{9, 9}, c)
	if n := l.Triangles(); n != 2 {
		t.Fatalf("segment: %d triangles, want 2", n)
	}
	l.Polygon([]mgl32.Vec2{{1, 1}, {5, 1}, {5, 5}, {1, 5}}, c, true)
	if n := l.Triangles(); n != 4 {
		t.Fatalf("+ filled quad: %d triangles, want 4", n)
	}
	l.Polygon([]mgl32.Vec2{{1, 1}, {5, 1}, {5, 5}}, c, false)
	if n := l.Triangles(); n != 10 {
		t.Fatalf("+ triangle outline: %d triangles, want 10", n)
	}
	l.Circle(mgl32.Vec2{5, 5}, 2, c, true)
	l.Point(mgl32.Vec2{5, 5}, 4, c)
	l.Text(mgl32.Vec2{5, 5}, "hi", c)
	if len(l.Labels()) != 1 || l.Labels()[0].Text != "hi" {
		t.Fatalf("labels %v", l.Labels())
	}
	// Every index refers to a vertex of its batch, and colours are straight alpha.
	for _, b := range l.Batches() {
		for _, i := range b.Indices {
			if int(i) >= len(b.Vertices) {
				t.Fatalf("index %d out of %d vertices", i, len(b.Vertices))
			}
		}
		for _, v := range b.Vertices {
			if math.Abs(float64(v.ColorR-float32(c.R)/255)) > 1e-6 || v.ColorA != 1 || v.SrcX != SrcX {
				t.Fatalf("vertex %+v", v)
			}
		}
	}
}

func TestListCulls(t *testing.T) {
	var l List
	l.Reset(NewCamera(100, 100, mgl32.Vec2{0, 0}, mgl32.Vec2{10, 10}))
	far := mgl32.Vec2{1000, 1000}
	l.Segment(far, far.Add(mgl32.Vec2{1, 0}), debugdraw.Red)
	l.Circle(far, 3, debugdraw.Red, false)
	l.Polygon([]mgl32.Vec2{far, far.Add(mgl32.Vec2{1, 0}), far.Add(mgl32.Vec2{0, 1})}, debugdraw.Red, true)
	l.Point(far, 5, debugdraw.Red)
	l.Text(far, "x", debugdraw.Red)
	l.Circle(mgl32.Vec2{5, 5}, float32(math.NaN()), debugdraw.Red, false)
	if n := l.Triangles(); n != 0 || len(l.Labels()) != 0 {
		t.Errorf("off-screen primitives drew %d triangles, %d labels", n, len(l.Labels()))
	}
	// A circle around the screen that crosses it is drawn.
	l.Circle(mgl32.Vec2{5, 5}, 6, debugdraw.Red, false)
	if l.Triangles() == 0 {
		t.Error("a ring crossing the screen was culled")
	}
}

// TestListSkipsNonFinite: a primitive with an infinite coordinate or size passes the
// culling test (an infinite box meets the screen) and must still draw nothing.
func TestListSkipsNonFinite(t *testing.T) {
	t.Parallel()
	inf := float32(math.Inf(1))
	on := mgl32.Vec2{5, 5}
	tests := []struct {
		name string
		draw func(l *List)
	}{
		{"segment to +Inf", func(l *List) { l.Segment(on, mgl32.Vec2{inf, 5}, debugdraw.Red) }},
		{"polygon through +Inf", func(l *List) {
			l.Polygon([]mgl32.Vec2{on, {inf, 5}, {5, 6}}, debugdraw.Red, true)
		}},
		{"circle of infinite radius", func(l *List) { l.Circle(on, inf, debugdraw.Red, false) }},
		{"point of infinite size", func(l *List) { l.Point(on, inf, debugdraw.Red) }},
		{"screen segment to +Inf", func(l *List) { l.ScreenSegment(10, 10, inf, 10, 1, debugdraw.Red) }},
		{"screen rect of infinite width", func(l *List) { l.ScreenRect(10, 10, inf, 5, debugdraw.Red) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var l List
			l.Reset(NewCamera(100, 100, mgl32.Vec2{0, 0}, mgl32.Vec2{10, 10}))
			tc.draw(&l)
			if n := l.Triangles(); n != 0 {
				t.Errorf("drew %d triangles", n)
			}
		})
	}
}

func TestListSplitsBatches(t *testing.T) {
	var l List
	l.Reset(NewCamera(100, 100, mgl32.Vec2{0, 0}, mgl32.Vec2{10, 10}))
	const n = 40000 // 160k vertices
	for i := range n {
		f := float32(i%100) / 10
		l.Segment(mgl32.Vec2{f, 0}, mgl32.Vec2{f, 10}, debugdraw.Blue)
	}
	if got := l.Triangles(); got != 2*n {
		t.Fatalf("%d triangles, want %d", got, 2*n)
	}
	if len(l.Batches()) < 3 {
		t.Fatalf("%d batches for %d vertices", len(l.Batches()), 4*n)
	}
	for _, b := range l.Batches() {
		if len(b.Vertices) > MaxBatchVertices {
			t.Fatalf("batch of %d vertices", len(b.Vertices))
		}
	}
}

func TestListReuseDoesNotAllocate(t *testing.T) {
	var l List
	cam := NewCamera(400, 400, mgl32.Vec2{0, 0}, mgl32.Vec2{100, 100})
	tri := []mgl32.Vec2{{1, 1}, {3, 1}, {2, 3}}
	frame := func() {
		l.Reset(cam)
		for i := range 3000 {
			f := float32(i % 90)
			l.Polygon(tri, debugdraw.Green, true)
			l.Circle(mgl32.Vec2{f, f}, 1, debugdraw.Blue, false)
			l.Segment(mgl32.Vec2{f, 0}, mgl32.Vec2{0, f}, debugdraw.Red)
			l.Text(mgl32.Vec2{f, f}, "label", debugdraw.White)
		}
	}
	frame()
	if a := testing.AllocsPerRun(5, frame); a != 0 {
		t.Errorf("a repeated frame allocates %v times", a)
	}
}
