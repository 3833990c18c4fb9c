package navi

import (
	"github.com/go-gl/mathgl/mgl32"
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
		l += dist(p.Points[i-1], p.Points[i])
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
// corners; each corner where the path turns around an obstacle vertex is
// then moved to the mitred offset of that vertex (r from both legs' lines,
// at most 3r from the vertex) when the agent fits there, and a corner that
// still touches a wall is pushed off it. Corners therefore keep r from
// walls; legs keep r except past very sharp turns or where a leg between
// two moved corners passes a third obstacle (TestPathClearanceRandom
// measures this: on random maps fewer than 1 path in 50 has a leg closer
// than r/2).
func (q *Query) FindPath(start, goal mgl32.Vec2, r float32, path *Path) PathStatus {
	m := q.m
	path.Points = path.Points[:0]
	path.Corridor = path.Corridor[:0]
	path.StartMoved, path.GoalMoved, path.Expanded = false, false, 0
	path.End = start
	if !finite2(start) || !finite2(goal) || !finite32(r) || r < 0 {
		path.Status = PathNoPath
		return path.Status
	}
	ts := m.Locate(start)
	if ts < 0 || m.tris[ts].Flags&Walk == 0 || !m.Contains(start, r, Walk) {
		p, t, ok := q.Nearest(start, r, q.snapDistance(), Walk)
		if !ok {
			path.Status = PathNoPath
			return path.Status
		}
		start, ts, path.StartMoved = p, t, true
	}
	tg := m.Locate(goal)
	if tg < 0 || m.tris[tg].Flags&Walk == 0 || !m.Contains(goal, r, Walk) {
		if p, t, ok := q.Nearest(goal, r, q.snapDistance(), Walk); ok {
			goal, tg, path.GoalMoved = p, t, true
		} else {
			tg = -1 // unreachable: search for the closest point
		}
	}
	status, best := q.search(start, goal, ts, tg, r, path)
	path.Status = status
	// Corridor, from start to best.
	for t := best; t >= 0; t = q.nodes[t].parent {
		path.Corridor = append(path.Corridor, t)
		if len(path.Corridor) > len(m.tris) {
			break
		}
	}
	c := path.Corridor
	for i, j := 0, len(c)-1; i < j; i, j = i+1, j-1 {
		c[i], c[j] = c[j], c[i]
	}
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

// portal returns the endpoints of edge i of t as seen when leaving t across
// it (left, right), shrunk by r at obstacle corners.
func (m *Mesh) portal(t int32, i int, r float32) (l, rt mgl32.Vec2) {
	nt := &m.nav[t]
	l, rt = nt.p[next(i)], nt.p[i]
	if r > 0 {
		e := sub(rt, l)
		n := nt.elen[i]
		s := float32(0.5)
		if n > 0 {
			s = min(r/n, 0.5)
		}
		ls, rs := l, rt
		if nt.corner>>next(i)&1 != 0 {
			ls = madd(l, e, s)
		}
		if nt.corner>>i&1 != 0 {
			rs = madd(rt, e, -s)
		}
		l, rt = ls, rs
	}
	return l, rt
}

// entryPoint is the point x of the portal (l, r) that minimises
// |p x| + |x goal|: where the segment p→goal crosses the portal, or else
// the better endpoint.
func entryPoint(p, goal, l, r mgl32.Vec2) mgl32.Vec2 {
	d := sub(goal, p)
	e := sub(r, l)
	den := cross(d, e)
	if den != 0 {
		u := cross(e, sub(p, l)) / den
		if u >= 0 && u <= 1 {
			// p and goal on either side of the portal's line: the sum is
			// convex along the portal with its minimum at the crossing.
			s := cross(d, sub(p, l)) / den
			return madd(l, e, min(max(s, 0), 1))
		}
	}
	if dist(p, l)+dist(l, goal) <= dist(p, r)+dist(r, goal) {
		return l
	}
	return r
}

func (q *Query) search(start, goal mgl32.Vec2, ts, tg int32, r float32, path *Path) (PathStatus, int32) {
	m := q.m
	q.next()
	gen := q.gen
	nodes := q.nodes
	nodes[ts] = node{stamp: gen, parent: -1, entry: -1, pos: start}
	best, bestH := ts, dist(start, goal)
	q.push(heapItem{bestH, 0, ts})
	limit := q.maxNodes()
	twoR := float32(2 * r)
	for len(q.heap) > 0 {
		it := q.pop()
		t := it.t
		nt := &nodes[t]
		if it.g != nt.g {
			continue // stale: t was reached more cheaply since
		}
		if t == tg {
			return PathComplete, t
		}
		if h := it.f - it.g; h < bestH {
			best, bestH = t, h
		}
		path.Expanded++
		if path.Expanded > limit {
			return PathSearchLimit, best
		}
		tr := &m.nav[t]
		in := int(nt.entry)
		for i := 0; i < 3; i++ {
			u := tr.n[i]
			if i == in || u < 0 || !m.nav[u].walk {
				continue
			}
			nu := &nodes[u]
			if nu.stamp == gen && nu.g <= nt.g {
				continue // cannot improve: the new g is at least nt.g
			}
			if r > 0 {
				if in < 0 {
					if tr.corner>>i&1 != 0 && tr.corner>>next(i)&1 != 0 && tr.elen[i] < twoR {
						continue
					}
				} else {
					k := i // edges i and prev(i) meet at V[i]
					if i != next(in) {
						k = in
					}
					if tr.width[k] < twoR {
						continue
					}
				}
			}
			l, rr := m.portal(t, i, r)
			p := entryPoint(nt.pos, goal, l, rr)
			g := nt.g + dist(nt.pos, p)
			if nu.stamp == gen && nu.g <= g {
				continue
			}
			*nu = node{stamp: gen, g: g, parent: t, entry: int8(tr.back >> (2 * i) & 3), pos: p}
			q.push(heapItem{g + dist(p, goal), g, u})
		}
	}
	return PathPartial, best
}

// funnel straightens the corridor in path into corners (the "simple
// stupid funnel algorithm", Mononen 2010) over portals shrunk by r.
func (q *Query) funnel(start, end mgl32.Vec2, r float32, path *Path) {
	m := q.m
	c := path.Corridor
	q.portals = append(q.portals[:0], [2]mgl32.Vec2{start, start})
	q.portalV = append(q.portalV[:0], [2]int32{-1, -1})
	for k := 0; k+1 < len(c); k++ {
		i := -1
		for e := 0; e < 3; e++ {
			if m.tris[c[k]].N[e] == c[k+1] {
				i = e
				break
			}
		}
		if i < 0 {
			break
		}
		l, rt := m.portal(c[k], i, r)
		q.portals = append(q.portals, [2]mgl32.Vec2{l, rt})
		tr := &m.tris[c[k]]
		q.portalV = append(q.portalV, [2]int32{tr.V[next(i)], tr.V[i]})
	}
	q.portals = append(q.portals, [2]mgl32.Vec2{end, end})
	q.portalV = append(q.portalV, [2]int32{-1, -1})
	maxPts := q.MaxPathPoints
	if maxPts <= 0 {
		maxPts = 256
	}
	pts := append(path.Points[:0], start)
	cv := append(q.cornerV[:0], -1)
	ct := append(q.cornerT[:0], -1)
	portals := q.portals
	apex, left, right := start, start, start
	apexI, leftI, rightI := 0, 0, 0
	for i, guard := 1, 0; i < len(portals) && guard < 4*len(portals)*len(portals)+16; i, guard = i+1, guard+1 {
		pl, pr := portals[i][0], portals[i][1]
		// Right side: narrow when pr is left of apex→right.
		if cross(sub(right, apex), sub(pr, apex)) >= 0 {
			if apex == right || cross(sub(left, apex), sub(pr, apex)) < 0 {
				right, rightI = pr, i
			} else {
				if len(pts) >= maxPts {
					break
				}
				if left != pts[len(pts)-1] {
					pts = append(pts, left)
					cv = append(cv, q.portalV[leftI][0])
					ct = append(ct, c[max(leftI-1, 0)])
				}
				apex, apexI = left, leftI
				left, right, leftI, rightI = apex, apex, apexI, apexI
				i = apexI
				continue
			}
		}
		// Left side: narrow when pl is right of apex→left.
		if cross(sub(left, apex), sub(pl, apex)) <= 0 {
			if apex == left || cross(sub(right, apex), sub(pl, apex)) > 0 {
				left, leftI = pl, i
			} else {
				if len(pts) >= maxPts {
					break
				}
				if right != pts[len(pts)-1] {
					pts = append(pts, right)
					cv = append(cv, q.portalV[rightI][1])
					ct = append(ct, c[max(rightI-1, 0)])
				}
				apex, apexI = right, rightI
				left, right, leftI, rightI = apex, apex, apexI, apexI
				i = apexI
				continue
			}
		}
	}
	if pts[len(pts)-1] != end && len(pts) < maxPts+1 {
		pts = append(pts, end)
		cv = append(cv, -1)
		ct = append(ct, -1)
	}
	q.cornerV, q.cornerT = cv, ct
	if r > 0 {
		m.miter(pts, cv, ct, r)
	}
	path.Points = pts
}

// miter moves each corner of the path that turns around an obstacle corner
// to the mitred offset of that corner: the point at distance r from both
// legs' lines on the outside of the turn (at most 3r from the vertex). The
// shrunk-portal point stays when the mitred point does not fit.
func (m *Mesh) miter(pts []mgl32.Vec2, cv, ct []int32, r float32) {
	for i := 1; i+1 < len(pts); i++ {
		if p, ok := m.mitred(pts, i, cv[i], r); ok && m.containsFrom(m.locateFrom(ct[i], p), p, float32(r*0.999), Walk) {
			pts[i] = p
			continue
		}
		// The mitre does not fit (or does not apply): push the corner off
		// any wall it touches.
		if !m.containsFrom(m.locateFrom(ct[i], pts[i]), pts[i], float32(r*0.999), Walk) {
			if p, ok := m.pushOut(ct[i], pts[i], r, Walk); ok {
				pts[i] = p
			}
		}
	}
}

// mitred returns the mitred offset of obstacle vertex v for the corner i of
// pts, if the corner turns around v.
func (m *Mesh) mitred(pts []mgl32.Vec2, i int, v int32, r float32) (mgl32.Vec2, bool) {
	if v < 0 || !m.corner[v] {
		return mgl32.Vec2{}, false
	}
	V := m.verts[v]
	a := normalize(sub(pts[i], pts[i-1]))
	b := normalize(sub(pts[i+1], pts[i]))
	n := normalize(sub(a, b))
	if n == (mgl32.Vec2{}) || dot(n, sub(pts[i], V)) < 0 {
		return mgl32.Vec2{}, false // straight on, or the offset would face V
	}
	s := cross(a, n)
	if s < 0 {
		s = -s
	}
	d := float32(3 * r)
	if float32(s*3) > 1 {
		d = r / s
	}
	return madd(V, n, float32(d*1.001)), true
}
