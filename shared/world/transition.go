package world

import (
	"github.com/go-gl/mathgl/mgl32"

	"github.com/twinframe/twinframe/shared/geom"
	"github.com/twinframe/twinframe/shared/navi"
)

// AvatarRadius returns the largest radius of the player prototypes (FlagPlayer): the
// room an arrival marker must give a traveller. It is 0 when there is none.
func (c *Config) AvatarRadius() float32 {
	r := float32(0)
	for _, p := range c.Prototypes {
		if p.Flags&FlagPlayer != 0 && p.Radius > r {
			r = p.Radius
		}
	}
	return r
}

// PortalRing returns the points of transition t's Portal polygon in ring order, or
// nil for a disc portal (or a polygon the world does not have).
func (c *Config) PortalRing(t *Transition) []mgl32.Vec2 {
	if t.Polygon < 0 {
		return nil
	}
	var pts []mgl32.Vec2
	for _, v := range c.Vertices {
		if v.Polygon == t.Polygon {
			pts = append(pts, v.Pos)
		}
	}
	return pts
}

// InPortal reports whether p lies within margin of portal t (of ring, its PortalRing):
// inside or within margin of its disc or polygon. With margin 0 it is the test the
// simulation applies to an avatar's centre.
func InPortal(t *Transition, ring []mgl32.Vec2, p mgl32.Vec2, margin float32) bool {
	if t.Polygon < 0 {
		d := geom.Sub(p, t.Pos)
		r := t.Radius + margin
		return geom.Dot(d, d) < r*r
	}
	if inRing(p, ring) {
		return true
	}
	for i := range ring {
		s := geom.Segment{A: ring[i], B: ring[(i+1)%len(ring)]}
		q, _ := geom.ClosestPointOnSegment(p, s)
		if geom.LenSq(geom.Sub(q, p)) < margin*margin {
			return true
		}
	}
	return false
}

// verifyTransitions checks the transition table: the portal's area and shape (a disc
// inside its area, or a Portal polygon of its area), the target region (another one)
// and its arrival marker, a way back unless one-way, and that no arrival lies within
// the avatar's radius of a portal of its region (no loops). Walkable room at the
// arrival needs the target's navmesh: Load checks it (verifyArrivals).
func (w *World) verifyTransitions(p *problems, ix *indexes) {
	c := &w.Config
	ids(p, "transition", c.Transitions, maxTransitions, func(r *Transition) int32 { return r.ID })
	names(p, "transition", c.Transitions, func(r *Transition) string { return r.Name })
	if len(c.Transitions) == 0 {
		return
	}
	radius := c.AvatarRadius()
	if radius == 0 {
		p.add("transition", 0, "no player prototype: a portal needs an avatar radius to check its arrival")
	}
	// from[i] is the region of transition i's area, or -1.
	from := make([]int32, len(c.Transitions))
	for i := range c.Transitions {
		t := &c.Transitions[i]
		from[i] = -1
		ai, ok := ix.area[t.Area]
		if !ok {
			p.add("transition", i, "unknown area %d", t.Area)
			continue
		}
		ar := c.Areas[ai]
		from[i] = ar.Region
		if t.Polygon == -1 {
			switch {
			case !geom.Finite2(t.Pos) || !geom.Finite(t.Radius) || !(t.Radius > 0):
				p.add("transition", i, "a disc portal needs a finite position and a positive radius")
			case t.Radius > MaxMarkerRadius:
				p.add("transition", i, "radius %g above %d m", t.Radius, MaxMarkerRadius)
			case !inside(t.Pos, ar.Min, ar.Max):
				p.add("transition", i, "position %v outside area %s %v..%v", t.Pos, ar.Name, ar.Min, ar.Max)
			}
		} else {
			pi, ok := ix.polygon[t.Polygon]
			switch {
			case !ok:
				p.add("transition", i, "unknown polygon %d", t.Polygon)
			case c.Polygons[pi].Kind != Portal || c.Polygons[pi].Area != t.Area:
				p.add("transition", i, "polygon %s is not a portal polygon of area %s", c.Polygons[pi].Name, ar.Name)
			case t.Pos != (mgl32.Vec2{}) || t.Radius != 0:
				p.add("transition", i, "a polygon portal has position 0 0 and radius 0")
			}
		}
		if t.OneWay != 0 && t.OneWay != 1 {
			p.add("transition", i, "one-way %d not 0 or 1", t.OneWay)
		}
		switch mi, ok := ix.marker[t.Marker]; {
		case !ix.region.has(t.Region):
			p.add("transition", i, "unknown target region %d", t.Region)
		case t.Region == ar.Region:
			p.add("transition", i, "leads to its own region %d (a portal leads to another region)", t.Region)
		case !ok || c.Markers[mi].Kind != Arrival:
			p.add("transition", i, "marker %d is not an arrival marker", t.Marker)
		case w.markerRegion(ix, c.Markers[mi]) != t.Region:
			p.add("transition", i, "arrival marker %d is not in the target region %d", t.Marker, t.Region)
		}
	}
	for i := range c.Transitions {
		t := &c.Transitions[i]
		mi, ok := ix.marker[t.Marker]
		if from[i] < 0 || !ok || w.markerRegion(ix, c.Markers[mi]) != t.Region {
			continue
		}
		dest := c.Markers[mi].Pos
		back := false
		for j := range c.Transitions {
			q := &c.Transitions[j]
			if from[j] != t.Region {
				continue
			}
			back = back || q.Region == from[i]
			if InPortal(q, c.PortalRing(q), dest, radius) {
				p.add("transition", i, "arrival marker %d at %v lies within %g m of portal %s of its region (a loop)", t.Marker, dest, radius, q.Name)
			}
		}
		if t.OneWay == 0 && !back {
			p.add("transition", i, "no transition leads back from region %d (mark it one-way 1 if that is meant)", t.Region)
		}
	}
}

// verifyArrivals builds the navmesh of every region a transition leads to and checks
// that its arrival marker gives the avatar room on walkable ground. It runs after
// InitState, as the props cut into the mesh.
func (w *World) verifyArrivals() error {
	p := &problems{w: w}
	c := &w.Config
	radius := c.AvatarRadius()
	meshes := map[int32]*navi.Mesh{}
	for i := range c.Transitions {
		t := &c.Transitions[i]
		m, ok := meshes[t.Region]
		if !ok {
			var err error
			if m, err = w.BuildMesh(t.Region, nil); err != nil {
				return err
			}
			meshes[t.Region] = m
		}
		for _, mk := range c.Markers {
			if mk.ID == t.Marker && !m.Contains(mk.Pos, radius, navi.Walk) {
				p.add("transition", i, "arrival marker %d at %v: no room for the avatar (radius %g) on walkable ground", mk.ID, mk.Pos, radius)
			}
		}
	}
	return p.err()
}

// inRing reports whether p lies inside the closed ring (even-odd rule, in float64 so
// that every platform agrees).
func inRing(p mgl32.Vec2, ring []mgl32.Vec2) bool {
	in := false
	x, y := float64(p[0]), float64(p[1])
	for i, j := 0, len(ring)-1; i < len(ring); j, i = i, i+1 {
		a, b := ring[i], ring[j]
		ay, by := float64(a[1]), float64(b[1])
		if (ay > y) != (by > y) {
			ax, bx := float64(a[0]), float64(b[0])
			if x < (bx-ax)*(y-ay)/(by-ay)+ax {
				in = !in
			}
		}
	}
	return in
}
