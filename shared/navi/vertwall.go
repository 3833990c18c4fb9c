package navi

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// A path turns around obstacle vertices, and emit checks each corner point
// it puts beside one (at most r·√2 from it) with a point location and a
// disc search over the fan of thin triangles round the vertex. Most such
// vertices have two walls, and nothing else near: vertWall holds, per
// vertex, what lets fitsBeside answer from the vertex alone.

// vertWall describes the walls at a mesh vertex c, where a wall is an edge
// between walkable ground and an obstacle or the bounds. For a vertex with
// exactly two walls, c→a and b→c as edges of their walkable triangles (so
// walkable ground is on their left; it is the wedge from c→a
// counter-clockwise to c→b), it holds a and b and the distance from c to
// the nearest other wall (clear, rounded down). Any other vertex has clear
// 0 and is never answered here.
type vertWall struct {
	a, b  xy
	clear float32
}

// vertClearLimit bounds the triangles computeVertWalls visits per vertex;
// a search cut short returns a smaller (still safe) clearance.
const vertClearLimit = 64

// computeVertWalls fills m.vwall (after m.nav and m.corner).
func (m *Mesh) computeVertWalls() {
	m.vwall = make([]vertWall, len(m.verts))
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
			m.vwall[c].a = xy{m.verts[a][0], m.verts[a][1]}
			m.vwall[a].b = xy{m.verts[c][0], m.verts[c][1]}
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
		w := &m.vwall[v]
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
		m.vwall[v].clear = c
	}
}

// fitsBeside reports that a disc of radius float32(r*0.999) at p lies on
// walkable ground, for p near mesh vertex v at c, when vertWall shows it
// (false means "not shown", not "does not fit"). It accepts only what
// containsFrom accepts: the disc must keep out of the vertex's clearance
// with a margin for containsFrom's rounding, lie in its walkable wedge,
// and clear its two walls as containsFrom computes their distance.
func (m *Mesh) fitsBeside(v int32, c xy, p mgl32.Vec2, r float32) bool {
	w := &m.vwall[v]
	if !(w.clear > 0) {
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

// vertexAt returns the vertex of triangle t at position c, or -1. (It
// finds c in t's search record, which the path's corridor has just read,
// so only the vertex index is a load from elsewhere.)
func (m *Mesh) vertexAt(t int32, c xy) int32 {
	if t < 0 {
		return -1
	}
	p := &m.nav[t].p
	for j := range p {
		if p[j] == (mgl32.Vec2{c.x, c.y}) {
			return m.tris[t].V[j]
		}
	}
	return -1
}
