package sim

import (
	"errors"
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/debugdraw"
	"github.com/twinframe/twinframe/shared/geom"
)

// Contact is the explanation of an entity's collision in the last step: what it
// wanted to move, what it touched and when, and where it slid to. ExplainContact
// makes it by sweeping the entity's motion again against the same walls and the
// other entity where that one stood when the entity swept; it reads the game only.
type Contact struct {
	Frame            uint64
	A, B             EntityID // B 0: a wall
	RadiusA, RadiusB float32  // RadiusB 0 for a wall
	Start            mgl32.Vec2
	Motion           mgl32.Vec2 // the motion A wanted this frame
	Swept            mgl32.Vec2 // the motion of the sweep that hit (after a wall slide, for B != 0)
	End              mgl32.Vec2 // where A ended the frame
	BAt              mgl32.Vec2 // B's centre when A swept (B != 0)
	TOI              float32    // time of impact: the fraction of Swept at which the discs touch
	At               mgl32.Vec2 // A's centre at the contact, backed off by Skin
	Point, Normal    mgl32.Vec2 // the hit point and the normal (from B or the wall towards A)
	Slide            mgl32.Vec2 // from At to End: the slide that followed
	// Edges are the navmesh's blocking edges the wall sweep of Motion tested (the
	// edges of the grid cells its box touches that pass the box test), in grid order;
	// Hit is the index of the edge hit (-1: none).
	Edges []geom.Segment
	Hit   int
}

// ErrNoContact is ExplainContact's error for an entity that hit nothing in the last step.
var ErrNoContact = errors.New("sim: the entity hit nothing in the last step")

// ExplainContact explains entity a's collision in the last step (the one its last
// sweep recorded). Entities sweep in id order, each committing its move before the
// next sweeps, so the other entity stood at its own sweep's start if its id is
// higher and it moved this frame, else where it is now.
func (g *Game) ExplainContact(a EntityID) (Contact, error) {
	e := g.Entity(a)
	if e == nil {
		return Contact{}, fmt.Errorf("%w: %d", ErrNoEntity, a)
	}
	sw := e.sweep
	if sw.Frame != g.frame || !sw.Hit {
		return Contact{}, fmt.Errorf("%w (entity %d, frame %d)", ErrNoContact, a, g.frame)
	}
	r := g.regionOf(e)
	if r == nil {
		return Contact{}, fmt.Errorf("sim: entity %d is in no region of the game", a)
	}
	c := Contact{
		Frame: sw.Frame, A: a, B: sw.Other, RadiusA: sw.Radius, Start: sw.Start, Motion: e.motion,
		End: sw.End, Point: sw.Point, Normal: sw.Normal, Hit: -1,
	}
	disc := geom.Circle{Center: sw.Start, Radius: sw.Radius}
	c.Edges, c.Hit = r.walls.tested(disc, e.motion)
	swept, hit := e.motion, geom.Hit{}
	wh, wallHit := r.walls.sweep(disc, e.motion)
	if wallHit {
		// The entity sweep starts from the wall slide's end, as moveEntity does.
		t := backoff(wh.T, geom.Len(e.motion))
		p1 := geom.Axpy(sw.Start, e.motion, t)
		rest := geom.Scale(e.motion, 1-t)
		slide := geom.Sub(rest, geom.Scale(wh.Normal, geom.Dot(rest, wh.Normal)))
		if h2, ok := r.walls.sweep(geom.Circle{Center: p1, Radius: sw.Radius}, slide); ok {
			slide = geom.Scale(slide, backoff(h2.T, geom.Len(slide)))
		}
		swept, hit = geom.Sub(geom.Add(p1, slide), sw.Start), wh
	}
	if c.B != 0 {
		o := g.Entity(c.B)
		if o == nil {
			return Contact{}, fmt.Errorf("%w: %d (hit by %d)", ErrNoEntity, c.B, a)
		}
		c.RadiusB, c.BAt = o.radius, o.pos
		if o.id > a && o.sweep.Frame == g.frame {
			c.BAt = o.sweep.Start
		}
		h, ok := geom.SweepCircleCircle(disc, swept, geom.Circle{Center: c.BAt, Radius: o.radius})
		if !ok {
			return Contact{}, fmt.Errorf("sim: entity %d's sweep no longer meets entity %d", a, c.B)
		}
		hit = h
	} else if !wallHit {
		return Contact{}, fmt.Errorf("sim: entity %d's sweep no longer meets a wall", a)
	} else {
		swept = e.motion
	}
	c.Swept, c.TOI = swept, hit.T
	c.At = geom.Axpy(sw.Start, swept, backoff(hit.T, geom.Len(swept)))
	c.Slide = geom.Sub(sw.End, c.At)
	return c, nil
}

// tested returns the blocking edges a sweep of c by motion tests (those within
// sweepEdges' box, each once, in grid order) and the index of the one it hits (-1).
func (w *wallGrid) tested(c geom.Circle, motion mgl32.Vec2) ([]geom.Segment, int) {
	if motion[0] == 0 && motion[1] == 0 {
		return nil, -1
	}
	end := geom.Add(c.Center, motion)
	lo, hi := geom.Sub(lo2(c.Center, end), vec(c.Radius)), geom.Add(hi2(c.Center, end), vec(c.Radius))
	var out []geom.Segment
	seen := make([]bool, len(w.segs))
	hitSeg, best, found := int32(-1), float32(0), false
	hitAt := -1
	for s := range w.within(lo, hi) {
		if seen[s.si] {
			continue
		}
		seen[s.si] = true
		out = append(out, s.seg)
		h, ok := geom.SweepCircleSegment(c, motion, s.seg)
		if !ok || geom.Dot(h.Normal, motion) >= 0 {
			continue
		}
		if !found || h.T < best || (h.T == best && s.si < hitSeg) {
			best, hitSeg, found, hitAt = h.T, s.si, true, len(out)-1
		}
	}
	return out, hitAt
}

// Contact drawing colours.
var (
	ColorContactEdge    = debugdraw.Gray.WithAlpha(200)
	ColorContactEdgeHit = debugdraw.Red
	ColorContactOther   = debugdraw.Orange
	ColorContactSlide   = debugdraw.Green
)

// DebugDrawContact draws c: the navmesh edges tested (the one hit in red), A's disc
// at the start, at the contact and at the end, the sweep from start to end of the
// motion wanted, B's disc where it stood, the hit point and normal, the slide, and
// the time of impact as a label.
func DebugDrawContact(d debugdraw.Drawer, c *Contact) {
	for i, s := range c.Edges {
		col := ColorContactEdge
		if i == c.Hit {
			col = ColorContactEdgeHit
		}
		d.Segment(s.A, s.B, col)
	}
	d.Circle(c.Start, c.RadiusA, ColorSweep.WithAlpha(120), false)
	d.Segment(c.Start, geom.Add(c.Start, c.Motion), ColorSweep.WithAlpha(120))
	d.Segment(c.Start, c.At, ColorSweep)
	d.Circle(c.At, c.RadiusA, ColorSelected, false)
	if c.B != 0 {
		d.Circle(c.BAt, c.RadiusB, ColorContactOther, false)
	}
	d.Segment(c.At, c.End, ColorContactSlide)
	d.Circle(c.End, c.RadiusA, ColorContactSlide, false)
	d.Point(c.Point, 6, ColorHit)
	d.Segment(c.Point, geom.Axpy(c.Point, c.Normal, 0.5), ColorHit)
	d.Text(c.At, fmt.Sprintf("toi %.3f", c.TOI), ColorSelected)
}
