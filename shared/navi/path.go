package navi

import (
	"math"
	"math/bits"
	"slices"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/twinframe/twinframe/shared/geom"
)

// PathStatus says how a path search ended.
type PathStatus uint8

// Path statuses. A partial path is a result, not an error.
const (
	// PathNone: no search has run (the zero Path).
	PathNone PathStatus = iota
	// PathComplete: the path reaches the goal (or the nearest walkable point
	// to it, see Path.GoalMoved).
	PathComplete
	// PathPartial: the goal is not reachable; the path leads to the
	// reachable point closest to it.
	PathPartial
	// PathNoPath: the start is not on walkable ground and no walkable point
	// is near it, or an input is not finite.
	PathNoPath
	// PathSearchLimit: the search expanded Query.MaxSearchNodes triangles;
	// the path leads to the explored point closest to the goal.
	PathSearchLimit
)

func (s PathStatus) String() string {
	switch s {
	case PathNone:
		return "none"
	case PathComplete:
		return "complete"
	case PathPartial:
		return "partial"
	case PathNoPath:
		return "no path"
	case PathSearchLimit:
		return "search limit"
	}
	return "status(?)"
}

// Path is the result of Query.FindPath. Reuse one Path across calls: its
// slices keep their storage, so steady-state queries do not allocate.
type Path struct {
	Status PathStatus
	// Points are the corners of the path from the start to End, both
	// included. A path reaches its corners in order along straight lines.
	Points []mgl32.Vec2
	// Corridor are the triangles the path crosses, from start to end.
	Corridor []int32
	// End is where the path ends: the goal, the goal moved to walkable
	// ground, or the best reachable point.
	End mgl32.Vec2
	// StartMoved and GoalMoved report that the start or goal was off
	// walkable ground (or too close to a wall for the radius) and was moved
	// to the nearest point where the agent fits.
	StartMoved, GoalMoved bool
	// Expanded counts the triangles the search expanded.
	Expanded int
}

// Length returns the length of the path's polyline.
func (p *Path) Length() float32 {
	var l float32
	for i := 1; i < len(p.Points); i++ {
		l += geom.Dist(p.Points[i-1], p.Points[i])
	}
	return l
}

func (q *Query) snapDistance() float32 {
	if q.SnapDistance > 0 {
		return q.SnapDistance
	}
	return 64
}

// FindPath finds a path for a disc of radius r from start to goal over
// Walk triangles and stores it in path (reusing its storage). It returns
// path.Status.
//
// The search is A* over triangles: an edge is crossed only when the channel
// through the triangle (between the entry and exit edges, see Demyen's
// triangle width) is at least 2r wide. The corridor found is then
// straightened by a funnel whose portals are shrunk by r at obstacle
// corners, which finds the obstacle vertices the path turns around; the
// legs are then the lines tangent to discs of radius r around those
// vertices, more vertices of the corridor are added where a leg would pass
// one closer than r, and each turn becomes one or two corners at most r√2
// from its vertex. Legs therefore keep r from the walls of the corridor
// (TestPathLegClearance checks every leg against every wall); a corner
// that does not fit is pushed off the walls near it.
func (q *Query) FindPath(start, goal mgl32.Vec2, r float32, path *Path) PathStatus {
	m := q.m
	path.Points = path.Points[:0]
	path.Corridor = path.Corridor[:0]
	path.StartMoved, path.GoalMoved, path.Expanded = false, false, 0
	path.End = start
	if !geom.Finite2(start) || !geom.Finite2(goal) || !geom.Finite(r) || r < 0 {
		path.Status = PathNoPath
		return path.Status
	}
	ts := m.Locate(start)
	if ts < 0 || !m.containsFrom(ts, start, r, Walk) {
		p, t, ok := q.Nearest(start, r, q.snapDistance(), Walk)
		if !ok {
			path.Status = PathNoPath
			return path.Status
		}
		start, ts, path.StartMoved = p, t, true
	}
	tg := m.Locate(goal)
	if tg < 0 || !m.containsFrom(tg, goal, r, Walk) {
		if p, t, ok := q.Nearest(goal, r, q.snapDistance(), Walk); ok {
			goal, tg, path.GoalMoved = p, t, true
		} else {
			tg = -1 // unreachable: search for the closest point
		}
	}
	status, best := q.search(start, goal, ts, tg, r, path)
	path.Status = status
	q.corridor(best, r, path)
	end := goal
	if status != PathComplete {
		end = m.closestInTriangle(best, goal)
		if r > 0 {
			if p, t, ok := q.Nearest(end, r, 4*r+1, Walk); ok && t == best {
				end = p
			} else {
				end = m.centroid(best)
			}
		}
	}
	path.End = end
	q.funnel(start, end, r, path)
	return path.Status
}

// portalEnds describes a portal of a corridor: an edge of triangle t (t =
// -1 for the start and end points), the positions of the mesh vertices at
// its left and right ends, and which of them touch a wall (bit 0: left,
// bit 1: right). (Vertices are merged, so a position names a vertex.)
type portalEnds struct {
	t      int32
	p      [2]xy
	corner uint8
}

// corridor stores in path.Corridor the triangles from the start to best,
// following the search's entry edges back from best, and in q.portals
// and q.ends, at 1 to len(path.Corridor)-1, the portals between them
// (funnel adds the start and end points as the first and last): each seen
// from the start, shrunk by r at obstacle corners.
func (q *Query) corridor(best int32, r float32, path *Path) {
	nodes, nav := q.nodes, q.m.nav
	// The corridor is best and its ancestors in the search, each expanded
	// once (best perhaps not): at most path.Expanded+1 triangles. They are
	// written back from that bound (the corridor then moved to the front;
	// the portals are used where they are), which costs less than
	// following the entry edges twice, once to count.
	ub := min(path.Expanded+1, len(nav))
	c := slices.Grow(path.Corridor[:0], ub)[:ub]
	ps := slices.Grow(q.portalBuf[:0], ub+1)[:ub+1]
	es := slices.Grow(q.endBuf[:0], ub+1)[:ub+1]
	q.portalBuf, q.endBuf = ps, es
	u, k := best, ub-1
	for ; k > 0; k-- {
		c[k] = u
		// The portal is the edge the search entered u by, edge e of u:
		// seen from its parent t, its left end is V[e] of u and its right
		// end V[e+1].
		nu := &nav[u]
		e := nodes[u].entry()
		if e < 0 {
			break // u is the start
		}
		t := nu.n[e]
		f := int(nextTab[e])
		l, rt := xy{nu.p[e][0], nu.p[e][1]}, xy{nu.p[f][0], nu.p[f][1]}
		corner := nu.corner>>e&1 | (nu.corner>>f&1)<<1
		// Field by field: a composite literal is built on the stack by
		// narrow stores and copied with 16-byte loads, which cannot be
		// forwarded from them (a stall of each step's store).
		ek := &es[k]
		ek.t, ek.p[0], ek.p[1], ek.corner = t, l, rt, corner
		if r > 0 && corner != 0 {
			ex, ey := rt.x-l.x, rt.y-l.y
			s := min(float32(r*nu.einv[e]), 0.5) // min(r/n, 0.5), as in search
			if corner&1 != 0 {
				l = xy{l.x + float32(ex*s), l.y + float32(ey*s)}
			}
			if corner&2 != 0 {
				rt = xy{rt.x + float32(ex*-s), rt.y + float32(ey*-s)}
			}
		}
		ps[k] = portalPair{l, rt}
		u = t
	}
	c[k] = u
	n := ub - k
	copy(c, c[k:])
	path.Corridor, q.portals, q.ends = c[:n], ps[k:ub+1], es[k:ub+1]
}

// meetTab[in<<2|i] is the corner where edges in and i ≠ in of a triangle
// meet: i when i = next(in) (edges i and prev(i) meet at V[i]), else in.
// (A table, not a branch: which exit comes first is not predictable.)
var meetTab = [12]uint8{
	0<<2 | 1: 1, 0<<2 | 2: 0, // in 0
	1 << 2: 1, 1<<2 | 2: 2, // in 1 (i 0, 2)
	2 << 2: 0, 2<<2 | 1: 2, // in 2 (i 0, 1)
}

// noItem is a heap key no item has.
const noItem = math.MaxUint64

// hWeight scales the search's heuristic (the straight distance to the
// goal). A node's g is the length of the polyline through the points where
// the search crossed its portals, which runs longer than the funnel's path
// through the same corridor, so the plain distance makes A* expand many
// triangles beside the corridor whose g is only a little too long. Weighted
// by 1.05 the search expands about a quarter fewer triangles on the
// benchmark region (TestPathSearchFocus) without making its paths longer on
// average; TestPathOptimality bounds what the weight may cost against the
// exact shortest path.
const hWeight = 1.05

// search runs the A* over triangles. A triangle's node holds one entry:
// the edge it was reached by and a point pos on it, the point of that
// portal that minimises |parent's pos, p| + |p, goal|. g is the length of
// the polyline through these points, and a second route to a triangle
// replaces the first when its b = g + |pos goal| is smaller, not its g:
// two routes reach a triangle at different points, and the one with the
// smaller g may have it only because its point lies farther back (g is
// short but the rest long). Keeping the smaller g lost straight routes
// among thin triangles (a zone's): (20, 160) → (50, 160) in the default
// world bent at a zone corner because the straight route reached a
// triangle at g 7.87, b 30.00 (on the line) after a route from the side
// had reached it at g 7.18, b 31.32. b stays the same along the straight
// line to the goal and grows by the detour at each portal that line does
// not cross, so it never falls along a corridor and a triangle can never
// become its own ancestor. The heap's key is still f = g + hWeight·|pos goal|.
func (q *Query) search(start, goal mgl32.Vec2, ts, tg int32, r float32, path *Path) (PathStatus, int32) {
	m := q.m
	q.next()
	gen := q.gen
	nodes := q.nodes
	nav := m.nav
	gx, gy := goal[0], goal[1]
	d0 := geom.Dist(start, goal)
	nodes[ts] = node{tag: nodeTag(gen, -1), b: d0, pos: xy{start[0], start[1]}}
	best, bestH := ts, d0
	q.push(mkItem(float32(hWeight*d0), d0, ts))
	limit := q.maxNodes()
	twoR := float32(2 * r)
	left := limit // expansions left; fewer live values than a count and a limit
	// The start triangle's exits, tested here so that the loop has only
	// one radius test: the agent, anywhere in it, leaves by an edge
	// unless both ends touch walls and the edge is shorter than 2r.
	startExits := nav[ts].pass
	for e := startExits; e != 0; e &= e - 1 {
		i := bits.TrailingZeros8(e)
		if st := &nav[ts]; r > 0 && st.corner>>i&1 != 0 && st.corner>>nextTab[i]&1 != 0 && m.elen[ts][i] < twoR {
			startExits &^= 1 << i
		}
	}
	// The vector arithmetic below is written out in float32 scalars (the
	// same operations, in the same order, as geom.Sub, geom.Cross, geom.Axpy,
	// geom.Hypot and entryPoint), which the compiler keeps in registers.
	// pend holds the smallest item of the last expansion while it is
	// smaller than the heap's top: it would be popped next anyway, so it
	// skips the heap (the order of expansions is unchanged). A key of
	// noItem means none (a real key's triangle part is at most MaxInt32).
	pend := heapItem{key: noItem}
	for pend.key != noItem || len(q.heap) > 0 {
		var it heapItem
		if pend.key != noItem {
			it, pend.key = pend, noItem
		} else {
			it = q.pop()
		}
		t := it.t()
		nt := &nodes[t]
		if it.b() != nt.b {
			continue // stale: t was reached by a better entry since
		}
		if t == tg {
			path.Expanded = limit - left
			return PathComplete, t
		}
		// The node's point is read from nt where used (the neighbours'
		// writes do not touch it): loads, where locals would be spilled
		// and reloaded.
		dx, dy := gx-nt.pos.x, gy-nt.pos.y
		dist := geom.Hypot(dx, dy) // |pos goal|
		if dist < bestH {
			best, bestH = t, dist
		}
		if left--; left < 0 {
			path.Expanded = limit - left
			return PathSearchLimit, best
		}
		tr := &nav[t]
		in := nt.entry()
		// The exits: the edges to walkable neighbours, but the entry.
		exits := startExits
		if in >= 0 {
			exits = tr.pass &^ (1 << in)
		}
		for ; exits != 0; exits &= exits - 1 {
			i := bits.TrailingZeros8(exits)
			j := int(nextTab[i])
			lx, ly := tr.p[j][0], tr.p[j][1]
			rx, ry := tr.p[i][0], tr.p[i][1]
			if r > 0 {
				if in >= 0 && tr.width[meetTab[in<<2|i]] < twoR {
					continue // (the start's exits are tested above)
				}
				// The portal, shrunk by r at obstacle corners (as in corridor).
				ex, ey := rx-lx, ry-ly
				// s = min(r/n, 0.5) for the edge's length n, by the
				// precomputed 1/n (0 for n = 0, where ex, ey are 0).
				s := float32(r * tr.einv[i])
				if !(s <= 0.5) {
					s = 0.5
				}
				if tr.corner>>j&1 != 0 {
					lx, ly = lx+float32(ex*s), ly+float32(ey*s)
				}
				if tr.corner>>i&1 != 0 {
					rx, ry = rx+float32(ex*-s), ry+float32(ey*-s)
				}
			}
			// p is the point of the portal (l, r) that minimises
			// |pos p| + |p goal|: where the segment pos→goal crosses the
			// portal, or else the better endpoint. (Where pos and goal lie
			// on either side of the portal's line, the sum is convex along
			// the portal with its minimum at the crossing.)
			var p xy
			ex, ey := rx-lx, ry-ly
			den := float32(dx*ey) - float32(dy*ex)
			// dg is |p goal|; up is how much the detour through p
			// adds to b: |pos p| + |p goal| − |pos goal|, 0 where p is
			// on the segment pos→goal.
			var dg, up float32
			how := 0 // 0: neither end; 1: a crossing inside; 2: an end
			if den != 0 {
				plx, ply := nt.pos.x-lx, nt.pos.y-ly
				// The segment pos→goal meets the portal's line within
				// the portal when 0 ≤ un/den ≤ 1: compared without the
				// division.
				un := float32(ex*ply) - float32(ey*plx)
				sn := float32(dx*ply) - float32(dy*plx)
				if den < 0 { // negations are exact: sn/den is unchanged
					un, sn, den = -un, -sn, -den
				}
				if un >= 0 && un <= den {
					// s = min(max(sn/den, 0), 1), which also makes -0
					// +0. The tests are on sn, so the branches need not
					// wait for the division (nor the ends compute it):
					// for den > 0, sn/den ≤ 0 exactly when sn ≤ 0, and
					// sn/den rounds to a float32 above 1 exactly when
					// sn > den·(1 + 2⁻²⁴) (ties round to 1), a product
					// float64 holds exactly.
					var s float32
					how = 2
					if sn <= 0 {
						s = 0
					} else if float64(sn) > float64(den)*(1+0x1p-24) {
						s = 1
					} else {
						// p lies on the segment pos→goal, at un/den
						// of its length: no square root, and b stays.
						s = sn / den
						how = 1
						dg = dist - float32(dist*(un/den))
					}
					p = xy{lx + float32(ex*s), ly + float32(ey*s)}
				}
			}
			switch how {
			case 0:
				// The better end: the sum's four lengths are the
				// two ends' dp and dg.
				px, py := nt.pos.x, nt.pos.y
				dpl, dlg, dpr, drg := geom.Hypot(px-lx, py-ly), geom.Hypot(lx-gx, ly-gy), geom.Hypot(px-rx, py-ry), geom.Hypot(rx-gx, ry-gy)
				if dpl+dlg <= dpr+drg {
					p, dg, up = xy{lx, ly}, dlg, dpl+dlg-dist
				} else {
					p, dg, up = xy{rx, ry}, drg, dpr+drg-dist
				}
			case 2:
				dp := geom.Hypot(nt.pos.x-p.x, nt.pos.y-p.y)
				dg = geom.Hypot(p.x-gx, p.y-gy)
				up = dp + dg - dist
			}
			// b never falls along a corridor (up < 0 only by rounding),
			// so no triangle can become its own ancestor.
			b := nt.b
			if up > 0 {
				b += up
			}
			// The neighbour's node is looked at only now, once: a test
			// before the step (nu.b <= nt.b) skips nothing this one does
			// not (b >= nt.b), and its values would stay live across it.
			u := tr.n[i]
			nu := &nodes[u]
			if nu.tag>>2 == gen && nu.b <= b {
				continue // cannot improve
			}
			*nu = node{tag: nodeTag(gen, int(tr.back>>(2*i)&3)), b: b, pos: p}
			// f = g + hWeight·|p goal| for g = b − |p goal|, the
			// length of the polyline through the crossing points.
			ni := mkItem(b+float32((hWeight-1)*dg), b, u)
			switch {
			case pend.key == noItem:
				pend = ni
			case ni.key < pend.key:
				q.push(pend)
				pend = ni
			default:
				q.push(ni)
			}
		}
		if pend.key != noItem && len(q.heap) > 0 && q.heap[0].key < pend.key {
			q.push(pend)
			pend.key = noItem
		}
	}
	path.Expanded = limit - left
	return PathPartial, best
}

// funnel straightens the corridor in path into corners (the "simple
// stupid funnel algorithm", Mononen 2010) over portals shrunk by r, then
// (for r > 0) tightens them around discs of radius r (see tighten).
func (q *Query) funnel(start, end mgl32.Vec2, r float32, path *Path) {
	c := path.Corridor
	s0, e0 := xy{start[0], start[1]}, xy{end[0], end[1]}
	n := len(c)
	q.portals[0], q.ends[0] = portalPair{s0, s0}, portalEnds{t: -1}
	q.portals[n], q.ends[n] = portalPair{e0, e0}, portalEnds{t: -1}
	maxPts := q.MaxPathPoints
	if maxPts <= 0 {
		maxPts = 256
	}
	cs := append(q.corners[:0], corner{p: s0, t: -1})
	portals := q.portals
	// Each corner moves the apex to a later portal (the funnel's side
	// differs from the apex, so it was set after the apex), and the scan
	// restarts after it: at most len(portals)² steps.
	for k, apex := 0, s0; len(cs) < maxPts; {
		side, nk := funnelScan(portals, k, apex)
		if side < 0 {
			break
		}
		p := portals[nk].l
		if side == 1 {
			p = portals[nk].r
		}
		if p != cs[len(cs)-1].p {
			cs = q.addCorner(cs, c, p, nk, side)
		}
		k, apex = nk, p
	}
	if cs[len(cs)-1].p != e0 && len(cs) < maxPts+1 {
		cs = append(cs, corner{p: e0, t: -1, portal: int32(len(portals) - 1)})
	}
	if r > 0 {
		cs = q.tighten(cs, r)
	}
	q.corners = cs
	pts := path.Points[:0]
	if r > 0 {
		pts = q.emit(cs, r, maxPts, pts)
	} else {
		for _, k := range cs {
			pts = append(pts, mgl32.Vec2{k.p.x, k.p.y})
		}
	}
	if len(pts) > 0 && len(cs) > 0 && cs[len(cs)-1].p == e0 {
		pts[len(pts)-1] = end // exactly the end, as given
	}
	path.Points = pts
}

// funnelScan runs the funnel from apex, an end of portal k, over the
// portals after it until the path turns: it returns the side of the turn
// (0 left, 1 right; -1 when the portals end first) and the portal whose
// end the turn is at. (Its own function: the loop's few values then stay
// in registers.)
func funnelScan(portals []portalPair, k int, apex xy) (side, at int) {
	// The tests are cross(b − apex, p − apex) for a side's end b and a
	// portal end p, in float32 scalars. The sides b − apex are kept as
	// vectors (updated when a side moves) and each portal end's p − apex
	// is computed once, not per test. (A side is at the apex exactly when
	// its vector is zero.)
	var lx, ly, rx, ry float32 // left − apex, right − apex: zero at the apex
	leftI, rightI := k, k
	for i := k + 1; i < len(portals); i++ {
		pl, pr := portals[i].l, portals[i].r
		// Right side: narrow when pr is left of apex→right.
		px, py := pr.x-apex.x, pr.y-apex.y
		if float32(rx*py)-float32(ry*px) >= 0 {
			if rx == 0 && ry == 0 || float32(lx*py)-float32(ly*px) < 0 {
				rx, ry, rightI = px, py, i
			} else {
				return 0, leftI // pr crosses the left side: a corner there
			}
		}
		// Left side: narrow when pl is right of apex→left.
		px, py = pl.x-apex.x, pl.y-apex.y
		if float32(lx*py)-float32(ly*px) <= 0 {
			if lx == 0 && ly == 0 || float32(rx*py)-float32(ry*px) > 0 {
				lx, ly, leftI = px, py, i
			} else {
				return 1, rightI
			}
		}
	}
	return -1, 0
}

// addCorner appends to cs the funnel point p at portal k of corridor c, on
// its left (s = 0) or right (s = 1). (A method, not a closure: a closure
// that appends to cs would keep cs in memory through the funnel's loop.)
func (q *Query) addCorner(cs []corner, c []int32, p xy, k, s int) []corner {
	e := &q.ends[k]
	side := int8(0) // a vertex that touches no wall: the funnel point stands
	if e.corner>>s&1 != 0 {
		side = int8(1 - 2*s)
	}
	return append(cs, corner{p: p, c: e.p[s], vert: true, t: c[max(k-1, 0)], side: side, portal: int32(k)})
}

// portalPair is a portal of the funnel, seen from its entry side.
type portalPair struct{ l, r xy }
