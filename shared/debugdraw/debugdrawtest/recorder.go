// Package debugdrawtest provides a recording debugdraw.Drawer for tests.
// It keeps every primitive in call order so a test can count and inspect them.
package debugdrawtest

import (
	"fmt"
	"strings"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/debugdraw"
)

// Kind names a Drawer method.
type Kind uint8

// The kinds of recorded primitives, one per Drawer method.
const (
	Segment Kind = iota + 1
	Polygon
	Circle
	Point
	Text
)

func (k Kind) String() string {
	switch k {
	case Segment:
		return "segment"
	case Polygon:
		return "polygon"
	case Circle:
		return "circle"
	case Point:
		return "point"
	case Text:
		return "text"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Call is one recorded primitive. Points holds a copy of the call's points
// (two for a segment, one for a circle, point or text).
type Call struct {
	Kind   Kind
	Points []mgl32.Vec2
	Radius float32 // circles
	Size   float32 // points
	Text   string  // text
	Color  debugdraw.Color
	Filled bool // polygons and circles
}

// Recorder is a debugdraw.Drawer that records every call.
// The zero value is ready to use.
type Recorder struct {
	Calls []Call
}

var _ debugdraw.Drawer = (*Recorder)(nil)

// Segment records a segment.
func (r *Recorder) Segment(a, b mgl32.Vec2, c debugdraw.Color) {
	r.Calls = append(r.Calls, Call{Kind: Segment, Points: []mgl32.Vec2{a, b}, Color: c})
}

// Polygon records a polygon, copying its points.
func (r *Recorder) Polygon(points []mgl32.Vec2, c debugdraw.Color, filled bool) {
	r.Calls = append(r.Calls, Call{Kind: Polygon, Points: append([]mgl32.Vec2(nil), points...), Color: c, Filled: filled})
}

// Circle records a circle.
func (r *Recorder) Circle(center mgl32.Vec2, radius float32, c debugdraw.Color, filled bool) {
	r.Calls = append(r.Calls, Call{Kind: Circle, Points: []mgl32.Vec2{center}, Radius: radius, Color: c, Filled: filled})
}

// Point records a point marker.
func (r *Recorder) Point(p mgl32.Vec2, size float32, c debugdraw.Color) {
	r.Calls = append(r.Calls, Call{Kind: Point, Points: []mgl32.Vec2{p}, Size: size, Color: c})
}

// Text records a label.
func (r *Recorder) Text(p mgl32.Vec2, text string, c debugdraw.Color) {
	r.Calls = append(r.Calls, Call{Kind: Text, Points: []mgl32.Vec2{p}, Text: text, Color: c})
}

// Reset forgets every recorded call and keeps the storage.
func (r *Recorder) Reset() { r.Calls = r.Calls[:0] }

// Count returns how many calls of kind k were recorded.
func (r *Recorder) Count(k Kind) int {
	n := 0
	for _, c := range r.Calls {
		if c.Kind == k {
			n++
		}
	}
	return n
}

// Filter returns the recorded calls of kind k with colour c, in call order.
func (r *Recorder) Filter(k Kind, c debugdraw.Color) []Call {
	var out []Call
	for _, call := range r.Calls {
		if call.Kind == k && call.Color == c {
			out = append(out, call)
		}
	}
	return out
}

// String summarises the recording as one line per call, for failure messages
// and golden files.
func (r *Recorder) String() string {
	var b strings.Builder
	for _, c := range r.Calls {
		fmt.Fprintf(&b, "%s rgba(%d,%d,%d,%d)", c.Kind, c.Color.R, c.Color.G, c.Color.B, c.Color.A)
		for _, p := range c.Points {
			fmt.Fprintf(&b, " (%g,%g)", p[0], p[1])
		}
		switch c.Kind {
		case Circle:
			fmt.Fprintf(&b, " r=%g", c.Radius)
		case Point:
			fmt.Fprintf(&b, " size=%g", c.Size)
		case Text:
			fmt.Fprintf(&b, " %q", c.Text)
		}
		if c.Filled {
			b.WriteString(" filled")
		}
		b.WriteByte('\n')
	}
	return b.String()
}
