package sim

import (
	"fmt"
	"iter"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/geom"
	"github.com/twinframe/twinframe/shared/navi"
	"github.com/twinframe/twinframe/shared/world"
)

// Region is one region of the game: its navigation mesh, the walls physics sweeps
// against, its areas (populations, hotspots) and its blackout zones.
type Region struct {
	id     int32
	name   string
	bounds geom.AABB
	mesh   *navi.Mesh
	query  *navi.Query
	path   navi.Path
	walls  wallGrid
	grid   entGrid
	areas  []area
	zones  []zone
	spawns []mgl32.Vec2 // spawn markers
	// portals are the transitions of its areas, in table order.
	portals []portal
	perm    []int32 // spawn-grid shuffle scratch
	cells   []cell
	// spawnDirty says the cells' spawnable areas are stale (a blackout zone changed).
	spawnDirty bool
}

// cell is a world cell of the region with its spawnable area (walkable, not blacked
// out), and the spawnable area of each of its parts in an area.
type cell struct {
	id        int32
	box       geom.AABB
	spawnable float32
	parts     []cellPart
}

// cellPart is where a cell and an area overlap.
type cellPart struct {
	area      int32
	box       geom.AABB
	spawnable float32
}

type area struct {
	id       int32
	name     string
	min, max mgl32.Vec2
	pops     []world.Population
	hotspots []hotspot
}

// hotspot is a hotspot marker: a place wanderers walk to and an overlap volume that
// rules watch.
type hotspot struct {
	marker int32
	center mgl32.Vec2
	radius float32
	inside []EntityID // entities whose centre is inside, sorted, at the end of the last frame
	next   []EntityID
}

type zone struct {
	marker int32
	center mgl32.Vec2
	radius float32
	on     bool
	id     navi.BlackOutZoneID
}

// ID returns the region's id.
func (r *Region) ID() int32 { return r.id }

// Name returns the region's name.
func (r *Region) Name() string { return r.name }

// Mesh returns the region's navigation mesh.
func (r *Region) Mesh() *navi.Mesh { return r.mesh }

func newRegion(w *world.World, wr *world.Region) (*Region, error) {
	m, err := w.BuildMesh(wr.ID, nil)
	if err != nil {
		return nil, err
	}
	r := &Region{id: wr.ID, name: wr.Name, bounds: geom.AABB{Min: wr.Min, Max: wr.Max}, mesh: m, query: navi.NewQuery(m)}
	var ids []navi.BlackOutZoneID
	m.BlackOutZones(func(id navi.BlackOutZoneID, _ mgl32.Vec2, _ float32) { ids = append(ids, id) })
	for i := range w.Areas {
		wa := &w.Areas[i]
		if wa.Region != wr.ID {
			continue
		}
		a := area{id: wa.ID, name: wa.Name, min: wa.Min, max: wa.Max}
		for _, p := range w.Populations {
			if p.Area == wa.ID {
				a.pops = append(a.pops, p)
			}
		}
		r.areas = append(r.areas, a)
	}
	for _, mk := range w.Markers {
		a := r.area(mk.Area)
		if a == nil {
			continue
		}
		switch mk.Kind {
		case world.Blackout:
			z := zone{marker: mk.ID, center: mk.Pos, radius: mk.Radius, on: true}
			if n := len(r.zones); n < len(ids) {
				z.id = ids[n]
			}
			r.zones = append(r.zones, z)
		case world.Hotspot:
			a.hotspots = append(a.hotspots, hotspot{marker: mk.ID, center: mk.Pos, radius: mk.Radius})
		case world.Spawn:
			r.spawns = append(r.spawns, mk.Pos)
		}
	}
	for _, wc := range w.Cells {
		if wc.Region != wr.ID {
			continue
		}
		c := cell{id: wc.ID, box: geom.AABB{Min: wc.Min, Max: geom.Add(wc.Min, wc.Size)}}
		for _, a := range r.areas {
			lo := mgl32.Vec2{max(c.box.Min[0], a.min[0]), max(c.box.Min[1], a.min[1])}
			hi := mgl32.Vec2{min(c.box.Max[0], a.max[0]), min(c.box.Max[1], a.max[1])}
			if lo[0] < hi[0] && lo[1] < hi[1] {
				c.parts = append(c.parts, cellPart{area: a.id, box: geom.AABB{Min: lo, Max: hi}})
			}
		}
		r.cells = append(r.cells, c)
	}
	r.portals = newPortals(w, r)
	r.spawnDirty = true
	if len(ids) != len(r.zones) {
		return nil, fmt.Errorf("%w: %d blackout zones in the mesh, %d markers", ErrWorld, len(ids), len(r.zones))
	}
	r.walls.build(m, 4)
	r.grid.init(r.bounds, 1)
	return r, nil
}

func (r *Region) area(id int32) *area {
	for i := range r.areas {
		if r.areas[i].id == id {
			return &r.areas[i]
		}
	}
	return nil
}

func (r *Region) areaOf(p mgl32.Vec2) *area {
	for i := range r.areas {
		a := &r.areas[i]
		if p[0] >= a.min[0] && p[1] >= a.min[1] && p[0] <= a.max[0] && p[1] <= a.max[1] {
			return a
		}
	}
	return nil
}

// updateSpawnable recomputes the spawnable area of every cell and cell part when a
// blackout zone changed since the last time.
func (r *Region) updateSpawnable() {
	if !r.spawnDirty {
		return
	}
	for i := range r.cells {
		c := &r.cells[i]
		c.spawnable = r.mesh.SpawnableArea(c.box)
		for k := range c.parts {
			c.parts[k].spawnable = r.mesh.SpawnableArea(c.parts[k].box)
		}
	}
	r.spawnDirty = false
}

// CellSpawnableArea returns the spawnable area (walkable, not blacked out, in square
// metres) of the region's cell with id, and whether the region has that cell.
func (r *Region) CellSpawnableArea(id int32) (float32, bool) {
	r.updateSpawnable()
	for i := range r.cells {
		if r.cells[i].id == id {
			return r.cells[i].spawnable, true
		}
	}
	return 0, false
}

// areaSpawnable returns the spawnable area of an area: the sum over the cells of their
// parts in it, in cell order.
func (r *Region) areaSpawnable(areaID int32) float32 {
	r.updateSpawnable()
	var sum float32
	for i := range r.cells {
		for _, p := range r.cells[i].parts {
			if p.area == areaID {
				sum += p.spawnable
			}
		}
	}
	return sum
}

// SpawnPoints returns the region's spawn markers (where players appear).
func (r *Region) SpawnPoints() []mgl32.Vec2 { return r.spawns }

// setZone turns the blackout zone of a marker on or off; it reports whether the marker
// names a zone of r.
func (r *Region) setZone(marker int32, on bool) bool {
	for i := range r.zones {
		z := &r.zones[i]
		if z.marker != marker {
			continue
		}
		if z.on != on {
			if on {
				z.id = r.mesh.AddBlackOutZone(z.center, z.radius)
			} else {
				r.mesh.RemoveBlackOutZone(z.id)
				z.id = navi.BlackOutZoneID{}
			}
			z.on = on
			r.spawnDirty = true
		}
		return true
	}
	return false
}

// cells is a uniform grid over a region's bounds.
type cells struct {
	min    mgl32.Vec2
	inv    float32 // 1 / cell size
	nx, ny int32
	lastX  float32 // float32(nx-1), float32(ny-1): converted once, not per lookup
	lastY  float32
}

func (c *cells) init(b geom.AABB, size float32) {
	c.min = b.Min
	c.inv = 1 / size
	c.nx = max(1, int32((b.Max[0]-b.Min[0])*c.inv)+1)
	c.ny = max(1, int32((b.Max[1]-b.Min[1])*c.inv)+1)
	c.lastX, c.lastY = float32(c.nx-1), float32(c.ny-1)
}

// coord returns the cell index of v along an axis starting at lo whose last cell is
// last, clamping outside values (and NaN) to the grid.
func (c *cells) coord(v, lo, last float32) int32 {
	f := float32((v - lo) * c.inv)
	if !(f >= 0) { // also NaN
		return 0
	}
	if f >= last {
		return int32(last)
	}
	return int32(f)
}

// xy returns the column and row of the cell of p; it inlines (span does not), so the
// per-entity loops call it.
func (c *cells) xy(p mgl32.Vec2) (x, y int32) {
	return c.coord(p[0], c.min[0], c.lastX), c.coord(p[1], c.min[1], c.lastY)
}

// span returns the cell ranges covering the box [lo, hi].
func (c *cells) span(lo, hi mgl32.Vec2) (x0, y0, x1, y1 int32) {
	x0, y0 = c.xy(lo)
	x1, y1 = c.xy(hi)
	return x0, y0, x1, y1
}

// wallGrid holds the blocking edges of a mesh (edges between walkable and unwalkable
// triangles, and walkable edges on the bounds), bucketed in a grid. Each cell holds
// copies of its edges' records (cells[start[c]:start[c+1]]), so a sweep reads one
// contiguous run per cell.
type wallGrid struct {
	cells
	start []int32
	items []wallSeg
	segs  []geom.Segment
	clr   clearance
}

// wallSeg is a blocking edge as a cell holds it: its box, the unit normal n and offset
// off of its line (dot(n, p) - off is the signed distance of p), for cheap rejection.
type wallSeg struct {
	lo, hi mgl32.Vec2
	n      mgl32.Vec2
	off    float32
	si     int32 // index in segs: ties go to the lower one
	seg    geom.Segment
}

// wallSlack widens the line-distance rejection of a wall sweep well beyond float32
// rounding, so that it never drops an edge the exact sweep would report.
const wallSlack float32 = 0.01

func (w *wallGrid) build(m *navi.Mesh, size float32) {
	w.init(m.Bounds(), size)
	vs, ts := m.Vertices(), m.Triangles()
	for _, t := range ts {
		if t.Flags&walkFlags == 0 {
			continue
		}
		for k := range 3 {
			n := t.N[k]
			if n >= 0 && ts[n].Flags&walkFlags != 0 {
				continue
			}
			w.segs = append(w.segs, geom.Segment{A: vs[t.V[k]], B: vs[t.V[(k+1)%3]]})
		}
	}
	nc := w.nx * w.ny
	count := make([]int32, nc+1)
	each := func(fn func(c int32, si int32)) {
		for si, s := range w.segs {
			x0, y0, x1, y1 := w.span(mgl32.Vec2{min(s.A[0], s.B[0]), min(s.A[1], s.B[1])},
				mgl32.Vec2{max(s.A[0], s.B[0]), max(s.A[1], s.B[1])})
			for y := y0; y <= y1; y++ {
				for x := x0; x <= x1; x++ {
					fn(y*w.nx+x, int32(si))
				}
			}
		}
	}
	each(func(c, _ int32) { count[c+1]++ })
	for i := int32(1); i <= nc; i++ {
		count[i] += count[i-1]
	}
	w.start = count
	w.items = make([]wallSeg, count[nc])
	fill := make([]int32, nc)
	each(func(c, si int32) {
		s := w.segs[si]
		ws := wallSeg{
			lo:  mgl32.Vec2{min(s.A[0], s.B[0]), min(s.A[1], s.B[1])},
			hi:  mgl32.Vec2{max(s.A[0], s.B[0]), max(s.A[1], s.B[1])},
			si:  si,
			seg: s,
		}
		if n, l := geom.Unit(mgl32.Vec2{s.A[1] - s.B[1], s.B[0] - s.A[0]}); l > 0 {
			ws.n, ws.off = n, geom.Dot(n, s.A)
		}
		w.items[w.start[c]+fill[c]] = ws
		fill[c]++
	})
	w.clr.build(m.Bounds(), w.segs)
}

// within yields the edges of the cells the box [lo, hi] touches whose own boxes meet
// it, cell by cell in row order (an edge crossing several cells comes once per cell);
// the cells x0..x1 of a row are one run of items.
func (w *wallGrid) within(lo, hi mgl32.Vec2) iter.Seq[*wallSeg] {
	return func(yield func(*wallSeg) bool) {
		x0, y0, x1, y1 := w.span(lo, hi)
		for y := y0; y <= y1; y++ {
			row := y * w.nx
			for k := w.start[row+x0]; k < w.start[row+x1+1]; k++ {
				s := &w.items[k]
				if s.hi[0] < lo[0] || s.lo[0] > hi[0] || s.hi[1] < lo[1] || s.lo[1] > hi[1] {
					continue
				}
				if !yield(s) {
					return
				}
			}
		}
	}
}

// sweep moves circle c by motion against the walls and returns the first contact whose
// normal opposes the motion (a disc already touching a wall may move away from it).
// Ties go to the lower segment index.
func (w *wallGrid) sweep(c geom.Circle, motion mgl32.Vec2) (geom.Hit, bool) {
	// |x| + |y| ≥ |motion|: no edge within the radius of the motion's path.
	if (motion[0] == 0 && motion[1] == 0) || !w.near(c.Center, c.Radius+abs32(motion[0])+abs32(motion[1])) {
		return geom.Hit{}, false
	}
	return w.sweepEdges(c, motion)
}

// near reports whether a blocking edge may come within d of p (the clearance field
// cannot rule it out); it inlines.
func (w *wallGrid) near(p mgl32.Vec2, d float32) bool {
	return !w.clr.beyond(p, d+wallSlack)
}

// sweepEdges is sweep on the edges of the cells the motion's box touches.
func (w *wallGrid) sweepEdges(c geom.Circle, motion mgl32.Vec2) (geom.Hit, bool) {
	end := geom.Add(c.Center, motion)
	lo, hi := geom.Sub(lo2(c.Center, end), vec(c.Radius)), geom.Add(hi2(c.Center, end), vec(c.Radius))
	reach := c.Radius + wallSlack
	best, bestSeg, found := geom.Hit{}, int32(-1), false
	for s := range w.within(lo, hi) {
		// Both ends of the motion farther than the radius on the same side of the
		// edge's line: no contact.
		d0 := geom.Dot(s.n, c.Center) - s.off
		d1 := geom.Dot(s.n, end) - s.off
		if (d0 > reach && d1 > reach) || (d0 < -reach && d1 < -reach) {
			continue
		}
		h, ok := geom.SweepCircleSegment(c, motion, s.seg)
		if !ok || geom.Dot(h.Normal, motion) >= 0 {
			continue
		}
		if !found || h.T < best.T || (h.T == best.T && s.si < bestSeg) {
			best, bestSeg, found = h, s.si, true
		}
	}
	return best, found
}

// clear reports whether no blocking edge comes within r of p. Near a path's corners,
// which are on walkable ground, this says the disc is walkable without locating p in
// the mesh.
func (w *wallGrid) clear(p mgl32.Vec2, r float32) bool {
	if !w.near(p, r) {
		return true
	}
	lo, hi := geom.Sub(p, vec(r)), geom.Add(p, vec(r))
	for s := range w.within(lo, hi) {
		if d := geom.Dot(s.n, p) - s.off; d > r+wallSlack || d < -(r+wallSlack) {
			continue
		}
		q, _ := geom.ClosestPointOnSegment(p, s.seg)
		if geom.LenSq(geom.Sub(q, p)) < float32(r*r) {
			return false
		}
	}
	return true
}
