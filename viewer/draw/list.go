package draw

import (
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/debugdraw"
	"github.com/twinframe/twinframe/shared/geom"
)

// Vertex is one screen-space vertex. Its fields are those of ebiten.Vertex, so
// ebiten.Vertex(v) converts it. Colours are straight (not premultiplied) alpha in [0, 1].
type Vertex struct {
	DstX, DstY                     float32
	SrcX, SrcY                     float32
	ColorR, ColorG, ColorB, ColorA float32
	Custom0, Custom1               float32
	Custom2, Custom3               float32
}

// Batch is a run of triangles small enough for uint16 indices.
type Batch struct {
	Vertices []Vertex
	Indices  []uint16
}

// Label is a text whose top-left corner is at a screen position.
type Label struct {
	X, Y  float32
	Text  string
	Color debugdraw.Color
}

// MaxBatchVertices is the most vertices a Batch holds.
const MaxBatchVertices = math.MaxUint16

// SrcX and SrcY are the source coordinates every vertex carries: the middle of a white
// 3×3 image's centre pixel, which the viewer draws with.
const (
	SrcX = 1.5
	SrcY = 1.5
)

// List is a debugdraw.Drawer that tessellates what it is given into batches of
// screen-space triangles through its camera. Reset it at the start of a frame; a List
// reuses its buffers from frame to frame.
type List struct {
	cam Camera
	// LineWidth is the width of segments and outlines in pixels (default 1.5).
	LineWidth float32
	// MaxLabels caps the labels kept per frame (default 400); later ones are dropped.
	MaxLabels int

	batches []Batch
	cur     int // index of the batch being filled
	labels  []Label
	dropped int
}

var _ debugdraw.Drawer = (*List)(nil)

// Reset empties the list and sets the camera it draws through.
func (l *List) Reset(cam Camera) {
	l.cam = cam
	if l.LineWidth <= 0 {
		l.LineWidth = 1.5
	}
	if l.MaxLabels <= 0 {
		l.MaxLabels = 400
	}
	for i := range l.batches {
		l.batches[i].Vertices = l.batches[i].Vertices[:0]
		l.batches[i].Indices = l.batches[i].Indices[:0]
	}
	if len(l.batches) == 0 {
		l.batches = append(l.batches, Batch{})
	}
	l.cur = 0
	l.labels = l.labels[:0]
	l.dropped = 0
}

// Camera returns the camera the list draws through.
func (l *List) Camera() Camera { return l.cam }

// Batches returns the filled batches. They stay valid until the next Reset.
func (l *List) Batches() []Batch {
	if len(l.batches) == 0 {
		return nil
	}
	return l.batches[:l.cur+1]
}

// Labels returns the labels of the frame, in call order.
func (l *List) Labels() []Label { return l.labels }

// DroppedLabels returns how many labels this frame exceeded MaxLabels by.
func (l *List) DroppedLabels() int { return l.dropped }

// Triangles returns the number of triangles in the list.
func (l *List) Triangles() int {
	n := 0
	for _, b := range l.Batches() {
		n += len(b.Indices) / 3
	}
	return n
}

// reserve returns the batch to append nv vertices to, and the index of its first new
// vertex.
func (l *List) reserve(nv int) (*Batch, uint16) {
	if len(l.batches) == 0 {
		l.Reset(l.cam)
	}
	b := &l.batches[l.cur]
	if len(b.Vertices)+nv > MaxBatchVertices {
		l.cur++
		if l.cur == len(l.batches) {
			l.batches = append(l.batches, Batch{})
		}
		b = &l.batches[l.cur]
	}
	return b, uint16(len(b.Vertices))
}

type rgba struct{ r, g, b, a float32 }

func toRGBA(c debugdraw.Color) rgba {
	const k = 1.0 / 255
	return rgba{float32(c.R) * k, float32(c.G) * k, float32(c.B) * k, float32(c.A) * k}
}

func vtx(x, y float32, c rgba) Vertex {
	return Vertex{DstX: x, DstY: y, SrcX: SrcX, SrcY: SrcY, ColorR: c.r, ColorG: c.g, ColorB: c.b, ColorA: c.a}
}

// finiteSegment reports whether (ax, ay) and (bx, by) are both finite points.
func finiteSegment(ax, ay, bx, by float32) bool {
	return geom.Finite2(mgl32.Vec2{ax, ay}) && geom.Finite2(mgl32.Vec2{bx, by})
}

// visible reports whether the screen box [x0, x1]×[y0, y1] (in any order), grown by pad,
// meets the viewport.
func (l *List) visible(x0, y0, x1, y1, pad float32) bool {
	if x0 > x1 {
		x0, x1 = x1, x0
	}
	if y0 > y1 {
		y0, y1 = y1, y0
	}
	return x1+pad >= 0 && y1+pad >= 0 && x0-pad <= l.cam.W && y0-pad <= l.cam.H
}

// Segment draws a line of LineWidth pixels from a to b.
func (l *List) Segment(a, b mgl32.Vec2, c debugdraw.Color) {
	if c.A == 0 {
		return
	}
	ax, ay := l.cam.ToScreen(a)
	bx, by := l.cam.ToScreen(b)
	if !l.visible(ax, ay, bx, by, l.LineWidth) || !finiteSegment(ax, ay, bx, by) {
		return
	}
	l.line(ax, ay, bx, by, l.LineWidth, toRGBA(c))
}

func (l *List) line(ax, ay, bx, by, width float32, c rgba) {
	dx, dy := bx-ax, by-ay
	n := float32(math.Sqrt(float64(dx*dx + dy*dy)))
	if n < 1e-6 {
		l.square(ax, ay, width, c) // a zero-length segment is a dot
		return
	}
	k := width / 2 / n
	nx, ny := -dy*k, dx*k
	l.quad(ax+nx, ay+ny, ax-nx, ay-ny, bx+nx, by+ny, bx-nx, by-ny, c)
}

// quad appends the quadrilateral p0 p1 p3 p2 (two triangles: p0 p1 p2 and p1 p3 p2).
func (l *List) quad(x0, y0, x1, y1, x2, y2, x3, y3 float32, c rgba) {
	bt, i := l.reserve(4)
	nv, ni := len(bt.Vertices), len(bt.Indices)
	bt.Vertices = slices.Grow(bt.Vertices, 4)[:nv+4]
	bt.Indices = slices.Grow(bt.Indices, 6)[:ni+6]
	v := bt.Vertices[nv : nv+4 : nv+4]
	v[0], v[1], v[2], v[3] = vtx(x0, y0, c), vtx(x1, y1, c), vtx(x2, y2, c), vtx(x3, y3, c)
	ix := bt.Indices[ni : ni+6 : ni+6]
	ix[0], ix[1], ix[2], ix[3], ix[4], ix[5] = i, i+1, i+2, i+1, i+3, i+2
}

// Polygon draws the closed polygon through points: filled as a fan from its first point
// (exact for convex polygons, which is what the simulation draws), or as an outline.
func (l *List) Polygon(points []mgl32.Vec2, c debugdraw.Color, filled bool) {
	n := len(points)
	if n < 2 || c.A == 0 {
		return
	}
	if n > MaxBatchVertices/4 {
		n = MaxBatchVertices / 4
	}
	// Cull on the screen bounding box.
	x0, y0 := l.cam.ToScreen(points[0])
	x1, y1 := x0, y0
	for _, p := range points[1:n] {
		x, y := l.cam.ToScreen(p)
		x0, x1 = min(x0, x), max(x1, x)
		y0, y1 = min(y0, y), max(y1, y)
	}
	if !l.visible(x0, y0, x1, y1, l.LineWidth) || !finiteSegment(x0, y0, x1, y1) {
		return
	}
	col := toRGBA(c)
	if !filled || n == 2 {
		px, py := l.cam.ToScreen(points[n-1])
		if n == 2 {
			px, py = l.cam.ToScreen(points[0])
		}
		for _, p := range points[:n] {
			x, y := l.cam.ToScreen(p)
			if n != 2 || p != points[0] {
				l.line(px, py, x, y, l.LineWidth, col)
			}
			px, py = x, y
		}
		return
	}
	bt, i := l.reserve(n)
	nv, ni := len(bt.Vertices), len(bt.Indices)
	bt.Vertices = slices.Grow(bt.Vertices, n)[:nv+n]
	bt.Indices = slices.Grow(bt.Indices, 3*(n-2))[:ni+3*(n-2)]
	vs, ix := bt.Vertices[nv:], bt.Indices[ni:]
	for j, p := range points[:n] {
		x, y := l.cam.ToScreen(p)
		vs[j] = vtx(x, y, col)
	}
	for k := 1; k+1 < n; k++ {
		q := ix[3*(k-1) : 3*k : 3*k]
		q[0], q[1], q[2] = i, i+uint16(k), i+uint16(k+1)
	}
}

// circleSegments are the segment counts circles are drawn with, by on-screen size.
var circleSegments = [...]int{8, 12, 16, 32, 64}

// unitCircles[i] is the unit circle in circleSegments[i] segments.
var unitCircles = func() (out [len(circleSegments)][][2]float32) {
	for j, k := range circleSegments {
		u := make([][2]float32, k)
		for i := range u {
			s, c := math.Sincos(2 * math.Pi * float64(i) / float64(k))
			u[i] = [2]float32{float32(c), float32(s)}
		}
		out[j] = u
	}
	return out
}()

// unitCircle returns the unit circle with as many segments as a circle of r pixels needs
// to look round.
func unitCircle(r float32) [][2]float32 {
	switch {
	case r < 4:
		return unitCircles[0]
	case r < 10:
		return unitCircles[1]
	case r < 24:
		return unitCircles[2]
	case r < 80:
		return unitCircles[3]
	}
	return unitCircles[4]
}

// Circle draws the circle of radius metres around center, filled or as a ring of
// LineWidth pixels.
func (l *List) Circle(center mgl32.Vec2, radius float32, c debugdraw.Color, filled bool) {
	if c.A == 0 || !(radius >= 0) {
		return
	}
	cx, cy := l.cam.ToScreen(center)
	r := radius * l.cam.Zoom
	if !l.visible(cx, cy, cx, cy, r+l.LineWidth) || !geom.Finite2(mgl32.Vec2{cx, cy}) || !geom.Finite(r) {
		return
	}
	col := toRGBA(c)
	if r < 2.5 { // a ring this small is a dot
		l.square(cx, cy, max(l.LineWidth, 2*r), col)
		return
	}
	u := unitCircle(r)
	k := len(u)
	if filled {
		bt, i := l.reserve(k + 1)
		bt.Vertices = append(bt.Vertices, vtx(cx, cy, col))
		for _, p := range u {
			bt.Vertices = append(bt.Vertices, vtx(cx+p[0]*r, cy-p[1]*r, col))
		}
		for j := 0; j < k; j++ {
			bt.Indices = append(bt.Indices, i, i+1+uint16(j), i+1+uint16((j+1)%k))
		}
		return
	}
	hw := l.LineWidth / 2
	ri, ro := max(r-hw, 0), r+hw
	bt, i := l.reserve(2 * k)
	nv, ni := len(bt.Vertices), len(bt.Indices)
	bt.Vertices = slices.Grow(bt.Vertices, 2*k)[:nv+2*k]
	bt.Indices = slices.Grow(bt.Indices, 6*k)[:ni+6*k]
	vs, ix := bt.Vertices[nv:], bt.Indices[ni:]
	for j, p := range u {
		vs[2*j] = vtx(cx+p[0]*ro, cy-p[1]*ro, col)
		vs[2*j+1] = vtx(cx+p[0]*ri, cy-p[1]*ri, col)
	}
	for j := 0; j < k; j++ {
		a, b := i+uint16(2*j), i+uint16(2*((j+1)%k))
		q := ix[6*j : 6*j+6 : 6*j+6]
		q[0], q[1], q[2], q[3], q[4], q[5] = a, a+1, b, a+1, b+1, b
	}
}

func (l *List) square(x, y, size float32, c rgba) {
	h := size / 2
	l.quad(x-h, y-h, x+h, y-h, x-h, y+h, x+h, y+h, c)
}

// Point draws a square marker of size pixels at p.
func (l *List) Point(p mgl32.Vec2, size float32, c debugdraw.Color) {
	if c.A == 0 || !(size > 0) {
		return
	}
	x, y := l.cam.ToScreen(p)
	if !l.visible(x, y, x, y, size) || !geom.Finite2(mgl32.Vec2{x, y}) || !geom.Finite(size) {
		return
	}
	l.square(x, y, size, toRGBA(c))
}

// Text keeps a label just above and right of p, unless it is off screen or the frame already has MaxLabels.
func (l *List) Text(p mgl32.Vec2, text string, c debugdraw.Color) {
	if c.A == 0 || text == "" {
		return
	}
	x, y := l.cam.ToScreen(p)
	if !l.visible(x, y, x, y, 0) || !geom.Finite2(mgl32.Vec2{x, y}) {
		return
	}
	if len(l.labels) >= l.MaxLabels {
		l.dropped++
		return
	}
	l.labels = append(l.labels, Label{X: x + 2, Y: y - LabelHeight, Text: text, Color: c})
}

// LabelHeight is the height of a line of label text in pixels: a world label sits above
// and to the right of its anchor.
const LabelHeight = 14

// ScreenSegment draws a line between two screen positions, for overlays drawn in screen
// space (graphs, the selection box).
func (l *List) ScreenSegment(ax, ay, bx, by, width float32, c debugdraw.Color) {
	if c.A == 0 || !finiteSegment(ax, ay, bx, by) {
		return
	}
	l.line(ax, ay, bx, by, width, toRGBA(c))
}

// ScreenRect fills the screen rectangle at (x, y) of size w×h.
func (l *List) ScreenRect(x, y, w, h float32, c debugdraw.Color) {
	if c.A == 0 || !geom.Finite2(mgl32.Vec2{x, y}) || !geom.Finite2(mgl32.Vec2{w, h}) {
		return
	}
	l.quad(x, y, x+w, y, x, y+h, x+w, y+h, toRGBA(c))
}

// ScreenText keeps a label with its top-left corner at screen position (x, y); MaxLabels
// does not apply.
func (l *List) ScreenText(x, y float32, text string, c debugdraw.Color) {
	l.labels = append(l.labels, Label{X: x, Y: y, Text: text, Color: c})
}
