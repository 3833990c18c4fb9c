// Package debugdraw is the drawing interface the simulation emits debug
// primitives through; a viewer implements it, tests record it.
// Primitives are in world space and their colours are chosen by the simulation.
//
// Design note: in the style of Box2D's b2DebugDraw and Detour's duDebugDraw,
// each subsystem offers a free function DebugDraw(d, thing, options) that
// calls the five methods of Drawer. The interface carries no opaque context
// value; an implementation keeps its own state. Slices passed to a Drawer are
// only valid during the call, so emitters may reuse their buffers.
package debugdraw

import "github.com/go-gl/mathgl/mgl32"

// Color is a non-premultiplied 8-bit RGBA colour.
type Color struct{ R, G, B, A uint8 }

// RGBA returns the colour with the given components.
func RGBA(r, g, b, a uint8) Color { return Color{r, g, b, a} }

// WithAlpha returns c with its alpha replaced by a.
func (c Color) WithAlpha(a uint8) Color { c.A = a; return c }

// A small palette the simulation's subsystems share, so overlays agree.
var (
	White   = Color{255, 255, 255, 255}
	Black   = Color{0, 0, 0, 255}
	Red     = Color{230, 60, 50, 255}
	Green   = Color{60, 200, 90, 255}
	Blue    = Color{60, 120, 230, 255}
	Yellow  = Color{240, 210, 60, 255}
	Orange  = Color{245, 145, 40, 255}
	Cyan    = Color{60, 210, 220, 255}
	Magenta = Color{210, 70, 200, 255}
	Gray    = Color{128, 128, 128, 255}
)

// Drawer receives world-space debug primitives.
//
// Implementations must not retain the points slice passed to Polygon.
type Drawer interface {
	// Segment draws the line segment from a to b.
	Segment(a, b mgl32.Vec2, c Color)
	// Polygon draws the closed polygon through points, filled or as an outline.
	Polygon(points []mgl32.Vec2, c Color, filled bool)
	// Circle draws the circle of the given radius, filled or as an outline.
	Circle(center mgl32.Vec2, radius float32, c Color, filled bool)
	// Point draws a marker of the given size in screen pixels at p.
	Point(p mgl32.Vec2, size float32, c Color)
	// Text draws a label anchored at p.
	Text(p mgl32.Vec2, text string, c Color)
}

// Nop is a Drawer that draws nothing.
type Nop struct{}

func (Nop) Segment(a, b mgl32.Vec2, c Color)                               {}
func (Nop) Polygon(points []mgl32.Vec2, c Color, filled bool)              {}
func (Nop) Circle(center mgl32.Vec2, radius float32, c Color, filled bool) {}
func (Nop) Point(p mgl32.Vec2, size float32, c Color)                      {}
func (Nop) Text(p mgl32.Vec2, text string, c Color)                        {}

var _ Drawer = Nop{}
