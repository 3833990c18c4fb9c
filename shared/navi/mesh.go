package navi

import (
	"cmp"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/twinframe/twinframe/shared/geom"
)

// Triangle is one triangle of a Mesh.
type Triangle struct {
	// V are the vertex indices, counter-clockwise.
	V [3]int32
	// N[i] is the triangle across edge V[i]→V[(i+1)%3], or -1 on the bounds.
	N [3]int32
	// Flags say what the triangle allows.
	Flags Flags
	// Constraint has bit i set when edge i comes from an input polygon or
	// a Geometry zone (whose edges change no content).
	Constraint uint8
}

// Mesh is a navigation mesh: a constrained Delaunay triangulation of a
// region with per-triangle flags. Queries do not modify it; blackout zones
// do (AddBlackOutZone, RemoveBlackOutZone), so do not run them concurrently
// with queries.
type Mesh struct {
	bounds     geom.AABB
	verts      []mgl32.Vec2
	tris       []Triangle
	delta      [][3]content // content change crossing each edge outward
	count      []content    // polygons of each kind covering each triangle
	width      [][3]float32 // walking clearance through the corner at V[k]
	elen       [][3]float32 // edge lengths
	nav        []navTri
	corner     []bool     // vertex touches an edge that blocks walking
	vwall      []vertWall // a hash table by position (see vertWall)
	vwallShift uint
	grid       []int32
	gridW      int
	gridH      int
	cell       float32
	zones      []zone
}

// Bounds returns the region bounds the mesh covers.
func (m *Mesh) Bounds() geom.AABB { return m.bounds }

// Vertices returns the mesh vertices. The slice must not be modified.
func (m *Mesh) Vertices() []mgl32.Vec2 { return m.verts }

// Triangles returns the mesh triangles. The slice must not be modified.
func (m *Mesh) Triangles() []Triangle { return m.tris }

// Build triangulates g.
//
// Repairs, rather than errors: points closer than Options.MergeTolerance are
// merged (consecutive ones within a polygon collapse to one; an explicitly
// repeated closing point is dropped); clockwise polygons are reversed;
// duplicate and overlapping polygons simply add up; and constraint edges of
// different polygons that cross or overlap are split at their intersections
// (rounded to float32; an intersection within the merge tolerance of one of
// the two edges' end points is merged into it, which bends the other edge by
// at most the tolerance there). Everything else that is wrong (a non-finite
// coordinate, a point outside the bounds, fewer than three distinct points,
// zero area, a polygon that touches or crosses itself) is an *InputError
// naming the polygon and vertex.
func Build(g Geometry, opt *Options) (*Mesh, error) {
	var o Options
	if opt != nil {
		o = *opt
	}
	bd := g.Bounds
	for _, v := range []float32{bd.Min[0], bd.Min[1], bd.Max[0], bd.Max[1]} {
		if !geom.Finite(v) {
			return nil, ErrBounds
		}
	}
	if !(bd.Min[0] < bd.Max[0] && bd.Min[1] < bd.Max[1]) {
		return nil, ErrBounds
	}
	tol := float64(o.MergeTolerance)
	if !(tol > 0) || math.IsInf(tol, 0) {
		tol = 1e-3
	}
	total := 0
	for _, p := range g.Polygons {
		total += len(p.Points)
	}
	b := &builder{bounds: bd, tol: tol, hash: make(map[[2]int64][]int32, total+4)}
	b.maxStei = o.MaxSteinerPoints
	if b.maxStei <= 0 {
		b.maxStei = 4*total + 1024
	}
	b.pts = make([]vec2, 0, total+4)
	b.tris = make([]btri, 0, 2*total+8)
	b.initBounds()
	type ring struct {
		kind Kind
		ids  []int32
	}
	rings := make([]ring, 0, len(g.Polygons))
	for pi, p := range g.Polygons {
		ids, err := b.cleanPolygon(pi, p)
		if err != nil {
			return nil, err
		}
		rings = append(rings, ring{p.Kind, ids})
	}
	zoneSegs := b.zoneSegments(g.Zones)
	for id := int32(4); id < int32(len(b.pts)); id++ {
		if err := b.insertVertex(id); err != nil {
			return nil, err
		}
	}
	// The work list is a stack: zone edges go in last, below the polygons,
	// so the polygons are inserted as they would be without zones.
	b.work = append(b.work, zoneSegs...)
	for ri := len(rings) - 1; ri >= 0; ri-- {
		r := rings[ri]
		var d content
		d[r.kind-1] = 1
		for i := len(r.ids) - 1; i >= 0; i-- {
			b.work = append(b.work, segment{r.ids[i], r.ids[(i+1)%len(r.ids)], d})
		}
	}
	if err := b.insertSegments(); err != nil {
		return nil, err
	}
	m := b.finish(o.GridCell)
	if m == nil {
		return nil, ErrInternal
	}
	return m, nil
}

func (b *builder) finish(gridCell float32) *Mesh {
	m := &Mesh{bounds: b.bounds}
	m.verts = make([]mgl32.Vec2, len(b.pts))
	for i, p := range b.pts {
		m.verts[i] = mgl32.Vec2{float32(p.x), float32(p.y)}
	}
	n := len(b.tris)
	m.tris = make([]Triangle, n)
	m.delta = make([][3]content, n)
	// Number triangles along a Morton curve of their centroids, so that
	// neighbours are mostly close in memory (queries walk neighbours).
	order, inv := b.mortonOrder(), make([]int32, n)
	for newI, old := range order {
		inv[old] = int32(newI)
	}
	for newI, old := range order {
		t := &b.tris[old]
		tr := Triangle{V: t.v, N: t.n, Constraint: t.con}
		for k := 0; k < 3; k++ {
			if tr.N[k] >= 0 {
				tr.N[k] = inv[tr.N[k]]
			}
		}
		m.tris[newI] = tr
		m.delta[newI] = t.d
	}
	if !m.flood() {
		return nil
	}
	m.computeClearance()
	m.computeVertWalls()
	m.buildGrid(gridCell)
	return m
}

// mortonOrder returns the triangle indices sorted by the Morton code of
// their centroids (ties by index, so the order is deterministic).
func (b *builder) mortonOrder() []int32 {
	type key struct {
		code uint64
		t    int32
	}
	ext := [2]float64{float64(b.bounds.Max[0] - b.bounds.Min[0]), float64(b.bounds.Max[1] - b.bounds.Min[1])}
	keys := make([]key, len(b.tris))
	for i := range b.tris {
		v := &b.tris[i].v
		var q [2]uint64
		for a := 0; a < 2; a++ {
			c := (b.pts[v[0]].coord(a) + b.pts[v[1]].coord(a) + b.pts[v[2]].coord(a)) / 3
			f := (c - float64(b.bounds.Min[a])) / ext[a]
			q[a] = uint64(math.Min(math.Max(f, 0), 1) * 65535)
		}
		keys[i] = key{spread(q[0]) | spread(q[1])<<1, int32(i)}
	}
	slices.SortFunc(keys, func(x, y key) int { return cmp.Or(cmp.Compare(x.code, y.code), cmp.Compare(x.t, y.t)) })
	out := make([]int32, len(keys))
	for i, k := range keys {
		out[i] = k.t
	}
	return out
}

// spread interleaves zero bits between the low 16 bits of x.
func spread(x uint64) uint64 {
	x &= 0xffff
	x = (x | x<<8) & 0x00ff00ff
	x = (x | x<<4) & 0x0f0f0f0f
	x = (x | x<<2) & 0x33333333
	x = (x | x<<1) & 0x55555555
	return x
}

func (p vec2) coord(a int) float64 {
	if a == 0 {
		return p.x
	}
	return p.y
}

// flood computes the per-triangle content counts by a breadth-first fill
// from the outside of the bounds across edges, each crossing adding the
// edge's content change, and derives the flags.
func (m *Mesh) flood() bool {
	n := len(m.tris)
	m.count = make([]content, n)
	seen := make([]bool, n)
	queue := make([]int32, 0, n)
	for t := range m.tris {
		for i := 0; i < 3; i++ {
			if m.tris[t].N[i] < 0 && !seen[t] {
				// Entering from outside (count zero) across a hull edge.
				m.count[t] = m.delta[t][i].neg()
				seen[t] = true
				queue = append(queue, int32(t))
				break
			}
		}
		if len(queue) > 0 {
			break
		}
	}
	for h := 0; h < len(queue); h++ {
		t := queue[h]
		for i := 0; i < 3; i++ {
			u := m.tris[t].N[i]
			if u < 0 || seen[u] {
				continue
			}
			seen[u] = true
			m.count[u] = m.count[t].add(m.delta[t][i])
			queue = append(queue, u)
		}
	}
	if len(queue) != n {
		return false
	}
	for t := range m.tris {
		m.tris[t].Flags = flagsOf(m.count[t])
	}
	return true
}

func flagsOf(c content) Flags {
	var f Flags
	if c[Obstacle-1] <= 0 {
		f |= Sight
		if c[Walkable-1] > 0 && c[Hole-1] <= 0 {
			f |= Walk
		}
	}
	return f
}

// blocks reports whether edge i of t blocks movement for triangles with
// flags want: the bounds, or a neighbour lacking them.
func (m *Mesh) blocks(t int32, i int, want Flags) bool {
	u := m.tris[t].N[i]
	return u < 0 || m.tris[u].Flags&want != want
}

func (m *Mesh) buildGrid(cell float32) {
	ext := m.bounds.Max.Sub(m.bounds.Min)
	if !(cell > 0) {
		area := float64(ext[0]) * float64(ext[1])
		cell = float32(math.Sqrt(area * 8 / float64(len(m.tris)+1)))
	}
	w := int(math.Ceil(float64(ext[0]/cell))) + 1
	h := int(math.Ceil(float64(ext[1]/cell))) + 1
	for w*h > 4*len(m.tris)+64 { // never more cells than needed
		cell *= 1.5
		w = int(math.Ceil(float64(ext[0]/cell))) + 1
		h = int(math.Ceil(float64(ext[1]/cell))) + 1
	}
	m.cell, m.gridW, m.gridH = cell, w, h
	m.grid = make([]int32, w*h)
	t := int32(0)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := mgl32.Vec2{m.bounds.Min[0] + float32((float32(x)+0.5)*cell), m.bounds.Min[1] + float32((float32(y)+0.5)*cell)}
			c[0] = min(c[0], m.bounds.Max[0])
			c[1] = min(c[1], m.bounds.Max[1])
			if r := m.walkTo(t, c, len(m.tris)+8); r >= 0 {
				t = r
			}
			m.grid[y*w+x] = t
		}
	}
}

func v64(p mgl32.Vec2) vec2 { return vec2{float64(p[0]), float64(p[1])} }

// walkTo walks from triangle t toward p and returns the triangle containing
// p, or -1 when p is outside the mesh or the walk exceeds limit steps.
func (m *Mesh) walkTo(t int32, p mgl32.Vec2, limit int) int32 {
	q := v64(p)
	start := 0
	for step := 0; step < limit; step++ {
		tr := &m.nav[t] // the packed record: vertices inline
		moved := false
		for k := 0; k < 3; k++ {
			i := (start + k) % 3
			if orient(v64(tr.p[i]), v64(tr.p[nextTab[i]]), q) < 0 {
				if tr.n[i] < 0 {
					return -1
				}
				t = tr.n[i]
				moved = true
				break
			}
		}
		if !moved {
			return t
		}
		start = (start + 1) % 3
	}
	return -1
}

// Locate returns the index of the triangle containing p, or -1 when p is
// outside the bounds or not finite. Points on an edge belong to either side.
func (m *Mesh) Locate(p mgl32.Vec2) int32 {
	if !geom.Finite(p[0]) || !geom.Finite(p[1]) || p[0] < m.bounds.Min[0] || p[1] < m.bounds.Min[1] ||
		p[0] > m.bounds.Max[0] || p[1] > m.bounds.Max[1] {
		return -1
	}
	x := int((p[0] - m.bounds.Min[0]) / m.cell)
	y := int((p[1] - m.bounds.Min[1]) / m.cell)
	x = max(0, min(x, m.gridW-1))
	y = max(0, min(y, m.gridH-1))
	if t := m.walkTo(m.grid[y*m.gridW+x], p, 4*(m.gridW+m.gridH)+64); t >= 0 {
		return t
	}
	// Bounded fallback: a full walk from the hint, then a scan.
	if t := m.walkTo(m.grid[y*m.gridW+x], p, len(m.tris)+8); t >= 0 {
		return t
	}
	return m.scan(p)
}

func (m *Mesh) scan(p mgl32.Vec2) int32 {
	q := v64(p)
	for t := range m.tris {
		tr := &m.tris[t]
		if orient(v64(m.verts[tr.V[0]]), v64(m.verts[tr.V[1]]), q) >= 0 &&
			orient(v64(m.verts[tr.V[1]]), v64(m.verts[tr.V[2]]), q) >= 0 &&
			orient(v64(m.verts[tr.V[2]]), v64(m.verts[tr.V[0]]), q) >= 0 {
			return int32(t)
		}
	}
	return -1
}

// FlagsAt returns the flags of the triangle containing p (0 outside the mesh).
func (m *Mesh) FlagsAt(p mgl32.Vec2) Flags {
	if t := m.Locate(p); t >= 0 {
		return m.tris[t].Flags
	}
	return 0
}
