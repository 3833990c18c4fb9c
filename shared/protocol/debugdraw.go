package protocol

import (
	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/debugdraw"
	"github.com/twinframe/twinframe/shared/protocol/pb"
)

// DrawRecorder is a debugdraw.Drawer that records primitives into Msg, so the
// server can stream its sweeps and contacts as a NetMessageDebugDraw. Colours are
// packed 0xRRGGBBAA.
type DrawRecorder struct {
	Msg *pb.NetMessageDebugDraw // created on first use
}

var _ debugdraw.Drawer = (*DrawRecorder)(nil)

func (r *DrawRecorder) msg() *pb.NetMessageDebugDraw {
	if r.Msg == nil {
		r.Msg = &pb.NetMessageDebugDraw{}
	}
	return r.Msg
}

// PackColor packs c as 0xRRGGBBAA.
func PackColor(c debugdraw.Color) uint32 {
	return uint32(c.R)<<24 | uint32(c.G)<<16 | uint32(c.B)<<8 | uint32(c.A)
}

// UnpackColor is the inverse of PackColor.
func UnpackColor(v uint32) debugdraw.Color {
	return debugdraw.Color{R: uint8(v >> 24), G: uint8(v >> 16), B: uint8(v >> 8), A: uint8(v)}
}

// Segment records a segment.
func (r *DrawRecorder) Segment(a, b mgl32.Vec2, c debugdraw.Color) {
	m := r.msg()
	m.Segments = append(m.Segments, &pb.NetStructDebugSegment{Ax: a[0], Ay: a[1], Bx: b[0], By: b[1], Color: PackColor(c)})
}

// Polygon records a polygon; points are copied.
func (r *DrawRecorder) Polygon(points []mgl32.Vec2, c debugdraw.Color, filled bool) {
	m := r.msg()
	xy := make([]float32, 0, 2*len(points))
	for _, p := range points {
		xy = append(xy, p[0], p[1])
	}
	m.Polygons = append(m.Polygons, &pb.NetStructDebugPolygon{Xy: xy, Color: PackColor(c), Filled: filled})
}

// Circle records a circle.
func (r *DrawRecorder) Circle(center mgl32.Vec2, radius float32, c debugdraw.Color, filled bool) {
	m := r.msg()
	m.Circles = append(m.Circles, &pb.NetStructDebugCircle{X: center[0], Y: center[1], Radius: radius, Color: PackColor(c), Filled: filled})
}

// Point records a point marker.
func (r *DrawRecorder) Point(p mgl32.Vec2, size float32, c debugdraw.Color) {
	m := r.msg()
	m.Points = append(m.Points, &pb.NetStructDebugPoint{X: p[0], Y: p[1], Size: size, Color: PackColor(c)})
}

// Text records a text label.
func (r *DrawRecorder) Text(p mgl32.Vec2, text string, c debugdraw.Color) {
	m := r.msg()
	m.Texts = append(m.Texts, &pb.NetStructDebugText{X: p[0], Y: p[1], Text: text, Color: PackColor(c)})
}

// ReplayDraw draws m's primitives into d: segments, polygons, circles, points,
// then texts, each kind in recorded order. A polygon with an odd coordinate
// count drops its last coordinate.
func ReplayDraw(d debugdraw.Drawer, m *pb.NetMessageDebugDraw) {
	for _, s := range m.GetSegments() {
		d.Segment(mgl32.Vec2{s.Ax, s.Ay}, mgl32.Vec2{s.Bx, s.By}, UnpackColor(s.Color))
	}
	var pts []mgl32.Vec2
	for _, p := range m.GetPolygons() {
		pts = pts[:0]
		for i := 0; i+1 < len(p.Xy); i += 2 {
			pts = append(pts, mgl32.Vec2{p.Xy[i], p.Xy[i+1]})
		}
		d.Polygon(pts, UnpackColor(p.Color), p.Filled)
	}
	for _, c := range m.GetCircles() {
		d.Circle(mgl32.Vec2{c.X, c.Y}, c.Radius, UnpackColor(c.Color), c.Filled)
	}
	for _, p := range m.GetPoints() {
		d.Point(mgl32.Vec2{p.X, p.Y}, p.Size, UnpackColor(p.Color))
	}
	for _, t := range m.GetTexts() {
		d.Text(mgl32.Vec2{t.X, t.Y}, t.Text, UnpackColor(t.Color))
	}
}
