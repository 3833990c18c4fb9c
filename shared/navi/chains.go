package navi

import "math"

// Triangulation reduction (after Demyen & Buro, "Efficient
// Triangulation-Based Pathfinding", 2006). A walkable triangle with
// exactly two walkable neighbours is a corridor triangle: a path that
// enters it by one of those edges leaves by the other, so a search has
// nothing to choose there. Maximal runs of corridor triangles are chains;
// the triangles beyond their ends are junctions (three walkable
// neighbours) or dead ends (one). The path search crosses a chain in one
// step from the junction it expands (see search), and rebuilds the
// chain's triangles only for the corridor it returns.

// degTab[pass] is the number of walkable neighbours of a triangle whose
// navTri.pass is pass.
var degTab = [8]uint8{0, 1, 1, 2, 1, 2, 2, 3}

// chain is a maximal run of corridor triangles, tris[first:first+n] of its
// chainSet in order from end 0 to end 1.
type chain struct {
	first, n int32
	// end[k] is the triangle beyond end k, -1 for both when the chain
	// closes on itself (a ring, which the search does not collapse).
	end [2]int32
	// exit[k] is the edge of the chain's triangle at end k that leads to
	// end[k].
	exit [2]uint8
	// width is the narrowest channel through the chain's triangles (the
	// width at each triangle's vertex between its two walkable edges): an
	// agent wider than that cannot cross it.
	width float32
	// bends[bend:bend+nbend] of the chainSet are the vertices the
	// shortest path through the chain turns at, from the middle of its
	// first portal to the middle of its last, in order from end 0.
	bend, nbend int32
}

// chainSet is the triangulation reduction of a mesh.
type chainSet struct {
	of     []int32 // per triangle: its chain, or -1
	chains []chain
	tris   []int32
	bends  []xy
}

// computeChains fills m.chains from m.nav and m.width (after
// computeClearance). Chains depend on walkability only, which blackout
// zones do not change.
func (m *Mesh) computeChains() {
	cs := chainSet{of: make([]int32, len(m.nav))}
	for t := range cs.of {
		cs.of[t] = -1
	}
	for s := range m.nav {
		if m.isCorridor(int32(s)) && cs.of[s] < 0 {
			m.addChain(&cs, int32(s))
		}
	}
	m.chains = cs
}

func (m *Mesh) isCorridor(t int32) bool {
	return m.nav[t].walk && degTab[m.nav[t].pass] == 2
}

// otherExit returns the walkable edge of corridor triangle t other than in.
func (m *Mesh) otherExit(t int32, in int) int {
	return trailingZeros3(m.nav[t].pass &^ (1 << in))
}

// addChain adds the chain through corridor triangle s.
func (m *Mesh) addChain(cs *chainSet, s int32) {
	id := int32(len(cs.chains))
	// Walk to one end: v is then the chain's triangle there and e its
	// edge out of the chain.
	e0 := trailingZeros3(m.nav[s].pass)
	v, e := s, e0
	for range m.nav {
		u := m.nav[v].n[e]
		if !m.isCorridor(u) {
			break
		}
		if u == s { // a ring: label it, never collapse it
			for w, we := s, e0; ; {
				cs.of[w] = id
				u := m.nav[w].n[we]
				if u == s {
					break
				}
				we = m.otherExit(u, int(m.nav[w].back>>(2*we)&3))
				w = u
			}
			cs.chains = append(cs.chains, chain{first: int32(len(cs.tris)), end: [2]int32{-1, -1}})
			return
		}
		e = m.otherExit(u, int(m.nav[v].back>>(2*e)&3))
		v = u
	}
	ch := chain{first: int32(len(cs.tris)), width: float32(math.Inf(1))}
	ch.end[0], ch.exit[0] = m.nav[v].n[e], uint8(e)
	// Walk back to the other end, listing the triangles in order.
	in := e
	for range m.nav {
		cs.of[v] = id
		cs.tris = append(cs.tris, v)
		out := m.otherExit(v, in)
		k := out // the vertex the two walkable edges share
		if out != int(nextTab[in]) {
			k = in
		}
		ch.width = min(ch.width, m.nav[v].width[k])
		u := m.nav[v].n[out]
		if !m.isCorridor(u) {
			ch.end[1], ch.exit[1] = u, uint8(out)
			break
		}
		in = int(m.nav[v].back >> (2 * out) & 3)
		v = u
	}
	ch.n = int32(len(cs.tris)) - ch.first
	ch.bend = int32(len(cs.bends))
	cs.bends = m.chainBends(cs.bends, &ch, cs.tris[ch.first:])
	ch.nbend = int32(len(cs.bends)) - ch.bend
	cs.chains = append(cs.chains, ch)
}

// chainBends appends to bends the vertices where the shortest path
// through chain ch (its triangles tris, from end 0) turns, from the middle
// of the portal at end 0 to the middle of the portal at end 1: a funnel
// over the chain's portals.
func (m *Mesh) chainBends(bends []xy, ch *chain, tris []int32) []xy {
	// The portals seen walking from end 0 to end 1: leaving triangle v by
	// its edge e, the left end is V[e+1] and the right end V[e].
	ps := make([]portalPair, 0, ch.n+2)
	exitPortal := func(v int32, e int) portalPair {
		a, b := m.nav[v].p[nextTab[e]], m.nav[v].p[e]
		return portalPair{xy{a[0], a[1]}, xy{b[0], b[1]}}
	}
	mid := func(p portalPair) xy { return xy{(p.l.x + p.r.x) / 2, (p.l.y + p.r.y) / 2} }
	// The first portal is the edge from end 0 into the chain, which is
	// the first triangle's exit[0] seen the other way.
	f := exitPortal(tris[0], int(ch.exit[0]))
	start := mid(f)
	ps = append(ps, portalPair{start, start})
	in := int(ch.exit[0])
	for k := int32(0); k < ch.n; k++ {
		v := tris[k]
		out := m.otherExit(v, in)
		ps = append(ps, exitPortal(v, out))
		in = int(m.nav[v].back >> (2 * out) & 3)
	}
	end := mid(ps[len(ps)-1])
	ps[len(ps)-1] = portalPair{end, end}
	n := len(bends)
	bends = appendTaut(bends, ps)
	if len(bends) > n && bends[len(bends)-1] == end {
		bends = bends[:len(bends)-1] // the funnel ends with its end point
	}
	return bends
}

// appendTaut appends to out the corners of the shortest path through the
// portals ps (the first and last are points), without those two ends:
// the simple stupid funnel (Mononen 2010), used at build time.
func appendTaut(out []xy, ps []portalPair) []xy {
	apex := ps[0].l
	left, right := apex, apex
	leftI, rightI := 0, 0
	for i := 1; i < len(ps); {
		pl, pr := ps[i].l, ps[i].r
		if crossOf(apex, right, pr) >= 0 {
			if apex == right || crossOf(apex, left, pr) < 0 {
				right, rightI = pr, i
			} else {
				apex, i = left, leftI+1
				out = append(out, apex)
				left, right, rightI = apex, apex, leftI
				continue
			}
		}
		if crossOf(apex, left, pl) <= 0 {
			if apex == left || crossOf(apex, right, pl) > 0 {
				left, leftI = pl, i
			} else {
				apex, i = right, rightI+1
				out = append(out, apex)
				left, right, leftI = apex, apex, rightI
				continue
			}
		}
		i++
	}
	return out
}

// trailingZeros3 is the index of the lowest set bit of a non-zero 3-bit
// mask.
func trailingZeros3(b uint8) int {
	if b&1 != 0 {
		return 0
	}
	if b&2 != 0 {
		return 1
	}
	return 2
}
