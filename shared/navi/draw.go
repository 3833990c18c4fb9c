package navi

import (
	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/debugdraw"

	"github.com/twinframe/twinframe/shared/geom"
)

// DrawOptions choose what DebugDraw draws. The zero value draws nothing.
type DrawOptions struct {
	Triangles   bool         // triangles filled by flag
	Edges       bool         // every triangle edge, thin
	Constraints bool         // input (constraint) edges; those that block walking stand out
	BlackOut    bool         // blackout zone circles
	Path        *Path        // a path: corridor outline, legs, and funnel corners
	Sweep       *SweepResult // a sweep: start, contact and end discs, contact point and normal
	Colors      *DrawColors  // nil: DefaultDrawColors
}

// DrawColors are the colours DebugDraw uses.
type DrawColors struct {
	Walk, SightOnly, Solid, BlackOut  debugdraw.Color
	Edge, Constraint, BlockingEdge    debugdraw.Color
	Zone                              debugdraw.Color
	Corridor, PathLeg, PathCorner     debugdraw.Color
	SweepDisc, SweepHit, SweepNormal  debugdraw.Color
	SweepMotion, SweepSlide, SweepEnd debugdraw.Color
}

// DefaultDrawColors is the palette used when DrawOptions.Colors is nil.
var DefaultDrawColors = DrawColors{
	Walk:         debugdraw.Green.WithAlpha(70),
	SightOnly:    debugdraw.Blue.WithAlpha(50),
	Solid:        debugdraw.Gray.WithAlpha(120),
	BlackOut:     debugdraw.Red.WithAlpha(60),
	Edge:         debugdraw.White.WithAlpha(40),
	Constraint:   debugdraw.Orange.WithAlpha(160),
	BlockingEdge: debugdraw.Yellow,
	Zone:         debugdraw.Magenta,
	Corridor:     debugdraw.Cyan.WithAlpha(50),
	PathLeg:      debugdraw.Cyan,
	PathCorner:   debugdraw.White,
	SweepDisc:    debugdraw.Blue,
	SweepHit:     debugdraw.Red,
	SweepNormal:  debugdraw.White,
	SweepMotion:  debugdraw.Gray,
	SweepSlide:   debugdraw.Orange,
	SweepEnd:     debugdraw.Green,
}

// DebugDraw draws m, and optionally a path and a sweep on it, into d.
// Primitives come in a fixed order: triangles, edges, constraints, zones,
// path, sweep.
func DebugDraw(d debugdraw.Drawer, m *Mesh, opt DrawOptions) {
	c := &DefaultDrawColors
	if opt.Colors != nil {
		c = opt.Colors
	}
	var tri [3]mgl32.Vec2
	corners := func(t int32) []mgl32.Vec2 {
		v := &m.tris[t].V
		tri = [3]mgl32.Vec2{m.verts[v[0]], m.verts[v[1]], m.verts[v[2]]}
		return tri[:]
	}
	if opt.Triangles {
		for t := range m.tris {
			f := m.tris[t].Flags
			col := c.Solid
			switch {
			case f&Walk != 0:
				col = c.Walk
			case f&Sight != 0:
				col = c.SightOnly
			}
			d.Polygon(corners(int32(t)), col, true)
			if f&BlackOut != 0 {
				d.Polygon(corners(int32(t)), c.BlackOut, true)
			}
		}
	}
	if opt.Edges || opt.Constraints {
		for t := range m.tris {
			tr := &m.tris[t]
			for i := 0; i < 3; i++ {
				u := tr.N[i]
				if u >= 0 && u < int32(t) {
					continue // draw each shared edge once
				}
				a, b := m.verts[tr.V[i]], m.verts[tr.V[next(i)]]
				con := tr.Constraint>>i&1 != 0
				switch {
				case opt.Constraints && con && m.walkBoundary(int32(t), i):
					d.Segment(a, b, c.BlockingEdge)
				case opt.Constraints && con:
					d.Segment(a, b, c.Constraint)
				case opt.Edges:
					d.Segment(a, b, c.Edge)
				}
			}
		}
	}
	if opt.BlackOut {
		for i := range m.zones {
			if z := &m.zones[i]; z.live {
				d.Circle(z.center, z.radius, c.Zone, false)
			}
		}
	}
	if p := opt.Path; p != nil {
		for _, t := range p.Corridor {
			if t >= 0 && int(t) < len(m.tris) {
				d.Polygon(corners(t), c.Corridor, true)
			}
		}
		for i := 1; i < len(p.Points); i++ {
			d.Segment(p.Points[i-1], p.Points[i], c.PathLeg)
		}
		for _, pt := range p.Points {
			d.Point(pt, 5, c.PathCorner)
		}
		if len(p.Points) > 0 {
			d.Text(p.End, p.Status.String(), c.PathLeg)
		}
	}
	if s := opt.Sweep; s != nil {
		d.Segment(s.From, s.To, c.SweepMotion)
		d.Circle(s.From, s.Radius, c.SweepDisc, false)
		if s.Hit {
			d.Circle(s.Stop, s.Radius, c.SweepHit, false)
			d.Point(s.Contact.Point, 6, c.SweepHit)
			d.Segment(s.Contact.Point, geom.Axpy(s.Contact.Point, s.Contact.Normal, max(s.Radius, 1)), c.SweepNormal)
			if s.Slide != (mgl32.Vec2{}) {
				d.Segment(s.Stop, s.End, c.SweepSlide)
			}
			if s.SlideHit {
				d.Point(s.SlideContact.Point, 6, c.SweepHit)
			}
		}
		d.Circle(s.End, s.Radius, c.SweepEnd, false)
	}
}

// walkBoundary reports whether edge i of t separates walkable from
// unwalkable ground.
func (m *Mesh) walkBoundary(t int32, i int) bool {
	u := m.tris[t].N[i]
	w := m.tris[t].Flags&Walk != 0
	if u < 0 {
		return w
	}
	return w != (m.tris[u].Flags&Walk != 0)
}
