package draw

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// Zoom limits in screen pixels per metre.
const (
	MinZoom = 0.05
	MaxZoom = 400
)

// Camera maps world space (metres, y north) to screen space (pixels, y down).
// The zero value is unusable; start from NewCamera.
type Camera struct {
	// Center is the world point at the middle of the screen.
	Center mgl32.Vec2
	// Zoom is screen pixels per metre.
	Zoom float32
	// W and H are the screen size in pixels.
	W, H float32
}

// NewCamera returns a camera over a w×h pixel screen showing the world rectangle
// [min, max] whole.
func NewCamera(w, h int, min, max mgl32.Vec2) Camera {
	c := Camera{W: float32(w), H: float32(h), Zoom: 1}
	c.Fit(min, max)
	return c
}

// ToScreen returns the screen position of world point p.
func (c *Camera) ToScreen(p mgl32.Vec2) (x, y float32) {
	return (p[0]-c.Center[0])*c.Zoom + c.W/2, c.H/2 - (p[1]-c.Center[1])*c.Zoom
}

// ToWorld returns the world point under screen position (x, y).
func (c *Camera) ToWorld(x, y float32) mgl32.Vec2 {
	return mgl32.Vec2{(x-c.W/2)/c.Zoom + c.Center[0], (c.H/2-y)/c.Zoom + c.Center[1]}
}

// Pan moves the view by a drag of (dx, dy) screen pixels: the world follows the pointer.
func (c *Camera) Pan(dx, dy float32) {
	c.Center[0] -= dx / c.Zoom
	c.Center[1] += dy / c.Zoom
}

// ZoomAt multiplies the zoom by factor, keeping the world point under screen position
// (x, y) where it is. The zoom stays within [MinZoom, MaxZoom].
func (c *Camera) ZoomAt(x, y, factor float32) {
	if !(factor > 0) || math.IsInf(float64(factor), 0) {
		return
	}
	before := c.ToWorld(x, y)
	c.Zoom = min(max(c.Zoom*factor, MinZoom), MaxZoom)
	after := c.ToWorld(x, y)
	c.Center = c.Center.Add(before.Sub(after))
}

// Fit centres the world rectangle [lo, hi] and zooms so that it fills the screen with a
// small margin.
func (c *Camera) Fit(lo, hi mgl32.Vec2) {
	c.Center = lo.Add(hi).Mul(0.5)
	w, h := hi[0]-lo[0], hi[1]-lo[1]
	if w <= 0 || h <= 0 || c.W <= 0 || c.H <= 0 {
		return
	}
	c.Zoom = min(max(0.95*min(c.W/w, c.H/h), MinZoom), MaxZoom)
}

// Resize changes the screen size, keeping the centre and zoom.
func (c *Camera) Resize(w, h int) { c.W, c.H = float32(w), float32(h) }
