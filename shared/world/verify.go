package world

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/twinframe/twinframe/shared/geom"
)

// index maps the ids of one table to row indices.
type index map[int32]int

// has reports whether id is a row of the table.
func (ix index) has(id int32) bool { _, ok := ix[id]; return ok }

// indexes of the configuration tables, built by Verify.
type indexes struct {
	region, cell, area, polygon, marker, proto, propSet, population, rule, power index
	// ring[p] lists the Vertex row indices of polygon id p in ring order.
	ring map[int32][]int
}

// coords reports whether every coordinate is finite and within ±MaxCoordinate.
func coords(xs ...float32) bool {
	for _, x := range xs {
		if !(x >= -MaxCoordinate && x <= MaxCoordinate) {
			return false
		}
	}
	return true
}

func inside(p, lo, hi mgl32.Vec2) bool {
	return p[0] >= lo[0] && p[1] >= lo[1] && p[0] <= hi[0] && p[1] <= hi[1]
}

// box reports whether lo..hi are the finite corners of a box with interior points.
func box(lo, hi mgl32.Vec2) bool {
	return geom.Finite2(lo) && geom.Finite2(hi) && lo[0] < hi[0] && lo[1] < hi[1]
}

// lookup returns the row of rows (indexed by ix) that row of table refers to by id, or
// reports the reference as unknown.
func lookup[R any](p *problems, table string, row int, what string, rows []R, ix index, id int32) (*R, bool) {
	i, ok := ix[id]
	if !ok {
		p.add(table, row, "unknown %s %d", what, id)
		return nil, false
	}
	return &rows[i], true
}

// Verify checks everything the parser cannot: ids unique, references resolved, symbol
// values known, cells tiling their region, areas inside their region and apart,
// polygons closed and simple and inside their area, markers inside their area,
// prototypes, prop sets, populations and hotspot rules sane. It returns nil or an error joining up to
// 20 *Error values (file:line when the world was loaded from files), each wrapping
// ErrInvalid.
func (w *World) Verify() error {
	p := &problems{w: w}
	w.verify(p)
	return p.err()
}

// ids indexes one table's id column, reporting ids out of [0, limit) and repeated ids.
func ids[R any](p *problems, table string, rows []R, limit int32, id func(*R) int32) index {
	ix := make(index, len(rows))
	for i := range rows {
		v := id(&rows[i])
		switch {
		case v < 0 || v >= limit:
			p.add(table, i, "id %d out of range [0, %d)", v, limit)
		case ix.has(v):
			p.add(table, i, "id %d already used by row %d", v, ix[v])
		default:
			ix[v] = i
		}
	}
	return ix
}

// names reports names that other rows cannot refer to: empty, repeated, or not
// written like a symbol of the config dialect.
func names[R any](p *problems, table string, rows []R, name func(*R) string) {
	seen := make(map[string]int, len(rows))
	for i := range rows {
		n := name(&rows[i])
		if !symbolName(n) {
			p.add(table, i, "name %q is not a symbol (a letter or _, then letters, digits, _ and -; not nil)", n)
			continue
		}
		if j, ok := seen[n]; ok {
			p.add(table, i, "name %q already used by row %d", n, j)
			continue
		}
		seen[n] = i
	}
}

// symbolName reports whether a config file can name a row n: a letter or '_', then
// letters, digits, '_' and '-', and not the word nil.
func symbolName(n string) bool {
	if n == "" || n == "nil" {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '-')) {
			return false
		}
	}
	return true
}

func (w *World) verify(p *problems) *indexes {
	c := &w.Config
	ix := &indexes{
		region:     ids(p, "region", c.Regions, maxRegions, func(r *Region) int32 { return r.ID }),
		cell:       ids(p, "cell", c.Cells, maxCells, func(r *Cell) int32 { return r.ID }),
		area:       ids(p, "area", c.Areas, maxAreas, func(r *Area) int32 { return r.ID }),
		polygon:    ids(p, "polygon", c.Polygons, maxPolygons, func(r *Polygon) int32 { return r.ID }),
		marker:     ids(p, "marker", c.Markers, maxMarkers, func(r *Marker) int32 { return r.ID }),
		proto:      ids(p, "prototype", c.Prototypes, maxPrototypes, func(r *Prototype) int32 { return r.ID }),
		power:      ids(p, "power", c.Powers, maxPowers, func(r *Power) int32 { return r.ID }),
		propSet:    ids(p, "prop-set", c.PropSets, maxPropSets, func(r *PropSet) int32 { return r.ID }),
		population: ids(p, "population", c.Populations, maxPopulations, func(r *Population) int32 { return r.ID }),
		rule:       ids(p, "hotspot-rule", c.Rules, maxRules, func(r *HotspotRule) int32 { return r.ID }),
	}
	names(p, "region", c.Regions, func(r *Region) string { return r.Name })
	names(p, "area", c.Areas, func(r *Area) string { return r.Name })
	names(p, "polygon", c.Polygons, func(r *Polygon) string { return r.Name })
	names(p, "prototype", c.Prototypes, func(r *Prototype) string { return r.Name })
	names(p, "prop-set", c.PropSets, func(r *PropSet) string { return r.Name })
	names(p, "power", c.Powers, func(r *Power) string { return r.Name })

	w.verifyRegions(p, ix)
	w.verifyAreas(p, ix)
	w.verifyPolygons(p, ix)
	w.verifyPrototypes(p, ix)
	w.verifyMarkers(p, ix)
	w.verifyPopulations(p, ix)
	w.verifyRules(p, ix)
	w.verifyPowers(p)
	w.verifyTransitions(p, ix)
	return ix
}

func (w *World) verifyRegions(p *problems, ix *indexes) {
	c := &w.Config
	if len(c.Regions) == 0 {
		p.add("region", -1, "no region")
	}
	for i, r := range c.Regions {
		switch {
		case !box(r.Min, r.Max):
			p.add("region", i, "bounds %v..%v empty or not finite", r.Min, r.Max)
		case !coords(r.Min[0], r.Min[1], r.Max[0], r.Max[1]):
			p.add("region", i, "bounds %v..%v beyond ±%d m", r.Min, r.Max, MaxCoordinate)
		}
	}
	// Cells: inside their region, apart, and together covering it.
	covered := make(map[int32]float64)
	for i, cl := range c.Cells {
		r, ok := lookup(p, "cell", i, "region", c.Regions, ix.region, cl.Region)
		if !ok {
			continue
		}
		hi := cl.Min.Add(cl.Size)
		switch {
		case !(geom.Finite2(cl.Min) && geom.Finite2(cl.Size)) || !(cl.Size[0] > 0 && cl.Size[1] > 0):
			p.add("cell", i, "size %v not positive", cl.Size)
			continue
		case !inside(cl.Min, r.Min, r.Max) || !inside(hi, r.Min, r.Max):
			p.add("cell", i, "cell %v..%v outside region %s %v..%v", cl.Min, hi, r.Name, r.Min, r.Max)
			continue
		}
		for j := 0; j < i; j++ {
			o := c.Cells[j]
			if o.Region == cl.Region && overlap(cl.Min, hi, o.Min, o.Min.Add(o.Size)) {
				p.add("cell", i, "overlaps cell %d (row %d)", o.ID, j)
			}
		}
		covered[cl.Region] += float64(cl.Size[0]) * float64(cl.Size[1])
	}
	for i, r := range c.Regions {
		want := (float64(r.Max[0]) - float64(r.Min[0])) * (float64(r.Max[1]) - float64(r.Min[1]))
		if got := covered[r.ID]; math.Abs(got-want) > 1e-6*want {
			p.add("region", i, "cells cover %g of its %g square metres", got, want)
		}
	}
}

// overlap reports whether two boxes share interior points.
func overlap(alo, ahi, blo, bhi mgl32.Vec2) bool {
	return alo[0] < bhi[0] && blo[0] < ahi[0] && alo[1] < bhi[1] && blo[1] < ahi[1]
}

func (w *World) verifyAreas(p *problems, ix *indexes) {
	c := &w.Config
	for i, a := range c.Areas {
		r, ok := lookup(p, "area", i, "region", c.Regions, ix.region, a.Region)
		if !ok {
			continue
		}
		if !box(a.Min, a.Max) {
			p.add("area", i, "bounds %v..%v empty or not finite", a.Min, a.Max)
			continue
		}
		if !inside(a.Min, r.Min, r.Max) || !inside(a.Max, r.Min, r.Max) {
			p.add("area", i, "bounds %v..%v outside region %s %v..%v", a.Min, a.Max, r.Name, r.Min, r.Max)
			continue
		}
		for j := 0; j < i; j++ {
			o := c.Areas[j]
			if o.Region == a.Region && overlap(a.Min, a.Max, o.Min, o.Max) {
				p.add("area", i, "overlaps area %s (row %d)", o.Name, j)
			}
		}
	}
}

func (w *World) verifyPolygons(p *problems, ix *indexes) {
	c := &w.Config
	for i, pg := range c.Polygons {
		switch {
		case pg.Kind < Walkable || pg.Kind > Portal:
			p.add("polygon", i, "unknown kind %d", pg.Kind)
		case pg.Kind == Footprint && pg.Area != -1:
			p.add("polygon", i, "a footprint belongs to no area (area must be -1, not %d)", pg.Area)
		case pg.Kind != Footprint && !ix.area.has(pg.Area):
			p.add("polygon", i, "unknown area %d", pg.Area)
		}
	}
	// Vertices: in (polygon, seq) order, seq counting from 0.
	ix.ring = make(map[int32][]int, len(c.Polygons))
	if len(c.Vertices) > maxVertexRows {
		p.add("vertex", maxVertexRows, "more than %d vertices", maxVertexRows)
		return
	}
	for i, v := range c.Vertices {
		if !ix.polygon.has(v.Polygon) {
			p.add("vertex", i, "unknown polygon %d", v.Polygon)
			continue
		}
		if !geom.Finite2(v.Pos) {
			p.add("vertex", i, "position not finite")
			continue
		}
		if !coords(v.Pos[0], v.Pos[1]) {
			p.add("vertex", i, "position %v beyond ±%d m", v.Pos, MaxCoordinate)
			continue
		}
		if i > 0 {
			if u := c.Vertices[i-1]; u.Polygon > v.Polygon || u.Polygon == v.Polygon && u.Seq >= v.Seq {
				p.add("vertex", i, "(polygon, seq) = (%d, %d) after (%d, %d): rows must be in increasing order", v.Polygon, v.Seq, u.Polygon, u.Seq)
				continue
			}
		}
		ring := ix.ring[v.Polygon]
		if len(ring) >= maxVertices {
			p.add("vertex", i, "polygon %d has more than %d vertices", v.Polygon, maxVertices)
			continue
		}
		if int(v.Seq) != len(ring) {
			p.add("vertex", i, "polygon %d: seq %d, want %d (vertices of a polygon are listed together, counting from 0)", v.Polygon, v.Seq, len(ring))
			continue
		}
		ix.ring[v.Polygon] = append(ring, i)
	}
	for i, pg := range c.Polygons {
		ring := ix.ring[pg.ID]
		if len(ring) < 3 {
			p.add("polygon", i, "%s has %d vertices: a polygon needs 3 or more", pg.Name, len(ring))
			continue
		}
		pts := make([]mgl32.Vec2, len(ring))
		for k, vi := range ring {
			pts[k] = c.Vertices[vi].Pos
		}
		if a, b, bad := simple(pts); bad != "" {
			row := ring[a]
			if b >= 0 {
				row = ring[max(a, b)]
			}
			p.add("vertex", row, "polygon %s: %s", pg.Name, bad)
			continue
		}
		if ai, ok := ix.area[pg.Area]; ok {
			ar := c.Areas[ai]
			for k, q := range pts {
				if !inside(q, ar.Min, ar.Max) {
					p.add("vertex", ring[k], "polygon %s: point %v outside area %s %v..%v", pg.Name, q, ar.Name, ar.Min, ar.Max)
					break
				}
			}
		}
	}
}

// simple checks that pts is a simple polygon with positive area. On failure it
// returns the indices of the offending vertices (b = -1 when one is enough) and what
// is wrong.
func simple(pts []mgl32.Vec2) (a, b int, bad string) {
	n := len(pts)
	for i := range pts {
		for j := i + 1; j < n; j++ {
			if pts[i] == pts[j] {
				return i, j, "repeated point (the ring must not touch itself; it closes by itself)"
			}
		}
	}
	area := 0.0
	for i := range pts {
		q, r := pts[i], pts[(i+1)%n]
		area += float64(q[0])*float64(r[1]) - float64(r[0])*float64(q[1])
	}
	if math.Abs(area) < 1e-9 {
		return 0, -1, "zero area"
	}
	for i := 0; i < n; i++ {
		a0, a1 := pts[i], pts[(i+1)%n]
		for j := i + 1; j < n; j++ {
			b0, b1 := pts[j], pts[(j+1)%n]
			switch {
			case j == i+1: // share a1 == b0: they must not fold back onto each other
				if orient(a1, a0, b1) == 0 && dot(a0.Sub(a1), b1.Sub(a1)) > 0 {
					return i, j, "edges fold back onto each other"
				}
			case i == 0 && j == n-1: // share a0 == b1
				if orient(a0, a1, b0) == 0 && dot(a1.Sub(a0), b0.Sub(a0)) > 0 {
					return i, j, "edges fold back onto each other"
				}
			default:
				if segmentsMeet(a0, a1, b0, b1) {
					return i, j, "edges cross (the polygon is not simple)"
				}
			}
		}
	}
	return 0, -1, ""
}

func dot(a, b mgl32.Vec2) float64 {
	return float64(a[0])*float64(b[0]) + float64(a[1])*float64(b[1])
}

// orient is the sign of the cross product (b-a)×(c-a), in float64.
func orient(a, b, c mgl32.Vec2) int {
	d := (float64(b[0])-float64(a[0]))*(float64(c[1])-float64(a[1])) -
		(float64(b[1])-float64(a[1]))*(float64(c[0])-float64(a[0]))
	switch {
	case d > 0:
		return 1
	case d < 0:
		return -1
	}
	return 0
}

// segmentsMeet reports whether the closed segments p0p1 and q0q1 share a point.
func segmentsMeet(p0, p1, q0, q1 mgl32.Vec2) bool {
	o1, o2 := orient(p0, p1, q0), orient(p0, p1, q1)
	o3, o4 := orient(q0, q1, p0), orient(q0, q1, p1)
	if o1*o2 < 0 && o3*o4 < 0 {
		return true
	}
	on := func(a, b, c mgl32.Vec2) bool {
		return min(a[0], b[0]) <= c[0] && c[0] <= max(a[0], b[0]) && min(a[1], b[1]) <= c[1] && c[1] <= max(a[1], b[1])
	}
	return o1 == 0 && on(p0, p1, q0) || o2 == 0 && on(p0, p1, q1) || o3 == 0 && on(q0, q1, p0) || o4 == 0 && on(q0, q1, p1)
}

func (w *World) verifyPrototypes(p *problems, ix *indexes) {
	c := &w.Config
	const known = FlagPlayer | FlagNPC | FlagProp | FlagStatic | FlagWander
	for i, pr := range c.Prototypes {
		switch {
		case !geom.Finite(pr.Radius) || !(pr.Radius > 0):
			p.add("prototype", i, "radius %g not positive", pr.Radius)
		case pr.Radius > MaxRadius:
			p.add("prototype", i, "radius %g above %d m", pr.Radius, MaxRadius)
		}
		switch {
		case !geom.Finite(pr.Speed) || pr.Speed < 0:
			p.add("prototype", i, "speed %g negative or not finite", pr.Speed)
		case pr.Speed > MaxSpeed:
			p.add("prototype", i, "speed %g above %d m/s", pr.Speed, MaxSpeed)
		}
		if pr.Collision < CollideNone || pr.Collision > Overlapping {
			p.add("prototype", i, "unknown collision %d", pr.Collision)
		}
		if pr.Flags&^known != 0 {
			p.add("prototype", i, "unknown flags %#x", uint32(pr.Flags&^known))
		}
		if pr.Flags&FlagStatic != 0 && pr.Speed != 0 {
			p.add("prototype", i, "static with speed %g", pr.Speed)
		}
		if pr.Footprint == -1 {
			continue
		}
		pi, ok := ix.polygon[pr.Footprint]
		if !ok {
			p.add("prototype", i, "unknown footprint polygon %d", pr.Footprint)
			continue
		}
		if c.Polygons[pi].Kind != Footprint {
			p.add("prototype", i, "polygon %s is not a footprint", c.Polygons[pi].Name)
			continue
		}
		for _, vi := range ix.ring[pr.Footprint] {
			if q := c.Vertices[vi].Pos; q.Len() > pr.Radius*(1+1e-6) {
				p.add("prototype", i, "footprint point %v lies outside the radius %g", q, pr.Radius)
				break
			}
		}
	}
	for i, ps := range c.PropSets {
		total := int64(0)
		for k := range PropSetSize {
			id, wt := ps.Protos[k], ps.Weights[k]
			switch {
			case id == -1 && wt == 0:
			case id == -1 || wt <= 0:
				p.add("prop-set", i, "slot %d: prototype %d with weight %d (an unused slot is -1 with weight 0)", k, id, wt)
			case !ix.proto.has(id):
				p.add("prop-set", i, "slot %d: unknown prototype %d", k, id)
			case c.Prototypes[ix.proto[id]].Flags&FlagProp == 0:
				p.add("prop-set", i, "slot %d: prototype %s is not a prop", k, c.Prototypes[ix.proto[id]].Name)
			default:
				total += int64(wt)
			}
		}
		if total == 0 {
			p.add("prop-set", i, "no prototype to choose")
		}
	}
}

func (w *World) verifyMarkers(p *problems, ix *indexes) {
	c := &w.Config
	for i, m := range c.Markers {
		ar, ok := lookup(p, "marker", i, "area", c.Areas, ix.area, m.Area)
		if !ok {
			continue
		}
		if !(geom.Finite2(m.Pos) && geom.Finite(m.Radius)) || m.Radius < 0 {
			p.add("marker", i, "position or radius not finite, or radius negative")
			continue
		}
		if m.Radius > MaxMarkerRadius {
			p.add("marker", i, "radius %g above %d m", m.Radius, MaxMarkerRadius)
		}
		if !inside(m.Pos, ar.Min, ar.Max) {
			p.add("marker", i, "position %v outside area %s %v..%v", m.Pos, ar.Name, ar.Min, ar.Max)
		}
		if m.Rot < 0 || m.Rot > 3 {
			p.add("marker", i, "rot %d not in 0..3", m.Rot)
		}
		switch m.Kind {
		case Spawn, Arrival:
		case Prop:
			if !ix.propSet.has(m.PropSet) {
				p.add("marker", i, "prop marker with unknown prop-set %d", m.PropSet)
			}
			continue
		case Blackout, Hotspot:
			if !(m.Radius > 0) {
				p.add("marker", i, "a %s needs a positive radius", markerKindName(m.Kind))
			}
		default:
			p.add("marker", i, "unknown kind %d", m.Kind)
		}
		if m.PropSet != -1 {
			p.add("marker", i, "prop-set %d on a marker that is no prop (use -1)", m.PropSet)
		}
	}
}

func markerKindName(k MarkerKind) string {
	switch k {
	case Spawn:
		return "spawn"
	case Prop:
		return "prop"
	case Blackout:
		return "blackout"
	case Hotspot:
		return "hotspot"
	case Arrival:
		return "arrival"
	}
	return "marker"
}

func (w *World) verifyPopulations(p *problems, ix *indexes) {
	c := &w.Config
	for i, pop := range c.Populations {
		lookup(p, "population", i, "area", c.Areas, ix.area, pop.Area)
		if pr, ok := lookup(p, "population", i, "prototype", c.Prototypes, ix.proto, pop.Prototype); ok && pr.Flags&(FlagPlayer|FlagStatic) != 0 {
			p.add("population", i, "prototype %s is a player or static", pr.Name)
		}
		switch {
		case !geom.Finite(pop.Density) || pop.Density < 0:
			p.add("population", i, "density %g negative or not finite", pop.Density)
		case pop.Density > MaxDensity:
			p.add("population", i, "density %g above %d per 1000 m²", pop.Density, MaxDensity)
		}
	}
}

// verifyRules checks hotspot rules: a hotspot marker, a known prototype (or -1), a
// known trigger and action, and exactly the argument the action needs: a prototype to
// spawn, or a blackout marker of the hotspot's region to toggle.
func (w *World) verifyRules(p *problems, ix *indexes) {
	c := &w.Config
	for i, r := range c.Rules {
		hi, hok := ix.marker[r.Hotspot]
		if !hok || c.Markers[hi].Kind != Hotspot {
			p.add("hotspot-rule", i, "marker %d is not a hotspot", r.Hotspot)
		}
		if r.Prototype != -1 && !ix.proto.has(r.Prototype) {
			p.add("hotspot-rule", i, "unknown prototype %d", r.Prototype)
		}
		if r.On != Enter && r.On != Leave {
			p.add("hotspot-rule", i, "unknown trigger %d", r.On)
		}
		spawn, zone := r.Spawn != -1, r.Zone != -1
		switch r.Action {
		case ActionSpawn:
			if !ix.proto.has(r.Spawn) {
				p.add("hotspot-rule", i, "spawn needs a prototype to spawn, not %d", r.Spawn)
			}
			spawn = false
		case ActionDespawn:
		case ActionToggleBlackout:
			zi, ok := ix.marker[r.Zone]
			switch {
			case !ok || c.Markers[zi].Kind != Blackout:
				p.add("hotspot-rule", i, "toggle-blackout needs a blackout marker, not %d", r.Zone)
			case hok && w.markerRegion(ix, c.Markers[zi]) != w.markerRegion(ix, c.Markers[hi]):
				p.add("hotspot-rule", i, "blackout marker %d is in another region than hotspot %d", r.Zone, r.Hotspot)
			}
			zone = false
		default:
			p.add("hotspot-rule", i, "unknown action %d", r.Action)
			continue
		}
		if spawn {
			p.add("hotspot-rule", i, "spawn %d on an action that spawns nothing (use -1)", r.Spawn)
		}
		if zone {
			p.add("hotspot-rule", i, "zone %d on an action that toggles no blackout (use -1)", r.Zone)
		}
	}
}

// verifyPowers checks the power table: rows only for powers the simulation has (the
// bolt), each with a cooldown of 1..MaxFireCooldown frames.
func (w *World) verifyPowers(p *problems) {
	for i, pw := range w.Config.Powers {
		if pw.ID != PowerBolt {
			p.add("power", i, "unknown power %d (the simulation has power %d, the bolt)", pw.ID, PowerBolt)
		}
		if pw.Cooldown < 1 || pw.Cooldown > MaxFireCooldown {
			p.add("power", i, "cooldown %d not in 1..%d frames", pw.Cooldown, MaxFireCooldown)
		}
	}
}

// markerRegion returns the region of a marker's area, or -1.
func (w *World) markerRegion(ix *indexes, m Marker) int32 {
	if ai, ok := ix.area[m.Area]; ok {
		return w.Config.Areas[ai].Region
	}
	return -1
}
