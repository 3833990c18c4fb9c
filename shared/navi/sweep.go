package navi

import (
	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/geom"
)

// Skin is the gap a sweep leaves between the disc and the wall it stops
// at, so the next sweep does not start in contact.
const Skin = 1e-3

// SweepResult is the outcome of Query.Sweep.
type SweepResult struct {
	From, To mgl32.Vec2 // the requested motion
	Radius   float32
	// Hit reports a contact before To; Contact describes it (T is the
	// fraction of the motion, Point the contact on the wall, Normal points
	// from the wall to the disc).
	Hit     bool
	Contact geom.Hit
	// Stop is the centre at first contact, Skin off the wall (To when no hit).
	Stop mgl32.Vec2
	// Slide is the rest of the motion projected along the wall, and End
	// where the disc stops after sliding it (Stop when there is no slide).
	Slide mgl32.Vec2
	End   mgl32.Vec2
	// SlideHit and SlideContact describe a contact during the slide.
	SlideHit     bool
	SlideContact geom.Hit
}

// Sweep moves a disc of radius r from from toward to through triangles that
// have all of flags, against the edges that bound them (their sides and end
// points): it finds the first contact, stops there, and slides once along
// the wall with the rest of the motion. A disc that starts outside such
// triangles does not move (Hit at T = 0). Contacts the disc is moving away
// from are ignored, so a disc resting against a wall can leave it.
func (q *Query) Sweep(from, to mgl32.Vec2, r float32, flags Flags, res *SweepResult) {
	*res = SweepResult{From: from, To: to, Radius: r, Stop: from, End: from}
	if !geom.Finite2(from) || !geom.Finite2(to) || !geom.Finite(r) || r < 0 {
		return
	}
	t := q.m.Locate(from)
	if t < 0 || q.m.tris[t].Flags&flags != flags {
		res.Hit = true
		n, _ := geom.Unit(geom.Sub(from, to))
		res.Contact = geom.Hit{T: 0, Point: from, Normal: n}
		return
	}
	motion := geom.Sub(to, from)
	hit, ok := q.sweepOnce(t, from, motion, r, flags)
	if !ok {
		res.Stop, res.End = to, to
		return
	}
	res.Hit, res.Contact = true, hit
	stop := q.m.settle(from, geom.Axpy(from, motion, hit.T), hit.Normal, r, flags)
	res.Stop, res.End = stop, stop
	rest := geom.Scale(motion, 1-hit.T)
	along := geom.Sub(rest, geom.Scale(hit.Normal, geom.Dot(rest, hit.Normal)))
	if geom.Dot(along, along) <= 0 {
		return
	}
	res.Slide = along
	t2 := q.m.locateFrom(t, stop)
	if t2 < 0 || q.m.tris[t2].Flags&flags != flags {
		return
	}
	hit2, ok := q.sweepOnce(t2, stop, along, r, flags)
	if !ok {
		res.End = q.m.settle(stop, geom.Add(stop, along), mgl32.Vec2{}, r, flags)
		return
	}
	res.SlideHit, res.SlideContact = true, hit2
	res.End = q.m.settle(stop, geom.Axpy(stop, along, hit2.T), hit2.Normal, r, flags)
}

// settle backs the contact position p off the wall by Skin along n. When
// float32 rounding at a sharp corner leaves that (or p itself) outside
// triangles with flags, it returns the farthest point of from→p where the
// disc still fits (bisection, 24 steps).
func (m *Mesh) settle(from, p, n mgl32.Vec2, r float32, flags Flags) mgl32.Vec2 {
	fits := func(x mgl32.Vec2) bool { return m.Contains(x, float32(r*0.99), flags) }
	if s := geom.Axpy(p, n, Skin); fits(s) {
		return s
	}
	if fits(p) {
		return p
	}
	d := geom.Sub(p, from)
	lo, hi := float32(0), float32(1)
	for i := 0; i < 24; i++ {
		mid := (lo + hi) / 2
		if fits(geom.Axpy(from, d, mid)) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return geom.Axpy(from, d, lo)
}

// locateFrom locates p by walking from t (falling back to Locate); -1
// when p is outside the mesh.
func (m *Mesh) locateFrom(t int32, p mgl32.Vec2) int32 {
	if t >= 0 {
		if r := m.walkTo(t, p, 64); r >= 0 {
			return r
		}
	}
	return m.Locate(p)
}

// sweepOnce visits the triangles the swept disc can reach (breadth-first
// across edges that do not block and come within r of the motion) and
// sweeps the disc against each blocking edge it meets.
func (q *Query) sweepOnce(t0 int32, from, motion mgl32.Vec2, r float32, flags Flags) (geom.Hit, bool) {
	m := q.m
	to := geom.Add(from, motion)
	reach := float32((r + Skin) * (r + Skin))
	q.next()
	q.stamp[t0] = q.gen
	qu := append(q.queue[:0], t0)
	best := geom.Hit{T: 2}
	found := false
	c := geom.Circle{Center: from, Radius: r}
	for h := 0; h < len(qu) && h < len(m.tris); h++ {
		t := qu[h]
		tr := &m.tris[t]
		for i := 0; i < 3; i++ {
			a, b := m.verts[tr.V[i]], m.verts[tr.V[next(i)]]
			if segSegDist2(from, to, a, b) > reach {
				continue
			}
			if m.blocks(t, i, flags) {
				hit, ok := geom.SweepCircleSegment(c, motion, geom.Segment{A: a, B: b})
				ok = ok && geom.Dot(hit.Normal, motion) < 0
				if x, crossed := wallCrossing(from, to, a, b); crossed && (!ok || x.T < hit.T) {
					hit, ok = x, true
				}
				if ok && hit.T < best.T {
					best, found = hit, true
				}
				continue
			}
			if u := tr.N[i]; q.stamp[u] != q.gen {
				q.stamp[u] = q.gen
				qu = append(qu, u)
			}
		}
	}
	q.queue = qu
	return best, found
}

// wallCrossing reports whether the centre's path from→to reaches the
// blocking edge a→b (the walkable side on its left) from that side: to on
// or beyond the edge's line, from not beyond it, and the path meeting the
// closed segment. The decision is exact (orient), so it holds where the
// float32 capsule test of SweepCircleSegment misses: a path crossing an edge
// within rounding of its end point can fall just past the end of the side
// test and, with a zero radius (the end disc is a single point), beside the
// end disc, while passing just beside the next edge at that vertex too, and
// so leave the walkable area unnoticed. T is where the path meets the
// edge's line, and Normal the edge's unit left normal (toward the walkable
// side).
func wallCrossing(from, to, a, b mgl32.Vec2) (geom.Hit, bool) {
	pa, pb, pf, pt := v64(a), v64(b), v64(from), v64(to)
	o2 := orient(pa, pb, pt)
	if o2 > 0 {
		return geom.Hit{}, false
	}
	o1 := orient(pa, pb, pf)
	if o1 < 0 || o1 == 0 && o2 == 0 {
		return geom.Hit{}, false
	}
	if orient(pf, pt, pa)*orient(pf, pt, pb) > 0 {
		return geom.Hit{}, false
	}
	ex, ey := pb.x-pa.x, pb.y-pa.y
	d1 := float64(ex*(pf.y-pa.y)) - float64(ey*(pf.x-pa.x)) // conversions: no FMA
	d2 := float64(ex*(pt.y-pa.y)) - float64(ey*(pt.x-pa.x))
	t := float64(0)
	if o1 > 0 && d1 > d2 {
		t = min(max(d1/(d1-d2), 0), 1)
	}
	n, l := geom.Unit(mgl32.Vec2{a[1] - b[1], b[0] - a[0]})
	if !(l > 0) {
		n, _ = geom.Unit(geom.Sub(from, to))
	}
	motion := geom.Sub(to, from)
	return geom.Hit{T: float32(t), Point: geom.Axpy(from, motion, float32(t)), Normal: n}, true
}

// LineOfSight reports whether the segment from a to b stays in triangles
// that have all of flags (Sight for seeing). Touching a blocking edge's end
// point counts as blocked. It does not allocate and is safe for concurrent use.
func (m *Mesh) LineOfSight(a, b mgl32.Vec2, flags Flags) bool {
	t := m.Locate(a)
	if t < 0 || m.tris[t].Flags&flags != flags || !geom.Finite2(b) {
		return false
	}
	pa, pb := v64(a), v64(b)
	in := -1
	for step := 0; step < len(m.tris)+8; step++ {
		tr := &m.tris[t]
		var o [3]int
		for i := 0; i < 3; i++ {
			o[i] = orient(v64(m.verts[tr.V[i]]), v64(m.verts[tr.V[next(i)]]), pb)
		}
		if o[0] >= 0 && o[1] >= 0 && o[2] >= 0 {
			return true
		}
		exit := -1
		for i := 0; i < 3; i++ {
			if i == in || o[i] >= 0 {
				continue
			}
			s0 := orient(pa, pb, v64(m.verts[tr.V[i]]))
			s1 := orient(pa, pb, v64(m.verts[tr.V[next(i)]]))
			if s0 <= 0 && s1 >= 0 && (s0 != 0 || s1 != 0) {
				exit = i
				break
			}
		}
		if exit < 0 {
			return false
		}
		if m.blocks(t, exit, flags) {
			return false
		}
		u := tr.N[exit]
		in = m.edgeIndex(u, tr.V[next(exit)], tr.V[exit])
		t = u
	}
	return false
}
