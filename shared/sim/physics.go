package sim

import (
	"cmp"
	"slices"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/geom"
)

// Physics tolerances.
const (
	// Skin is the gap a sweep leaves between a stopped mover and what it hit, so that the
	// next frame starts clear of it despite float32 rounding.
	Skin float32 = 2e-3
	// PathClearance is added to an entity's radius when it plans a path. Paths keep
	// their radius from walls; planned for the bare radius, they graze the walls they
	// run along and squeeze through gaps exactly as wide as the entity, where a sweep
	// (which stops a Skin short) cannot follow them.
	PathClearance float32 = 5 * Skin
	// OverlapTolerance is how far two blocking entities may interpenetrate before
	// CheckInvariants reports it.
	OverlapTolerance float32 = 0.01
)

// EventKind says what an Event reports.
type EventKind uint8

const (
	OnCollide      EventKind = iota + 1 // A ran into B (0: a wall) at Point
	OnOverlapBegin                      // A and B (A < B) began to overlap
	OnOverlapEnd                        // A and B (A < B) stopped overlapping
	OnHotspotEnter                      // A's centre entered hotspot marker Marker
	OnHotspotLeave                      // A's centre left hotspot marker Marker
)

func (k EventKind) String() string {
	return [...]string{"event?", "collide", "overlap-begin", "overlap-end", "hotspot-enter", "hotspot-leave", "event?"}[min(int(k), 6)]
}

// Event is something physics observed in a frame. Events of a step are delivered after
// it (Game.Events) in a deterministic order: collisions in mover id order, then overlap
// changes in (A, B) order, then hotspot changes in marker then entity order. Kind is
// last so that it packs with Marker: 48 bytes instead of 56 (a jammed crowd appends
// thousands of collisions a frame).
type Event struct {
	Frame  uint64
	A, B   EntityID
	Point  mgl32.Vec2
	Normal mgl32.Vec2 // collisions: from B (or the wall) towards A
	Marker int32      // hotspot events: the hotspot marker
	Kind   EventKind
}

// Events returns the events of the last step. The slice is reused by the next step.
func (g *Game) Events() []Event { return g.events }

// Sweep records an entity's last physics sweep, for debug drawing: the disc moved from
// Start to End; Hit says it touched Other (0: a wall) at Point with Normal.
type Sweep struct {
	Frame         uint64
	Start, End    mgl32.Vec2
	Radius        float32
	Hit           bool
	Other         EntityID
	Point, Normal mgl32.Vec2
}

type pair struct{ a, b EntityID }

func cmpPair(x, y pair) int { return cmp.Or(cmp.Compare(x.a, y.a), cmp.Compare(x.b, y.b)) }

// backoff returns the fraction of a motion of length l to travel towards a contact at t,
// leaving Skin.
func backoff(t, l float32) float32 {
	if !(l > 0) {
		return 0
	}
	return max(0, t-Skin/l)
}

// physicsResolveEntities is the physics step (PhysicsResolveEntities): each entity with
// a motion, in id order, is swept against its region's walls (one slide along the wall
// it hits) and then, if it is blocking, against the other blocking entities (truncated at
// the first contact, one slide); projectiles sweep against walls and every colliding
// entity. Each entity's move is committed (commitMove) right after its sweep: no later
// sweep reads what a commit changes, and one pass over the entities, which do not fit
// in the cache at 10k, is cheaper than two. Then overlaps are recomputed and compared
// with the last frame's.
func (g *Game) physicsResolveEntities() {
	for _, r := range g.regions {
		if r.grid.staged {
			r.grid.buildStaged(g.ents)
		} else {
			r.grid.build(g.ents, r.id)
		}
	}
	g.owned = g.owned[:0]
	for i, e := range g.ents {
		from := e.pos // where locomote planned from: nothing moved it since
		if !e.dead && (e.motion[0] != 0 || e.motion[1] != 0) {
			if r := g.regionOf(e); r == nil {
				// Not in a region of the game: it does not move.
			} else if e.projectile() {
				g.moveProjectile(r, e)
			} else {
				g.moveEntity(r, e, i)
			}
		}
		if e.projectile() && !e.dead && g.frame >= e.power.end {
			// Its flight is over, whether it moved this frame or not (a command may
			// have stopped, slowed or moved it).
			e.dead = true
			g.destroys++
		}
		if e.motion[0] != 0 || e.motion[1] != 0 || e.loco.mode == Direct || e.loco.mode == PathMove {
			// Else commitMove has nothing to do: an entity without motion commits only
			// the arrival of a Direct or PathMove move (the idle of a crowd, 40% of it
			// downtown, skip the call).
			g.commitMove(e, from)
		}
		if e.owner >= 0 {
			g.owned = append(g.owned, e) // updatePortals' candidates
		}
	}
	g.overlaps()
}

// moveEntity moves e, at index i of the entity list.
func (g *Game) moveEntity(r *Region, e *Entity, i int) {
	start, m, rad := e.pos, e.motion, e.radius
	sw := Sweep{Frame: g.frame, Start: start, Radius: rad}
	target := geom.Add(start, m)
	wallHit := false
	// Every sweep below keeps its disc within |m| + rad of start (|x| + |y| bounds
	// |m|): when no wall is that near, the wall sweeps, which are not inlined, are
	// skipped. Most movers of a crowd are far from walls.
	nearWall := r.walls.near(start, rad+abs32(m[0])+abs32(m[1]))
	if !nearWall {
		// No wall sweep.
	} else if h, ok := r.walls.sweep(geom.Circle{Center: start, Radius: rad}, m); ok {
		wallHit = true
		t := backoff(h.T, geom.Len(m))
		p1 := geom.Axpy(start, m, t)
		rest := geom.Scale(m, 1-t)
		slide := geom.Sub(rest, geom.Scale(h.Normal, geom.Dot(rest, h.Normal)))
		if h2, ok := r.walls.sweep(geom.Circle{Center: p1, Radius: rad}, slide); ok {
			slide = geom.Scale(slide, backoff(h2.T, geom.Len(slide)))
		}
		target = geom.Add(p1, slide)
		sw.Hit, sw.Point, sw.Normal = true, h.Point, h.Normal
		g.events = append(g.events, Event{Kind: OnCollide, Frame: g.frame, A: e.id, Point: h.Point, Normal: h.Normal})
	}
	mm := geom.Sub(target, start)
	if e.collision == Blocking && (mm[0] != 0 || mm[1] != 0) {
		// Both entity sweeps below stay within |mm| of start: gather the candidates once.
		l := float32(geom.Len(mm)*1.001) + 1e-3
		g.gatherNear(&r.grid, e, geom.Sub(start, vec(l)), geom.Add(start, vec(l)))
		// Most movers of a crowd have no candidate: nothing to sweep against, and the
		// slide below exists only after a hit.
		if len(g.near) == 0 {
			// No entity sweep.
		} else if h, other, ok := g.sweepNear(r, e, start, mm); ok {
			t := backoff(h.T, geom.Len(mm))
			p := geom.Axpy(start, mm, t)
			rest := geom.Scale(mm, 1-t)
			slide := geom.Sub(rest, geom.Scale(h.Normal, geom.Dot(rest, h.Normal)))
			tmax := float32(1)
			if h2, _, ok := g.sweepNear(r, e, p, slide); ok {
				tmax = backoff(h2.T, geom.Len(slide))
			}
			if !nearWall {
				// No wall sweep.
			} else if h3, ok := r.walls.sweep(geom.Circle{Center: p, Radius: rad}, slide); ok {
				tmax = min(tmax, backoff(h3.T, geom.Len(slide)))
				wallHit = true
			}
			target = geom.Axpy(p, slide, tmax)
			sw.Hit, sw.Other, sw.Point, sw.Normal = true, other, h.Point, h.Normal
			g.events = append(g.events, Event{Kind: OnCollide, Frame: g.frame, A: e.id, B: other, Point: h.Point, Normal: h.Normal})
		}
	}
	// The slide's end may cut a corner that neither sweep saw; never leave walkable
	// ground because of it.
	if wallHit && !r.mesh.Contains(target, rad, walkFlags) && r.mesh.Contains(start, rad, walkFlags) {
		target = start
	}
	e.pos = target
	r.grid.moved(e, i)
	sw.End = target
	e.sweep = sw
}

// gatherNear collects in g.near the grid slots of the region's blocking entities other
// than e whose discs, grown by e's radius, meet the box [lo, hi]: every entity a sweep
// of e within that box could touch.
func (g *Game) gatherNear(eg *entGrid, e *Entity, lo, hi mgl32.Vec2) {
	// Entities sit in the cell of their position at the start of the frame and have
	// moved at most maxMotion since.
	reach := e.radius + eg.maxB + g.maxMotion
	x0, y0 := eg.xy(geom.Sub(lo, vec(reach)))
	x1, y1 := eg.xy(geom.Add(hi, vec(reach)))
	near := g.near[:0]
	for y := y0; y <= y1; y++ {
		a, b := eg.rowBounds(y, x0, x1)
		for i := a; i < b; i++ {
			s := &eg.slots[i]
			if !s.blocking {
				continue
			}
			rr := e.radius + s.r
			if s.pos[0]+rr < lo[0] || s.pos[0]-rr > hi[0] || s.pos[1]+rr < lo[1] || s.pos[1]-rr > hi[1] || s.id == e.id {
				continue
			}
			near = append(near, i)
		}
	}
	g.near, g.nearLo, g.nearHi = near, lo, hi
}

// sweepNear sweeps e's disc from start by m against the other blocking entities of the
// region, at their current positions, and returns the first hit and the id of the
// entity hit (read from its slot: the entity itself is elsewhere in memory); ties go
// to the lower id. It reads the candidates of the last gatherNear when its box holds
// the motion, else the grid.
func (g *Game) sweepNear(r *Region, e *Entity, start, m mgl32.Vec2) (geom.Hit, EntityID, bool) {
	if m[0] == 0 && m[1] == 0 {
		return geom.Hit{}, 0, false
	}
	eg := &r.grid
	end := geom.Add(start, m)
	mlo, mhi := lo2(start, end), hi2(start, end)
	if !(mlo[0] >= g.nearLo[0] && mlo[1] >= g.nearLo[1] && mhi[0] <= g.nearHi[0] && mhi[1] <= g.nearHi[1]) {
		g.gatherNear(eg, e, mlo, mhi)
	}
	mm := geom.LenSq(m)
	var best geom.Hit
	var bestID EntityID
	hit := false
	for _, i := range g.near {
		s := &eg.slots[i]
		rr := e.radius + s.r
		if s.pos[0]+rr < mlo[0] || s.pos[0]-rr > mhi[0] || s.pos[1]+rr < mlo[1] || s.pos[1]-rr > mhi[1] {
			continue
		}
		d := geom.Sub(s.pos, start)
		dm := geom.Dot(d, m)
		rr2 := float32(rr * rr)
		c := geom.LenSq(d) - rr2
		if c >= 0 && dm <= 0 {
			continue // apart and not approaching: discT finds no contact
		}
		// The motion's closest approach to the other centre must come within rr.
		t := min(max(dm/mm, 0), 1)
		if geom.LenSq(geom.Sub(d, geom.Scale(m, t))) > rr2 {
			continue
		}
		tc, ok := discT(d, m, c, dm, mm, rr2)
		if !ok || (hit && (tc > best.T || (tc == best.T && s.id > bestID))) {
			continue // no contact, or not before the first found
		}
		if h := discHit(start, m, s.pos, s.r, tc); geom.Dot(h.Normal, m) < 0 {
			best, bestID, hit = h, s.id, true
		}
	}
	return best, bestID, hit
}

// moveProjectile flies a projectile: the first wall or colliding entity (other than its
// source) it touches ends it with a PowerResult. The end of its range is its end frame
// (physicsResolveEntities).
func (g *Game) moveProjectile(r *Region, e *Entity) {
	start, m := e.pos, e.motion
	c := geom.Circle{Center: start, Radius: e.radius}
	sw := Sweep{Frame: g.frame, Start: start, Radius: e.radius}
	best, hitWall := r.walls.sweep(c, m)
	var target *Entity
	eg := &r.grid
	reach := e.radius + eg.maxR + g.maxMotion
	end := geom.Add(start, m)
	x0, y0, x1, y1 := eg.span(mgl32.Vec2{min(start[0], end[0]) - reach, min(start[1], end[1]) - reach},
		mgl32.Vec2{max(start[0], end[0]) + reach, max(start[1], end[1]) + reach})
	for y := y0; y <= y1; y++ {
		for _, o := range eg.row(y, x0, x1) {
			// Bolts hit blocking entities and overlapping NPCs, not overlapping scenery
			// (a puddle).
			if o.id == e.power.source || o.dead || o.collision == CollideNone ||
				(o.collision == Overlapping && o.flags&worldStatic != 0) {
				continue
			}
			h, ok := geom.SweepCircleCircle(c, m, geom.Circle{Center: o.pos, Radius: o.radius})
			if !ok {
				continue
			}
			if (!hitWall && target == nil) || h.T < best.T || (h.T == best.T && target != nil && o.id < target.id) {
				best, target, hitWall = h, o, false
			}
		}
	}
	moved := m
	if target != nil || hitWall {
		moved = geom.Scale(m, best.T)
		res := PowerResult{
			Power: e.power.power, Frame: g.frame, Source: e.power.source, Projectile: e.id,
			Point: best.Point, Normal: best.Normal, Damage: BoltDamage,
		}
		if target != nil {
			res.Target = target.id
		}
		g.results = append(g.results, res)
		sw.Hit, sw.Point, sw.Normal = true, best.Point, best.Normal
		if target != nil {
			sw.Other = target.id
		}
		e.dead = true
		g.destroys++
	}
	e.pos = geom.Add(start, moved)
	e.changed = g.frame
	sw.End = e.pos
	e.sweep = sw
}

// overlaps recomputes the overlapping pairs (at least one Overlapping entity, neither
// CollideNone) from the final positions and emits begin and end events.
func (g *Game) overlaps() {
	cur := g.pairsNext[:0]
	// The grid's list of Overlapping entities spares a pass over every entity (in a
	// crowd of blocking NPCs, nearly all); the pairs are sorted below, so the order of
	// the visits does not matter.
	for _, r := range g.regions {
		cur = g.overlapsIn(r, cur)
	}
	slices.SortFunc(cur, cmpPair)
	prev := g.pairs
	i, j := 0, 0
	for i < len(prev) || j < len(cur) {
		var c int
		switch {
		case i == len(prev):
			c = 1
		case j == len(cur):
			c = -1
		default:
			c = cmpPair(prev[i], cur[j])
		}
		switch {
		case c < 0:
			g.events = append(g.events, Event{Kind: OnOverlapEnd, Frame: g.frame, A: prev[i].a, B: prev[i].b})
			i++
		case c > 0:
			g.events = append(g.events, Event{Kind: OnOverlapBegin, Frame: g.frame, A: cur[j].a, B: cur[j].b})
			j++
		default:
			i++
			j++
		}
	}
	g.pairs, g.pairsNext = cur, prev
}

// overlapsIn appends to cur the pairs that the Overlapping entities of r are in.
func (g *Game) overlapsIn(r *Region, cur []pair) []pair {
	eg := &r.grid
	for _, e := range eg.over {
		if e.dead || e.collision != Overlapping {
			continue
		}
		// The grid still files entities under their cells at the start of the frame;
		// they have moved at most maxMotion since, so queries reach that much further.
		reach := e.radius + eg.maxR + g.maxMotion
		x0, y0, x1, y1 := eg.span(mgl32.Vec2{e.pos[0] - reach, e.pos[1] - reach}, mgl32.Vec2{e.pos[0] + reach, e.pos[1] + reach})
		for y := y0; y <= y1; y++ {
			for _, o := range eg.row(y, x0, x1) {
				if o == e || o.dead || (o.collision == Overlapping && o.id < e.id) {
					continue
				}
				rr := e.radius + o.radius
				if geom.LenSq(geom.Sub(o.pos, e.pos)) >= float32(rr*rr) {
					continue
				}
				p := pair{e.id, o.id}
				if o.id < e.id {
					p = pair{o.id, e.id}
				}
				cur = append(cur, p)
			}
		}
	}
	return cur
}

// Overlapping reports whether a and b overlapped at the end of the last frame (at least
// one of them Overlapping).
func (g *Game) Overlapping(a, b EntityID) bool {
	if b < a {
		a, b = b, a
	}
	_, ok := slices.BinarySearchFunc(g.pairs, pair{a, b}, cmpPair)
	return ok
}
