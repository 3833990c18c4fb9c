package navi

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/twinframe/twinframe/shared/geom"
)

// A path for a disc of radius r is made of straight legs tangent to discs
// of radius r around the obstacle vertices it turns at, joined by arcs. The
// funnel finds which vertices those are and on which side the path passes
// them; tighten then computes the tangent legs exactly (so a leg keeps r
// from the vertices at both its ends), adds any further obstacle vertex of
// the corridor that a leg would pass closer than r, and drops a vertex the
// tangents no longer wrap around. emit replaces each arc by one or two
// corners on the legs' lines (a mitre), so every leg lies on a tangent line
// and keeps r from each of the discs.

// corner is a point where the path turns: around the mesh vertex at c (on
// the path's left for side +1, right for side −1), or at the point p itself
// (side 0: the start, the end, and turns at vertices that touch no wall).
type corner struct {
	p      xy    // the funnel point (the portal end shrunk by r)
	c      xy    // the vertex
	vert   bool  // c is set (all but the start and end)
	t      int32 // a triangle near the corner, a location hint (-1: none)
	side   int8
	portal int32 // the index of the portal the corner belongs to
}

// leg is the line from one corner's disc to the next's: a to b, direction
// d and left normal n, all unit.
type leg struct {
	a, b, d, n xy
	ok         bool // false when no tangent exists (see tangent)
}

// inflate widens the discs a little, so that rounding in the float32
// tangent construction does not bring a leg under r.
const inflate = 1.001

func (m *Mesh) centre(k *corner) xy {
	if k.side == 0 {
		return k.p
	}
	return k.c
}

// tangent returns the line touching the disc (c1, ρ1) and then (c2, ρ2),
// where a signed radius ρ > 0 keeps the centre on the line's left. With
// the line's left normal n, n·(c − x) = ρ for both centres, so
// n·(c2 − c1) = ρ2 − ρ1: the direction is that of c1→c2 turned by φ with
// sin φ = −(ρ2 − ρ1)/|c2 − c1|.
func tangent(c1 xy, rho1 float32, c2 xy, rho2 float32) leg {
	dx, dy := c2.x-c1.x, c2.y-c1.y
	l := geom.Hypot(dx, dy)
	if !(l > 0) {
		return leg{}
	}
	s := -(rho2 - rho1) / l
	if !(s >= -1 && s <= 1) {
		return leg{} // the discs overlap and the path passes between them
	}
	c := float32(math.Sqrt(float64(1 - float32(s*s))))
	ux, uy := dx/l, dy/l
	d := xy{float32(c*ux) - float32(s*uy), float32(c*uy) + float32(s*ux)}
	n := xy{-d.y, d.x}
	return leg{
		a:  xy{c1.x - float32(rho1*n.x), c1.y - float32(rho1*n.y)},
		b:  xy{c2.x - float32(rho2*n.x), c2.y - float32(rho2*n.y)},
		d:  d,
		n:  n,
		ok: true,
	}
}

func (m *Mesh) legOf(a, b *corner, r float32) leg {
	ra, rb := float32(float32(a.side)*r)*inflate, float32(float32(b.side)*r)*inflate
	return tangent(m.centre(a), ra, m.centre(b), rb)
}

// tighten fixes the corners cs of a path for radius r (see above) and
// returns them; q.legs holds the legs between them. It walks the legs in
// order; a leg is final once it wraps correctly around the disc at its
// start and passes no obstacle vertex of its stretch of the corridor
// closer than r. Each change re-examines only the legs it touches.
func (q *Query) tighten(cs []corner, r float32) []corner {
	m := q.m
	n := 0
	for k := range cs {
		if n > 0 && cs[k].side != 0 && cs[k].c == cs[n-1].c && cs[k].side == cs[n-1].side {
			continue // the funnel turned twice at one vertex: one disc
		}
		cs[n] = cs[k]
		n++
	}
	cs = cs[:n]
	legs := q.legs[:0]
	limit := 4*len(q.portals) + 16
	i := 0
	for steps := 0; i+1 < len(cs) && steps < limit; steps++ {
		lg := m.legOf(&cs[i], &cs[i+1], r)
		if !lg.ok {
			// No tangent: the path squeezes between the two discs, or
			// two points coincide. Keep the funnel point of the inner
			// disc (the ends have none).
			j := i + 1
			if j == len(cs)-1 || cs[j].side == 0 {
				j = i
			}
			if cs[j].side == 0 {
				legs = append(legs, lg)
				i++
				continue
			}
			cs[j].side = 0
			if j == i && i > 0 {
				i--
				legs = legs[:i]
			}
			continue
		}
		if i > 0 && cs[i].side != 0 {
			if in := legs[i-1]; in.ok && float32(cs[i].side)*(float32(in.d.x*lg.d.y)-float32(in.d.y*lg.d.x)) < 0 {
				// The tangents turn the other way: the path no longer
				// touches this disc.
				cs = append(cs[:i], cs[i+1:]...)
				i--
				legs = legs[:i]
				continue
			}
		}
		if add, ok := q.intruder(cs, i, lg, r); ok {
			cs = append(cs[:i+1], cs[i:]...)
			cs[i+1] = add
			continue
		}
		legs = append(legs, lg)
		i++
	}
	for ; i+1 < len(cs); i++ { // the step limit was reached
		legs = append(legs, m.legOf(&cs[i], &cs[i+1], r))
	}
	q.legs = legs
	return cs
}

// intruder returns the obstacle vertex, among the portal ends of the
// corridor between corners i and i+1, that leg lg passes closest under r,
// as a corner on its side of the path.
func (q *Query) intruder(cs []corner, i int, lg leg, r float32) (corner, bool) {
	best := float32(r*r) * 0.998 // (0.999 r)²
	found := false
	var add corner
	lo, hi := max(cs[i].portal, 1), min(cs[i+1].portal, int32(len(q.ends))-2)
	// The loop's invariants in locals (Go does not hoist loads out of
	// loops): the vertices of the two corners (NaN, equal to nothing, for
	// none) and the leg.
	nan := float32(math.NaN())
	c0, c1 := xy{nan, nan}, xy{nan, nan}
	if cs[i].vert {
		c0 = cs[i].c
	}
	if cs[i+1].vert {
		c1 = cs[i+1].c
	}
	ax, ay, dx, dy := lg.a.x, lg.a.y, lg.d.x, lg.d.y
	ends := q.ends
	// Consecutive portals often share an end, which is then tested again
	// (its distance is the same, not smaller, so the first portal keeps
	// it): skipping a repeat would be a branch that goes either way.
	for p := lo; p <= hi; p++ {
		pv := &ends[p]
		if pv.corner&1 != 0 {
			w := pv.p[0]
			// Far from the leg's line (d is a unit vector): far from
			// the leg. The corners' own vertices do not count.
			if e := float32((w.x-ax)*dy) - float32((w.y-ay)*dx); !(e >= r || e <= -r || w == c0 || w == c1) {
				if d := segDist2xy(w.x, w.y, ax, ay, lg.b.x, lg.b.y); d < best {
					// The left end of a portal is on the path's left.
					best, found = d, true
					add = corner{p: q.portals[p].l, c: w, vert: true, t: pv.t, side: 1, portal: p}
				}
			}
		}
		if pv.corner&2 != 0 {
			w := pv.p[1]
			if e := float32((w.x-ax)*dy) - float32((w.y-ay)*dx); !(e >= r || e <= -r || w == c0 || w == c1) {
				if d := segDist2xy(w.x, w.y, ax, ay, lg.b.x, lg.b.y); d < best {
					best, found = d, true
					add = corner{p: q.portals[p].r, c: w, vert: true, t: pv.t, side: -1, portal: p}
				}
			}
		}
	}
	return add, found
}

// emit appends the path's points for the corners cs and legs q.legs to pts:
// the start, then per corner the point or the mitre of its disc, then the
// end. A corner that does not fit (another wall is near) is pushed off it.
func (q *Query) emit(cs []corner, r float32, maxPts int, pts []mgl32.Vec2) []mgl32.Vec2 {
	m := q.m
	pts = append(pts, mgl32.Vec2{cs[0].p.x, cs[0].p.y})
	last := len(cs) - 1
	// A turn adds at most two points; the last corner always comes.
	for i := 1; i < last && len(pts)+2 <= maxPts; i++ {
		k := &cs[i]
		n0 := len(pts)
		if k.side == 0 {
			pts = append(pts, mgl32.Vec2{k.p.x, k.p.y})
		} else {
			pts = q.mitre(pts, m.centre(k), k.p, float32(r*inflate), k.side, q.legs[i-1], q.legs[i])
		}
		for j := n0; j < len(pts); j++ {
			if k.side == 0 || !m.fitsBeside(k.c, pts[j], r) {
				pts[j] = m.fit(k.t, pts[j], k.p, r)
			}
		}
	}
	if last > 0 {
		pts = append(pts, mgl32.Vec2{cs[last].p.x, cs[last].p.y})
	}
	return pts
}

// fit returns p when the agent fits there, else p pushed off the walls
// near it, else the same for the funnel point fp (which lies inside the
// corridor, so the path never leaves the mesh).
func (m *Mesh) fit(hint int32, p mgl32.Vec2, fp xy, r float32) mgl32.Vec2 {
	if m.containsFrom(m.locateFrom(hint, p), p, float32(r*0.999), Walk) {
		return p
	}
	if pp, ok := m.pushOut(hint, p, r, Walk); ok {
		return pp
	}
	f := mgl32.Vec2{fp.x, fp.y}
	if m.containsFrom(m.locateFrom(hint, f), f, float32(r*0.999), Walk) {
		return f
	}
	if pp, ok := m.pushOut(hint, f, r, Walk); ok {
		return pp
	}
	return f
}

// mitre appends the corners that replace the arc around centre c from
// leg in to leg out: where the two tangent lines meet, or, past a right
// angle, where each meets the tangent halfway round, so no corner lies
// farther than r·√2 from c.
func (q *Query) mitre(pts []mgl32.Vec2, c, fp xy, rho float32, side int8, in, out leg) []mgl32.Vec2 {
	if !in.ok || !out.ok {
		return append(pts, mgl32.Vec2{fp.x, fp.y}) // the funnel point
	}
	sg := -float32(side)
	oi := xy{float32(sg * in.n.x), float32(sg * in.n.y)} // from c to the tangent point
	oo := xy{float32(sg * out.n.x), float32(sg * out.n.y)}
	meet := func(a, b xy) mgl32.Vec2 {
		// c + ρ(a + b)/(1 + a·b): at distance ρ from both lines.
		s := rho / (1 + float32(a.x*b.x) + float32(a.y*b.y))
		return mgl32.Vec2{c.x + float32((a.x+b.x)*s), c.y + float32((a.y+b.y)*s)}
	}
	if float32(oi.x*oo.x)+float32(oi.y*oo.y) >= 0 {
		return append(pts, meet(oi, oo))
	}
	mx, my := oi.x+oo.x, oi.y+oo.y
	ml := geom.Hypot(mx, my)
	om := in.d // a U-turn: halfway round faces the way the path came
	if ml > 1e-3 {
		om = xy{mx / ml, my / ml}
	}
	return append(pts, meet(oi, om), meet(om, oo))
}
