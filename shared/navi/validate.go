package navi

import (
	"errors"
	"fmt"

	"github.com/twinframe/twinframe/shared/geom"
)

// ErrInvalid is wrapped by every error Validate returns.
var ErrInvalid = errors.New("navi: invalid mesh")

// Validate checks every invariant of m: vertices inside the bounds, no two
// equal; triangles counter-clockwise with positive area; neighbour links
// symmetric; constraint marks and content changes equal on both sides of an
// edge; the triangles exactly tile the bounds (hull edges lie on the bounds
// rectangle, so with the above no overlap or gap is possible); Delaunay
// except across constraint edges; flags consistent with the flood fill; no
// triangle outside every polygon walkable; every triangle's blackout flag
// matching the zones; and the point-location grid pointing at real triangles.
func Validate(m *Mesh) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
	}
	if m == nil {
		return fail("nil mesh")
	}
	nv := int32(len(m.verts))
	bd := m.bounds
	for i, v := range m.verts {
		if !geom.Finite(v[0]) || !geom.Finite(v[1]) || v[0] < bd.Min[0] || v[1] < bd.Min[1] || v[0] > bd.Max[0] || v[1] > bd.Max[1] {
			return fail("vertex %d %v outside the bounds", i, v)
		}
	}
	if len(m.tris) < 2 || len(m.delta) != len(m.tris) || len(m.count) != len(m.tris) || len(m.width) != len(m.tris) || len(m.elen) != len(m.tris) {
		return fail("table sizes disagree")
	}
	used := make([]bool, nv)
	var area float64
	for t := range m.tris {
		tr := &m.tris[t]
		for i := 0; i < 3; i++ {
			if tr.V[i] < 0 || tr.V[i] >= nv {
				return fail("triangle %d vertex %d out of range", t, i)
			}
			used[tr.V[i]] = true
		}
		a, b, c := v64(m.verts[tr.V[0]]), v64(m.verts[tr.V[1]]), v64(m.verts[tr.V[2]])
		if orient(a, b, c) <= 0 {
			return fail("triangle %d is not counter-clockwise", t)
		}
		area += (float64((b.x-a.x)*(c.y-a.y)) - float64((b.y-a.y)*(c.x-a.x))) / 2
		for i := 0; i < 3; i++ {
			x, y := tr.V[i], tr.V[next(i)]
			u := tr.N[i]
			if u < 0 {
				// Hull edge: must lie on the bounds rectangle.
				px, py := m.verts[x], m.verts[y]
				onX := (px[0] == bd.Min[0] && py[0] == bd.Min[0]) || (px[0] == bd.Max[0] && py[0] == bd.Max[0])
				onY := (px[1] == bd.Min[1] && py[1] == bd.Min[1]) || (px[1] == bd.Max[1] && py[1] == bd.Max[1])
				if !onX && !onY {
					return fail("triangle %d edge %d has no neighbour but is not on the bounds", t, i)
				}
				if m.count[t].add(m.delta[t][i]) != (content{}) {
					return fail("triangle %d edge %d: content outside the bounds is not empty", t, i)
				}
				continue
			}
			if int(u) >= len(m.tris) {
				return fail("triangle %d neighbour %d out of range", t, i)
			}
			j := -1
			for k := 0; k < 3; k++ {
				if m.tris[u].V[k] == y && m.tris[u].V[next(k)] == x {
					j = k
				}
			}
			if j < 0 || m.tris[u].N[j] != int32(t) {
				return fail("triangles %d and %d: neighbour links not symmetric", t, u)
			}
			if (tr.Constraint>>i)&1 != (m.tris[u].Constraint>>j)&1 {
				return fail("triangles %d and %d: constraint mark differs", t, u)
			}
			if m.delta[t][i] != m.delta[u][j].neg() {
				return fail("triangles %d and %d: content change differs", t, u)
			}
			if tr.Constraint>>i&1 == 0 && m.delta[t][i] != (content{}) {
				return fail("triangle %d edge %d: content change on an unconstrained edge", t, i)
			}
			if m.count[t].add(m.delta[t][i]) != m.count[u] {
				return fail("triangles %d and %d: content counts disagree with the edge", t, u)
			}
			if tr.Constraint>>i&1 == 0 {
				d := m.tris[u].V[prev(j)]
				if inCircle(a, b, c, v64(m.verts[d])) > 0 {
					return fail("triangles %d and %d: not Delaunay across an unconstrained edge", t, u)
				}
			}
		}
		for k := range m.count[t] {
			if m.count[t][k] < 0 {
				return fail("triangle %d: negative %v count", t, Kind(k+1))
			}
		}
		want := flagsOf(m.count[t]) | m.blackoutFlag(int32(t))
		if tr.Flags&^Fly != want {
			return fail("triangle %d: flags %b, want %b", t, tr.Flags, want)
		}
	}
	for i, u := range used {
		if !u {
			return fail("vertex %d is in no triangle", i)
		}
	}
	full := (float64(bd.Max[0]) - float64(bd.Min[0])) * (float64(bd.Max[1]) - float64(bd.Min[1]))
	if d := area - full; d > 1e-6*full || d < -1e-6*full {
		return fail("triangle area %g does not cover the bounds area %g", area, full)
	}
	// Duplicate vertices: after sorting would be cleaner; the merge grid
	// guarantees distinct points, so check pairs sharing a triangle fan.
	for t := range m.tris {
		tr := &m.tris[t]
		if m.verts[tr.V[0]] == m.verts[tr.V[1]] || m.verts[tr.V[1]] == m.verts[tr.V[2]] || m.verts[tr.V[0]] == m.verts[tr.V[2]] {
			return fail("triangle %d has coincident vertices", t)
		}
	}
	if len(m.grid) != m.gridW*m.gridH {
		return fail("grid size")
	}
	for _, g := range m.grid {
		if g < 0 || int(g) >= len(m.tris) {
			return fail("grid hint %d out of range", g)
		}
	}
	return nil
}
