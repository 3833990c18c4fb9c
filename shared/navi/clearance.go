package navi

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/twinframe/twinframe/shared/geom"
)

// computeClearance fills m.corner and m.width: the width of the walkable
// channel through each triangle between the two edges that meet at each of
// its corners (Demyen & Buro, "Efficient Triangulation-Based Pathfinding",
// 2006). A path enters a triangle by one edge and leaves by another; an
// agent of radius r fits when the width at their shared vertex is ≥ 2r.
func (m *Mesh) computeClearance() {
	m.corner = make([]bool, len(m.verts))
	for t := range m.tris {
		if m.tris[t].Flags&Walk == 0 {
			continue
		}
		for i := 0; i < 3; i++ {
			if m.blocks(int32(t), i, Walk) {
				m.corner[m.tris[t].V[i]] = true
				m.corner[m.tris[t].V[next(i)]] = true
			}
		}
	}
	m.nav = make([]navTri, len(m.tris))
	m.width = make([][3]float32, len(m.tris))
	m.elen = make([][3]float32, len(m.tris))
	for t := range m.tris {
		for i := 0; i < 3; i++ {
			m.elen[t][i] = geom.Dist(m.verts[m.tris[t].V[i]], m.verts[m.tris[t].V[next(i)]])
		}
	}
	for t := range m.tris {
		for k := 0; k < 3; k++ {
			m.width[t][k] = float32(m.cornerWidth(int32(t), k))
		}
	}
	for t := range m.tris {
		tr := &m.tris[t]
		nt := &m.nav[t]
		nt.n = tr.N
		nt.walk = tr.Flags&Walk != 0
		for k := 0; k < 3; k++ {
			if u := tr.N[k]; u >= 0 && m.tris[u].Flags&Walk != 0 {
				nt.pass |= 1 << k
			}
		}
		nt.width = m.width[t]
		for k, n := range m.elen[t] {
			if n > 0 {
				nt.einv[k] = 1 / n
			}
		}
		for k := 0; k < 3; k++ {
			nt.p[k] = m.verts[tr.V[k]]
			if m.corner[tr.V[k]] {
				nt.corner |= 1 << k
			}
			if u := tr.N[k]; u >= 0 {
				nt.back |= uint8(m.edgeIndex(u, tr.V[next(k)], tr.V[k])) << (2 * k)
			}
		}
	}
}

// navTri is what the path search reads about a triangle, in one place.
type navTri struct {
	n      [3]int32
	back   uint8 // bits 2k..2k+1: the index of edge k in the neighbour across it
	corner uint8 // bit k: vertex k touches an edge that blocks walking
	walk   bool
	pass   uint8 // bit k: the neighbour across edge k exists and is walkable
	width  [3]float32
	// einv[k] is 1/|edge k| (0 for an edge of length 0): the search
	// shrinks a portal by r·einv (see portal) without a division per
	// neighbour, where a division is a long wait on its dependent chain.
	einv [3]float32
	p    [3]mgl32.Vec2
}

func dist64(a, b vec2) float64 {
	return math.Sqrt(float64((a.x-b.x)*(a.x-b.x)) + float64((a.y-b.y)*(a.y-b.y)))
}

// segDist64 is the distance from p to the segment ab.
func segDist64(p, a, b vec2) float64 {
	ex, ey := b.x-a.x, b.y-a.y
	l2 := float64(ex*ex) + float64(ey*ey)
	if l2 == 0 {
		return dist64(p, a)
	}
	u := (float64((p.x-a.x)*ex) + float64((p.y-a.y)*ey)) / l2
	u = math.Max(0, math.Min(1, u))
	return dist64(p, vec2{a.x + float64(u*ex), a.y + float64(u*ey)})
}

func (m *Mesh) cornerWidth(t int32, k int) float64 {
	tr := &m.tris[t]
	if tr.Flags&Walk == 0 {
		return 0
	}
	c, a, b := tr.V[k], tr.V[next(k)], tr.V[prev(k)]
	w := math.Inf(1)
	pc, pa, pb := v64(m.verts[c]), v64(m.verts[a]), v64(m.verts[b])
	if m.corner[c] && m.corner[a] {
		w = math.Min(w, dist64(pc, pa))
	}
	if m.corner[c] && m.corner[b] {
		w = math.Min(w, dist64(pc, pb))
	}
	if !m.corner[c] {
		return w
	}
	return m.searchWidth(pc, t, next(k), w, 0)
}

// searchWidth looks across edge e of t for a blocking edge closer to p than
// d. As in Demyen & Buro's SearchWidth, it goes on only across edges with
// acute angles at both ends as seen from p (p's perpendicular foot lies
// inside the edge). Without that test at every step (not only at the first
// edge) the search walks on through thin triangles, such as a zone's,
// around to a wall at p itself: width 0, a passage closed to every radius
// (TestPathZonesNoLonger). TestPathClearanceRandom checks that the
// legs still keep the radius from every wall.
func (m *Mesh) searchWidth(p vec2, t int32, e int, d float64, depth int) float64 {
	tr := &m.tris[t]
	pa, pb := v64(m.verts[tr.V[e]]), v64(m.verts[tr.V[next(e)]])
	if obtuse(p, pa, pb) || obtuse(p, pb, pa) {
		return d
	}
	dist := segDist64(p, pa, pb)
	if dist >= d {
		return d
	}
	if m.blocks(t, e, Walk) {
		return dist
	}
	if depth >= 24 {
		return d
	}
	u := tr.N[e]
	j := m.edgeIndex(u, tr.V[next(e)], tr.V[e])
	d = m.searchWidth(p, u, next(j), d, depth+1)
	return m.searchWidth(p, u, prev(j), d, depth+1)
}

// edgeIndex returns i such that edge i of t runs a→b, or -1.
func (m *Mesh) edgeIndex(t int32, a, b int32) int {
	v := &m.tris[t].V
	for i := 0; i < 3; i++ {
		if v[i] == a && v[next(i)] == b {
			return i
		}
	}
	return -1
}

// obtuse reports that the angle at a of the triangle p, a, b is at least
// 90°: p's perpendicular foot on the line ab lies beyond a.
func obtuse(p, a, b vec2) bool {
	return float64((p.x-a.x)*(b.x-a.x))+float64((p.y-a.y)*(b.y-a.y)) <= 0
}
