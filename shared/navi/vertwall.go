package navi

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// A path turns around obstacle vertices, and emit checks each corner point
// it puts beside one (at most r·√2 from it) with a point location and a
// disc search over the fan of thin triangles round the vertex. Most such
// vertices have two walls, and nothing else near: vertWall holds, per
// vertex, what lets fitsBeside answer from the vertex alone. The records
// are in a hash table keyed by the vertex's position (which names it: the
// builder merges vertices), 32 bytes each: a corner finds its vertex's
// record with one cold cache line, where an index would take two (the
// triangle's vertex indices, then the record).

// vertWall describes the walls at a mesh vertex c, where a wall is an edge
// between walkable ground and an obstacle or the bounds. For a vertex with
// exactly two walls, c→a and b→c as edges of their walkable triangles (so
// walkable ground is on their left; it is the wedge from c→a
// counter-clockwise to c→b), it holds a and b and the distance from c to
// the nearest other wall (clear, rounded down). Any other vertex has clear
// 0 and is never answered here.
type vertWall struct {
	c, a, b xy
	clear   float32 // 0: an empty slot
	_       uint32
}

// vertClearLimit bounds the triangles computeVertWalls visits per vertex;
// a search cut short returns a smaller (still safe) clearance.
const vertClearLimit = 64

// computeVertWalls fills m.vwall (after m.nav and m.corner).
func (m *Mesh) computeVertWalls() {
	walls := make([]vertWall, len(m.verts))
	// out, in: the number of walls leaving and entering each vertex (as
	// edges of walkable triangles, capped at 2); from: the triangle of
	// its outgoing wall, where its search starts.
	out := make([]uint8, len(m.verts))
	in := make([]uint8, len(m.verts))
	from := make([]int32, len(m.verts))
	for t := range m.tris {
		if m.tris[t].Flags&Walk == 0 {
			continue
		}
		for i := 0; i < 3; i++ {
			if !m.blocks(int32(t), i, Walk) {
				continue
			}
			c, a := m.tris[t].V[i], m.tris[t].V[next(i)]
			out[c] = min(out[c]+1, 2)
			in[a] = min(in[a]+1, 2)
			walls[c].a = xy{m.verts[a][0], m.verts[a][1]}
			walls[a].b = xy{m.verts[c][0], m.verts[c][1]}
			from[c] = int32(t)
		}
	}
	stamp := make([]int32, len(m.tris))
	type item struct {
		t int32
		d float64 // distance from the vertex to the edge entered by
	}
	queue := make([]item, 0, vertClearLimit)
	for v := range m.verts {
		if out[v] != 1 || in[v] != 1 {
			continue
		}
		pc := v64(m.verts[v])
		// The walls beyond a and b touch them: none is reached farther
		// than min(|ca|, |cb|), which bounds the search from the start.
		w := &walls[v]
		best := math.Min(dist64(pc, vec2{float64(w.a.x), float64(w.a.y)}), dist64(pc, vec2{float64(w.b.x), float64(w.b.y)}))
		queue = append(queue[:0], item{from[v], 0})
		stamp[from[v]] = int32(v) + 1
		// Breadth-first over walkable ground from the vertex's fan,
		// across edges nearer than the nearest wall found so far. A wall
		// point q nearer than the result would be reached by a path from
		// the vertex within |cq|, whose edges are all entered.
		h := 0
		for ; h < len(queue) && h < vertClearLimit; h++ {
			tr := &m.tris[queue[h].t]
			for i := 0; i < 3; i++ {
				a, b := tr.V[i], tr.V[next(i)]
				u, wall := tr.N[i], m.blocks(queue[h].t, i, Walk)
				if a == int32(v) || b == int32(v) {
					if !wall && stamp[u] != int32(v)+1 { // the fan round v
						stamp[u] = int32(v) + 1
						queue = append(queue, item{u, 0})
					}
					continue
				}
				pa, pb := v64(m.verts[a]), v64(m.verts[b])
				// The edge's box is as far as best: so is the edge.
				if math.Min(pa.x, pb.x)-pc.x >= best || pc.x-math.Max(pa.x, pb.x) >= best ||
					math.Min(pa.y, pb.y)-pc.y >= best || pc.y-math.Max(pa.y, pb.y) >= best {
					continue
				}
				d := segDist64(pc, pa, pb)
				if wall {
					best = math.Min(best, d)
					continue
				}
				if d < best && stamp[u] != int32(v)+1 {
					stamp[u] = int32(v) + 1
					queue = append(queue, item{u, d})
				}
			}
		}
		for ; h < len(queue); h++ { // not searched: a wall may lie beyond
			best = math.Min(best, queue[h].d)
		}
		c := float32(best)
		if float64(c) > best {
			c = math.Nextafter32(c, 0)
		}
		w.clear = c
	}
	// The table, at most half full (a lookup probes 1.5 slots on average).
	n := 0
	for v := range walls {
		if walls[v].clear > 0 {
			n++
		}
	}
	bits := 1
	for 1<<bits < 2*n {
		bits++
	}
	m.vwall, m.vwallShift = make([]vertWall, 1<<bits), 64-uint(bits)
	mask := len(m.vwall) - 1
	for v := range walls {
		if walls[v].clear > 0 {
			w := walls[v]
			w.c = xy{m.verts[v][0], m.verts[v][1]}
			h := m.vwallSlot(w.c)
			for m.vwall[h].clear > 0 {
				h = (h + 1) & mask
			}
			m.vwall[h] = w
		}
	}
}

// vwallSlot is the first slot of m.vwall for the vertex at c.
func (m *Mesh) vwallSlot(c xy) int {
	k := uint64(math.Float32bits(c.x))<<32 | uint64(math.Float32bits(c.y))
	return int(k * 0x9e3779b97f4a7c15 >> m.vwallShift)
}

// vertWallAt returns the record of the vertex at c, or nil when it has
// none (it has not two walls, or no clearance).
func (m *Mesh) vertWallAt(c xy) *vertWall {
	if len(m.vwall) == 0 {
		return nil
	}
	mask := len(m.vwall) - 1
	for h := m.vwallSlot(c); ; h = (h + 1) & mask {
		w := &m.vwall[h]
		if w.c == c && w.clear > 0 {
			return w
		}
		if !(w.clear > 0) {
			return nil
		}
	}
}

// fitsBeside reports that a disc of radius float32(r*0.999) at p lies on
// walkable ground, for p near the mesh vertex at c, when vertWall shows it
// (false means "not shown", not "does not fit"). It accepts only what
// containsFrom accepts: the disc must keep out of the vertex's clearance
// with a margin for containsFrom's rounding, lie in its walkable wedge,
// and clear its two walls as containsFrom computes their distance.
func (m *Mesh) fitsBeside(c xy, p mgl32.Vec2, r float32) bool {
	w := m.vertWallAt(c)
	if w == nil {
		return false
	}
	rp := float32(r * 0.999)
	// Other walls: |p c| + r' with a margin ≤ the clearance. (float64:
	// differences and products of float32 values are exact or nearly.)
	dx, dy := float64(p[0])-float64(c.x), float64(p[1])-float64(c.y)
	slack := 1e-3*float64(r) + 1e-5*(math.Abs(float64(c.x))+math.Abs(float64(c.y))) + 1e-6
	if math.Sqrt(dx*dx+dy*dy)+float64(rp)+slack > float64(w.clear) {
		return false
	}
	// The walkable wedge, from c→a counter-clockwise to c→b.
	ax, ay := float64(w.a.x)-float64(c.x), float64(w.a.y)-float64(c.y)
	bx, by := float64(w.b.x)-float64(c.x), float64(w.b.y)-float64(c.y)
	left, right := ax*dy-ay*dx > 0, dx*by-dy*bx > 0 // p left of c→a, right of c→b
	if ax*by-ay*bx >= 0 {
		if !(left && right) { // a wedge of at most 180°
			return false
		}
	} else if !(left || right) { // a reflex wedge
		return false
	}
	// The two walls, computed as containsFrom computes them (the same
	// operations on the same operands, so the same bits).
	rr := float32(rp * rp)
	return segDist2xy(p[0], p[1], c.x, c.y, w.a.x, w.a.y) >= rr &&
		segDist2xy(p[0], p[1], w.b.x, w.b.y, c.x, c.y) >= rr
}
