package world

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/twinframe/twinframe/shared/navi"

	"github.com/twinframe/twinframe/shared/geom"
)

// quarterYaw is the yaw of a prop turned by Marker.Rot quarter turns.
var quarterYaw = [4]float32{0, 1.5707964, 3.1415927, 4.712389}

// turn rotates q by rot quarter turns counter-clockwise (exactly: no trigonometry).
func turn(q mgl32.Vec2, rot int32) mgl32.Vec2 {
	switch rot & 3 {
	case 1:
		return mgl32.Vec2{-q[1], q[0]}
	case 2:
		return mgl32.Vec2{-q[0], -q[1]}
	case 3:
		return mgl32.Vec2{q[1], -q[0]}
	}
	return q
}

// mix is SplitMix64's finaliser: a well-spread hash of x.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// cellAt returns the first cell (in table order) of region that contains p, edges
// included, or nil.
func (c *Config) cellAt(region int32, p mgl32.Vec2) *Cell {
	for i := range c.Cells {
		cl := &c.Cells[i]
		hi := cl.Min.Add(cl.Size)
		if cl.Region == region && inside(p, cl.Min, hi) {
			return cl
		}
	}
	return nil
}

// ChooseProp returns the prototype a prop marker places: a weighted choice from its prop
// set, seeded by the seed of the cell it stands in and the marker id, so that every
// build of the world (server and client) makes the same choice.
func (c *Config) ChooseProp(m *Marker) (proto int32, ok bool) {
	var ps *PropSet
	for i := range c.PropSets {
		if c.PropSets[i].ID == m.PropSet {
			ps = &c.PropSets[i]
		}
	}
	region := int32(-1)
	for _, a := range c.Areas {
		if a.ID == m.Area {
			region = a.Region
		}
	}
	return choose(ps, c.cellAt(region, m.Pos), m)
}

func choose(ps *PropSet, cl *Cell, m *Marker) (proto int32, ok bool) {
	if ps == nil || cl == nil {
		return -1, false
	}
	total := uint64(0)
	for k := range PropSetSize {
		total += uint64(max(ps.Weights[k], 0))
	}
	if total == 0 {
		return -1, false
	}
	r := mix(uint64(cl.Seed)<<32|uint64(uint32(m.ID))) % total
	for k := range PropSetSize {
		if wt := uint64(max(ps.Weights[k], 0)); r < wt {
			return ps.Protos[k], true
		} else {
			r -= wt
		}
	}
	return -1, false // unreachable: r < total
}

// byID maps the ids of rows to the rows.
func byID[R any](rows []R, id func(*R) int32) map[int32]*R {
	m := make(map[int32]*R, len(rows))
	for i := range rows {
		m[id(&rows[i])] = &rows[i]
	}
	return m
}

// InitState replaces the state with the initial state of a verified configuration: one
// static entity per prop marker, at frame 0, each region's numbered in marker order
// from the first id of the region's block (FirstEntityID), rows in id order. Populations
// are topped up by the simulation, not here. It checks that every prop a marker may
// place (any member of its prop set) lies inside the marker's area.
func (w *World) InitState() error {
	p := &problems{w: w}
	c := &w.Config
	protos := byID(c.Prototypes, func(r *Prototype) int32 { return r.ID })
	areas := byID(c.Areas, func(r *Area) int32 { return r.ID })
	sets := byID(c.PropSets, func(r *PropSet) int32 { return r.ID })
	var ents []Entity
	next := map[int32]int64{} // region: the next id of its block
	for i := range c.Markers {
		m := &c.Markers[i]
		if m.Kind != Prop {
			continue
		}
		ar := areas[m.Area]
		if ar == nil {
			p.add("marker", i, "unknown area %d", m.Area)
			continue
		}
		ps := sets[m.PropSet]
		for k := 0; ps != nil && k < PropSetSize; k++ {
			if pr := protos[ps.Protos[k]]; pr != nil && ps.Weights[k] > 0 {
				lo := m.Pos.Sub(mgl32.Vec2{pr.Radius, pr.Radius})
				hi := m.Pos.Add(mgl32.Vec2{pr.Radius, pr.Radius})
				if !inside(lo, ar.Min, ar.Max) || !inside(hi, ar.Min, ar.Max) {
					p.add("marker", i, "prop %s (radius %g) would reach outside area %s", pr.Name, pr.Radius, ar.Name)
				}
			}
		}
		cl := c.cellAt(ar.Region, m.Pos)
		id, ok := choose(ps, cl, m)
		if !ok {
			p.add("marker", i, "no prop to place (prop-set %d, or no cell at %v)", m.PropSet, m.Pos)
			continue
		}
		if _, ok := next[ar.Region]; !ok {
			next[ar.Region] = FirstEntityID(ar.Region)
		}
		ents = append(ents, Entity{
			ID:        next[ar.Region],
			Prototype: id,
			Region:    ar.Region,
			Pos:       m.Pos,
			Yaw:       quarterYaw[m.Rot&3],
			State:     StateStatic,
			Goal:      m.Pos,
			Owner:     -1,
			Seed:      uint32(mix(uint64(cl.Seed) ^ uint64(m.ID)<<32)),
		})
		next[ar.Region]++
	}
	slices.SortStableFunc(ents, func(a, b Entity) int { return cmp.Compare(a.ID, b.ID) })
	if err := p.err(); err != nil {
		return err
	}
	w.Entities, w.Lost, w.Frame = ents, nil, 0
	return nil
}

// Zone is a blackout zone: a circle in which nothing spawns.
type Zone struct {
	Center mgl32.Vec2
	Radius float32
}

// BlackoutZones returns the blackout markers of region's areas, in marker order.
func (w *World) BlackoutZones(region int32) []Zone {
	areas := byID(w.Areas, func(r *Area) int32 { return r.ID })
	var zs []Zone
	for _, m := range w.Markers {
		if a := areas[m.Area]; m.Kind == Blackout && a != nil && a.Region == region {
			zs = append(zs, Zone{m.Pos, m.Radius})
		}
	}
	return zs
}

// source says where polygon i of a region's navi.Geometry comes from.
type source struct {
	polygon int32 // configured polygon id
	entity  int64 // the prop entity whose footprint it is, or -1
}

// Geometry returns the input of navi.Build for region: its bounds; the walkable,
// obstacle and hole polygons of its areas in polygon order; then, in entity order,
// the footprint of every static blocking prop (entities of a prototype with
// FlagStatic, Blocking collision and a footprint), turned and moved into place;
// and its blackout zones as navi zones, so the mesh follows their circles.
func (w *World) Geometry(region int32) (navi.Geometry, error) {
	g, _, err := w.geometry(region)
	return g, err
}

// ErrNoRegion is returned for a region id the world does not have.
var ErrNoRegion = errors.New("world: no such region")

func (w *World) geometry(region int32) (navi.Geometry, []source, error) {
	var g navi.Geometry
	var srcs []source
	found := false
	for _, r := range w.Regions {
		if r.ID == region {
			g.Bounds, found = geom.AABB{Min: r.Min, Max: r.Max}, true
		}
	}
	if !found {
		return g, nil, fmt.Errorf("%w: %d", ErrNoRegion, region)
	}
	rings := make(map[int32][]mgl32.Vec2, len(w.Polygons))
	for _, v := range w.Vertices {
		rings[v.Polygon] = append(rings[v.Polygon], v.Pos)
	}
	kinds := map[PolygonKind]navi.Kind{Walkable: navi.Walkable, Obstacle: navi.Obstacle, Hole: navi.Hole}
	areas := byID(w.Areas, func(r *Area) int32 { return r.ID })
	for _, pg := range w.Polygons {
		if k, ok := kinds[pg.Kind]; ok && areas[pg.Area] != nil && areas[pg.Area].Region == region {
			g.Polygons = append(g.Polygons, navi.Polygon{Kind: k, Points: rings[pg.ID]})
			srcs = append(srcs, source{pg.ID, -1})
		}
	}
	protos := byID(w.Prototypes, func(r *Prototype) int32 { return r.ID })
	for _, e := range w.Entities {
		pr := protos[e.Prototype]
		if e.Region != region || pr == nil || pr.Footprint < 0 || pr.Collision != Blocking || pr.Flags&FlagStatic == 0 {
			continue
		}
		rot := int32(0)
		for k, y := range quarterYaw {
			if e.Yaw == y {
				rot = int32(k)
			}
		}
		ring := rings[pr.Footprint]
		pts := make([]mgl32.Vec2, len(ring))
		for k, q := range ring {
			pts[k] = turn(q, rot).Add(e.Pos)
		}
		g.Polygons = append(g.Polygons, navi.Polygon{Kind: navi.Obstacle, Points: pts})
		srcs = append(srcs, source{pr.Footprint, e.ID})
	}
	for _, z := range w.BlackoutZones(region) {
		g.Zones = append(g.Zones, geom.Circle{Center: z.Center, Radius: z.Radius})
	}
	return g, srcs, nil
}

// BuildMesh builds region's navigation mesh (navi.Build of Geometry) and adds its
// blackout zones (BlackoutZones). When navi refuses a polygon, the error names the
// configured polygon, and the file and line of the vertex at fault when the world was
// loaded from files; any other refusal names the region and the line of its row.
func (w *World) BuildMesh(region int32, opt *navi.Options) (*navi.Mesh, error) {
	g, srcs, err := w.geometry(region)
	if err != nil {
		return nil, err
	}
	m, err := navi.Build(g, opt)
	if err == nil {
		for _, z := range w.BlackoutZones(region) {
			m.AddBlackOutZone(z.Center, z.Radius)
		}
		return m, nil
	}
	var ie *navi.InputError
	if !errors.As(err, &ie) || ie.Polygon < 0 || ie.Polygon >= len(srcs) {
		// Not one polygon's fault (bounds, too many crossing walls): the region's.
		e := &Error{Table: "region", Row: -1, Err: err}
		for i, r := range w.Regions {
			if r.ID == region {
				e.Row = i
				e.Err = fmt.Errorf("region %s: %w", r.Name, err)
			}
		}
		if pos, ok := w.pos(e.Table, e.Row); ok {
			e.File, e.Line = pos.File, pos.Line
		}
		return nil, e
	}
	s := srcs[ie.Polygon]
	e := &Error{Table: "polygon", Row: -1, Err: err}
	for i, pg := range w.Polygons {
		if pg.ID == s.polygon {
			e.Row = i
			e.Err = fmt.Errorf("polygon %s: %w", pg.Name, err)
			if s.entity >= 0 {
				e.Err = fmt.Errorf("footprint %s of prop entity %d: %w", pg.Name, s.entity, err)
			}
		}
	}
	if pos, ok := w.pos(e.Table, e.Row); ok {
		e.File, e.Line = pos.File, pos.Line
	}
	if ie.Vertex >= 0 && s.entity < 0 {
		seen := 0
		for i, v := range w.Vertices {
			if v.Polygon == s.polygon {
				if seen == ie.Vertex {
					if pos, ok := w.pos("vertex", i); ok {
						e.Table, e.Row, e.File, e.Line = "vertex", i, pos.File, pos.Line
					}
				}
				seen++
			}
		}
	}
	return nil, e
}
