package navi

import (
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/twinframe/twinframe/shared/geom"
)

// Query holds the scratch space of path, sweep and search queries on one
// Mesh. Reusing a Query makes queries allocation-free after the first few.
// A Query is not safe for concurrent use; use one per goroutine.
type Query struct {
	m *Mesh

	// Limits. Zero values mean the defaults.
	// MaxSearchNodes caps the triangles a path search expands (default 4096).
	MaxSearchNodes int
	// MaxPathPoints caps the corners of a path (default 256).
	MaxPathPoints int
	// SnapDistance is how far FindPath looks for walkable ground around an
	// unwalkable start or goal (default 64 world units).
	SnapDistance float32

	gen       uint32
	stamp     []uint32 // == gen: node touched in this search
	nodes     []node
	heap      []heapItem
	portals   []portalPair // the path's portals: a window of portalBuf
	ends      []portalEnds // and of endBuf
	portalBuf []portalPair
	endBuf    []portalEnds
	corners   []corner
	legs      []leg
	queue     []int32
}

// node is the path search state of one triangle, in 16 bytes (four to a
// cache line: the search is bound by memory more than by arithmetic).
type node struct {
	tag uint32 // Query.gen<<2 | entry+1: touched in this search, and the
	// edge the search entered by (-1 at the start); the parent is the
	// neighbour across it
	b   float32 // see search: g (the length to pos) + |pos goal|
	pos xy
}

// maxGen is the first generation that does not fit node.tag.
const maxGen = 1 << 30

func nodeTag(gen uint32, entry int) uint32 { return gen<<2 | uint32(entry+1) }

func (n *node) entry() int { return int(n.tag&3) - 1 }

// heapItem is an entry of the search heap. key orders entries by f, then
// by triangle index (ties break deterministically): f is never negative,
// so the bits of f order like f. The triangle is also kept apart from the
// key (in what would be padding): read from there, the next expansion's
// loads do not wait for f (its square roots and division), so the CPU can
// start them while it still computes f. b and t share one word: written as
// two 4-byte stores, a word the heap then copies with an 8-byte load (pop
// takes the last item, often the one just pushed) cannot be forwarded
// from them, and the load waits until they reach the cache.
type heapItem struct {
	key uint64 // Float32bits(f)<<32 | t
	bt  uint64 // Float32bits(b) | t<<32
}

func mkItem(f, b float32, t int32) heapItem {
	return heapItem{uint64(math.Float32bits(f))<<32 | uint64(uint32(t)), uint64(math.Float32bits(b)) | uint64(uint32(t))<<32}
}

// b is the item's b (see search): stale when the node's has changed.
func (it heapItem) b() float32 { return math.Float32frombits(uint32(it.bt)) }

// t is the item's triangle.
func (it heapItem) t() int32 { return int32(it.bt >> 32) }

func (it heapItem) f() float32 { return math.Float32frombits(uint32(it.key >> 32)) }

// NewQuery returns a Query for m.
func NewQuery(m *Mesh) *Query {
	n := len(m.tris)
	return &Query{
		m:     m,
		stamp: make([]uint32, n),
		nodes: make([]node, n),
		heap:  make([]heapItem, 0, 256),
		queue: make([]int32, 0, 256),
	}
}

// Mesh returns the mesh q queries.
func (q *Query) Mesh() *Mesh { return q.m }

func (q *Query) next() {
	q.gen++
	if q.gen == maxGen { // wrapped: forget every old stamp
		clear(q.stamp)
		clear(q.nodes)
		q.gen = 1
	}
	q.heap = q.heap[:0]
}

func (q *Query) push(it heapItem) {
	h := append(q.heap, it)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if h[p].key <= it.key {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = it
	q.heap = h
}

func (q *Query) pop() heapItem {
	h := q.heap
	top := h[0]
	n := len(h) - 1
	x := h[n]
	h = h[:n]
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h[c+1].key < h[c].key {
			c++
		}
		if x.key <= h[c].key {
			break
		}
		h[i] = h[c]
		i = c
	}
	if n > 0 {
		h[i] = x
	}
	q.heap = h
	return top
}

// Contains reports whether the whole disc of radius r at p lies in
// triangles that have all of flags. It does not allocate and is safe for
// concurrent use.
func (m *Mesh) Contains(p mgl32.Vec2, r float32, flags Flags) bool {
	if !geom.Finite(r) || r < 0 {
		return false
	}
	return m.containsFrom(m.Locate(p), p, r, flags)
}

// containsFrom is Contains for a p known to lie in triangle t.
func (m *Mesh) containsFrom(t int32, p mgl32.Vec2, r float32, flags Flags) bool {
	// For Walk (paths), the flags are read from the search records
	// (walk, and pass for blocks), which the point location has just
	// read, rather than from m.tris.
	walk := flags == Walk
	if t < 0 || walk && !m.nav[t].walk || !walk && m.tris[t].Flags&flags != flags {
		return false
	}
	if r == 0 {
		return true
	}
	rr := float32(r * r)
	px, py := p[0], p[1]
	// Breadth-first over the triangles the disc reaches, in a fixed buffer.
	// from[h] is the edge of seen[h] the search came in by, plus one: that
	// edge is near and its far side already seen, so it is not tested
	// again (the start has none).
	var buf [96]int32
	var from [96]int8
	seen := buf[:1]
	seen[0] = t
	for h := 0; h < len(seen); h++ {
		tr := &m.nav[seen[h]]
		skip := int(from[h]) - 1
		for i := 0; i < 3; i++ {
			if i == skip {
				continue
			}
			j := nextTab[i]
			ax, ay, bx, by := tr.p[i][0], tr.p[i][1], tr.p[j][0], tr.p[j][1]
			if min(ax, bx)-px >= r || px-max(ax, bx) >= r ||
				min(ay, by)-py >= r || py-max(ay, by) >= r || segDist2xy(px, py, ax, ay, bx, by) >= rr {
				continue // the box test skips most edges without a division
			}
			if walk && tr.pass>>i&1 == 0 || !walk && m.blocks(seen[h], i, flags) {
				return false
			}
			u := tr.n[i]
			dup := false
			for _, s := range seen {
				if s == u {
					dup = true
					break
				}
			}
			if dup {
				continue
			}
			if len(seen) == len(buf) {
				return m.containsScan(p, rr, flags)
			}
			from[len(seen)] = int8(tr.back>>(2*i)&3) + 1
			seen = append(seen, u)
		}
	}
	return true
}

// containsScan is the fallback of Contains for large discs: the disc is
// inside when no blocking edge of the whole mesh comes closer than r.
func (m *Mesh) containsScan(p mgl32.Vec2, rr float32, flags Flags) bool {
	for t := range m.tris {
		tr := &m.tris[t]
		for i := 0; i < 3; i++ {
			if m.blocks(int32(t), i, flags) && segDist2(p, m.verts[tr.V[i]], m.verts[tr.V[next(i)]]) < rr {
				return false
			}
		}
	}
	return true
}

// closestInTriangle returns the point of triangle t closest to p.
func (m *Mesh) closestInTriangle(t int32, p mgl32.Vec2) mgl32.Vec2 {
	tr := &m.tris[t]
	inside := true
	for i := 0; i < 3; i++ {
		if orient(v64(m.verts[tr.V[i]]), v64(m.verts[tr.V[next(i)]]), v64(p)) < 0 {
			inside = false
			break
		}
	}
	if inside {
		return p
	}
	best := mgl32.Vec2{}
	bd := float32(-1)
	for i := 0; i < 3; i++ {
		c, _ := geom.ClosestPointOnSegment(p, geom.Segment{A: m.verts[tr.V[i]], B: m.verts[tr.V[next(i)]]})
		if d := geom.Dot(geom.Sub(c, p), geom.Sub(c, p)); bd < 0 || d < bd {
			best, bd = c, d
		}
	}
	return best
}

// Nearest returns the point nearest to p where a disc of radius r fits in
// triangles with all of flags, searching no farther than maxDist, and the
// triangle containing it. ok is false when there is none within reach.
func (q *Query) Nearest(p mgl32.Vec2, r, maxDist float32, flags Flags) (pt mgl32.Vec2, tri int32, ok bool) {
	m := q.m
	if !geom.Finite2(p) {
		return mgl32.Vec2{}, -1, false
	}
	// Clamp into the bounds, then search outward by distance.
	c := mgl32.Vec2{min(max(p[0], m.bounds.Min[0]), m.bounds.Max[0]), min(max(p[1], m.bounds.Min[1]), m.bounds.Max[1])}
	t0 := m.Locate(c)
	if t0 < 0 {
		return mgl32.Vec2{}, -1, false
	}
	if m.tris[t0].Flags&flags == flags && m.Contains(p, r, flags) {
		return p, t0, true
	}
	q.next()
	q.stamp[t0] = q.gen
	q.push(mkItem(geom.Dist(p, c), 0, t0))
	limit := q.maxNodes()
	for n := 0; len(q.heap) > 0 && n < limit; n++ {
		it := q.pop()
		if it.f() > maxDist+r {
			break
		}
		t := it.t()
		tr := &m.tris[t]
		if tr.Flags&flags == flags {
			cp := m.closestInTriangle(t, p)
			if r == 0 {
				return cp, t, true // on t's boundary at worst: still in t
			}
			if cp != p {
				// Off the walkable side: start r inside, away from p.
				u, _ := geom.Unit(geom.Sub(cp, p))
				cp = geom.Axpy(cp, u, float32(r*1.001))
			}
			if pp, ok := m.pushOut(t, cp, r, flags); ok && geom.Dist(pp, p) <= maxDist+r {
				if tt := m.Locate(pp); tt >= 0 {
					return pp, tt, true
				}
			}
		}
		for i := 0; i < 3; i++ {
			u := tr.N[i]
			if u < 0 || q.stamp[u] == q.gen {
				continue
			}
			q.stamp[u] = q.gen
			c, _ := geom.ClosestPointOnSegment(p, geom.Segment{A: m.verts[tr.V[i]], B: m.verts[tr.V[next(i)]]})
			d := geom.Dist(p, c)
			q.push(mkItem(max(d, it.f()), 0, u))
		}
	}
	return mgl32.Vec2{}, -1, false
}

// pushOut moves p (near triangle hint) away from the blocking edges closer
// than r, a few times, and reports whether the disc then fits.
func (m *Mesh) pushOut(hint int32, p mgl32.Vec2, r float32, flags Flags) (mgl32.Vec2, bool) {
	for iter := 0; iter < 6; iter++ {
		if m.Contains(p, float32(r*0.9995), flags) {
			return p, true
		}
		t := m.locateFrom(hint, p)
		b, n, found := m.nearestBlocking(t, p, r, flags)
		if !found {
			return p, false
		}
		d := geom.Sub(p, b)
		dir, l := geom.Unit(d)
		if !(l > 0) {
			dir = n
		}
		p = geom.Axpy(b, dir, float32(r*1.001))
	}
	return p, m.Contains(p, float32(r*0.9995), flags)
}

// nearestBlocking finds the point of a blocking edge closest to p within r
// (breadth-first from t, bounded) and that edge's inward normal.
func (m *Mesh) nearestBlocking(t int32, p mgl32.Vec2, r float32, flags Flags) (mgl32.Vec2, mgl32.Vec2, bool) {
	if t < 0 {
		return mgl32.Vec2{}, mgl32.Vec2{}, false
	}
	rr := float32(r * r)
	var buf [96]int32
	seen := append(buf[:0], t)
	best, bestN, bestD := mgl32.Vec2{}, mgl32.Vec2{}, rr
	found := false
	for h := 0; h < len(seen); h++ {
		tr := &m.tris[seen[h]]
		for i := 0; i < 3; i++ {
			a, b := m.verts[tr.V[i]], m.verts[tr.V[next(i)]]
			c, _ := geom.ClosestPointOnSegment(p, geom.Segment{A: a, B: b})
			d2 := geom.Dot(geom.Sub(p, c), geom.Sub(p, c))
			if d2 >= rr {
				continue
			}
			if m.blocks(seen[h], i, flags) {
				if d2 < bestD || !found {
					e, _ := geom.Unit(geom.Sub(b, a))
					best, bestN, bestD, found = c, mgl32.Vec2{-e[1], e[0]}, d2, true
				}
				continue
			}
			u := tr.N[i]
			if len(seen) < len(buf) && !slices.Contains(seen, u) {
				seen = append(seen, u)
			}
		}
	}
	return best, bestN, found
}

func (q *Query) maxNodes() int {
	if q.MaxSearchNodes > 0 {
		return q.MaxSearchNodes
	}
	return 4096
}
