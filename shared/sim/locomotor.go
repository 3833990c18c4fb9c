package sim

import (
	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/navi"
	"github.com/twinframe/twinframe/shared/world"

	"github.com/twinframe/twinframe/shared/geom"
)

// Follow re-plans its path every followRepath frames.
const followRepath = 10

// reachEpsilon: a move that ends this close to its planned end reached it.
const reachEpsilon float32 = 1e-3

// cornerTolerance: a mover this close to a corner has reached it. It is several times
// Skin, the gap a sweep leaves before what it hits: path corners and segments run at
// exactly the agent's radius from walls, so a grazing sweep stops a mover a Skin short.
const cornerTolerance float32 = 5 * Skin

// locomote computes every moving entity's desired motion for this frame: speed × 50 ms
// along its path, along straight legs and round turn nodes' arcs, through as many nodes
// as the distance reaches, but not beyond a sharp straight corner. Its pass over the
// entities, the last before physics and with nothing moving in between, also stages
// them for physics' grid build (entGrid).
func (g *Game) locomote() {
	g.maxMotion = 0
	for _, r := range g.regions {
		r.grid.beginStage()
	}
	var r *Region
	var touched float32
	for i, e := range g.ents {
		if j := i + touchAhead; j < len(g.ents) {
			touched += touchPath(g.ents[j])
		}
		e.motion = mgl32.Vec2{}
		if r == nil || r.id != e.region {
			r = g.Region(e.region)
		}
		if r != nil {
			r.grid.add(e, i)
		}
		if e.loco.mode == Idle || e.dead {
			continue
		}
		if e.loco.mode == Following && !g.follow(e) {
			continue
		}
		p, next := e.loco.advance(e.pos, float32(e.speed*FrameSeconds))
		e.planNext, e.planEnd = next, int(next) >= len(e.loco.path)
		e.motion = geom.Sub(p, e.pos)
		if m := geom.Len(e.motion); m > g.maxMotion {
			g.maxMotion = m
		}
	}
	for _, r := range g.regions {
		r.grid.staged = true
	}
	g.touched = touched
}

// touchAhead is how many entities ahead of the walk locomote loads the next path node.
const touchAhead = 4

// touchPath returns the first coordinate of e's next path node and arc, or 0. The walk
// reads them through the path header in the entity's second line: two dependent cache
// misses per mover at 10k, which the out-of-order core cannot start before it reaches
// the mover. Loading them a few movers early (locomote keeps the sum, so that the
// loads are not dropped) overlaps those misses with the walks in between. It changes
// nothing else.
func touchPath(e *Entity) float32 {
	l := &e.loco
	if l.mode == Idle || int(l.next) >= len(l.path) {
		return 0
	}
	v := l.path[l.next][0]
	if int(l.next) < len(l.arcs) {
		v += l.arcs[l.next].r
	}
	return v
}

// advance walks step metres along the path from p, which is on the way to node next,
// and returns where it ends and the node it is then on the way to. The motion is never
// longer than step: a frame that starts or ends outside a turn circle (see walk) is
// shortened.
func (l *locomotor) advance(p mgl32.Vec2, step float32) (mgl32.Vec2, int32) {
	q, next := l.walk(p, step)
	if m := geom.Sub(q, p); geom.LenSq(m) > float32(step*step) {
		q = geom.Axpy(p, m, step/geom.Len(m))
	}
	return q, next
}

// walk follows the path step metres from p and returns where that ends and the node
// it is then on the way to.
func (l *locomotor) walk(p mgl32.Vec2, step float32) (mgl32.Vec2, int32) {
	next := l.next
	path := l.path
	// A frame that ends on an arc ends outside its circle, where the chord from one such
	// end to the next keeps the circle's radius from the centre (the vertex): θ is the
	// angle a whole step turns, and a mover within 1/cos(θ/2) of the radius is on the arc.
	full := step
	// Each pass reaches a node, reaches an arc or spends the step: bounded, but guard
	// against a float corner case looping.
	for guard := 3*len(path) + 3; step > 0 && int(next) < len(path) && guard > 0; guard-- {
		c := path[next]
		a := l.arcAt(next)
		// A straight leg: to the node, or on the leg that arrives at an arc to its
		// tangent point; passing means reaching the node (a degenerate turn, with no
		// tangent point, is passed as a point).
		to, passes := c, true
		if a.side != 0 {
			// arcOutward is at most 1/cos(1) < 2: a mover farther than 2 radii is on the leg
			// without computing it.
			outward, d := float32(2), geom.Dist(p, c)
			if d <= float32(2*a.r)+arcSlack {
				outward = arcOutward(full, a.r)
			}
			// Within the arc's reach (written so that a NaN distance, too, takes the arc).
			if !(d > float32(a.r*outward)+arcSlack) {
				// On the arc: round it to the tangent that leaves it.
				out, ang := l.arcExit(next, p)
				al := float32(ang * a.r)
				if al > step {
					return rotateAbout(c, p, float32(a.side)*step/a.r, float32(a.r*outward)), next
				}
				step -= al
				p = out
				next++
				continue
			}
			if in, ok := tangentTo(p, c, a.rho()); ok {
				to, passes = in, false
			}
		}
		d := geom.Sub(to, p)
		dl := geom.Len(d)
		if dl > step {
			return geom.Axpy(p, d, step/dl), next
		}
		p = to
		step -= dl
		if passes {
			next++
		}
		if a.side == 0 && l.sharpTurn(next-1) {
			break
		}
	}
	return p, next
}

func (l *locomotor) arcAt(i int32) arc {
	if int(i) < len(l.arcs) {
		return l.arcs[i]
	}
	return arc{}
}

// arcExit returns where a mover at p on turn node i's arc leaves it and the angle still
// to turn; a mover just past the exit (or on a node whose exit does not exist) leaves
// where it is.
func (l *locomotor) arcExit(i int32, p mgl32.Vec2) (mgl32.Vec2, float32) {
	a := l.arcAt(i)
	if int(i)+1 >= len(l.path) {
		return p, 0
	}
	out, _, _, ok := tangent(l.path[i], a.rho(), l.path[i+1], l.arcAt(i+1).rho())
	if !ok {
		return p, 0
	}
	ang := arcAngle(l.path[i], p, out, a.side)
	if ang > pastExit {
		return p, 0
	}
	return out, ang
}

// legInto returns the direction of the leg that arrives at node i (i ≥ 1).
func (l *locomotor) legInto(i int32) mgl32.Vec2 {
	d := geom.Sub(l.path[i], l.path[i-1])
	if a, b := l.arcAt(i-1), l.arcAt(i); a.side != 0 || b.side != 0 {
		if _, _, u, ok := tangent(l.path[i-1], a.rho(), l.path[i], b.rho()); ok {
			return u
		}
	}
	return d
}

// sharpTurnCos2 is the squared cosine of the turn (45°) beyond which a frame's motion
// stops at a straight corner.
const sharpTurnCos2 float32 = 0.5

// sharpTurn reports whether the path turns by more than 45° at straight node i. A
// frame's motion is one straight sweep from where the entity stands to where its step
// ends on the path; through a sharp turn that chord cuts the corner into the wall the
// path turns around (through a U-turn it hardly moves at all), so the motion stops at
// such a corner and the next frame turns it.
func (l *locomotor) sharpTurn(i int32) bool {
	if i < 1 || int(i)+1 >= len(l.path) {
		return false
	}
	in, out := l.legInto(i), l.legInto(i+1)
	d := geom.Dot(in, out)
	return d < 0 || float32(d*d) < float32(float32(sharpTurnCos2*geom.LenSq(in))*geom.LenSq(out))
}

// follow updates a follower's path; it reports whether the follower should move.
func (g *Game) follow(e *Entity) bool {
	t := g.Entity(e.follow.target)
	if t == nil || t.region != e.region {
		g.stop(e)
		return false
	}
	if geom.Dist(t.pos, e.pos) <= e.follow.rng {
		return false
	}
	if g.frame >= e.follow.repath {
		e.follow.repath = g.frame + followRepath
		if g.findPath(e, t.pos) == navi.PathNoPath {
			g.stop(e)
			return false
		}
		e.locoFrame, e.changed = g.frame, g.frame
	}
	return true
}

// commitMove runs after e's physics moved it from from: it advances a mover's corner
// index when the move reached its plan, turns a mover that moved to face its planned
// motion (faceMotion), counts blocked frames, and ends moves that arrived or are stuck.
func (g *Game) commitMove(e *Entity, from mgl32.Vec2) {
	if e.dead || (e.motion[0] == 0 && e.motion[1] == 0) {
		if e.loco.mode == Direct || e.loco.mode == PathMove {
			if int(e.loco.next) >= len(e.loco.path) || e.speed == 0 {
				g.arrive(e)
			}
		}
		return
	}
	if e.projectile() {
		return // projectiles are done in physics
	}
	want := geom.Add(from, e.motion)
	moved := geom.Sub(e.pos, from)
	if e.planNext > e.loco.next {
		// Most frames plan no corner: passedCorners would return next unchanged.
		e.loco.next = e.loco.passedCorners(e.planNext, e.pos)
	}
	if geom.Dist(e.pos, want) <= reachEpsilon {
		e.stuck = 0
	} else if geom.LenSq(moved) < float32(0.0625*geom.LenSq(e.motion)) {
		e.stuck++
	} else {
		e.stuck = 0
	}
	// A mover physics held still keeps its facing (and skips an atan2: in a jammed
	// crowd most movers are held).
	if moved[0] != 0 || moved[1] != 0 {
		e.yaw = faceMotion(e.motion, e.yaw, float32(e.speed*FrameSeconds))
		e.changed = g.frame
	}
	switch {
	case e.loco.mode == Following:
		if e.stuck >= StuckFrames {
			e.stuck = 0
			e.follow.repath = g.frame // try another path
		}
	case e.planEnd && int(e.loco.next) >= len(e.loco.path):
		// (next ≤ planNext: planEnd, in the entity's first line, spares reading the
		// path's length in its second for every mover still on its way.)
		g.arrive(e)
	case e.stuck >= StuckFrames:
		g.arrive(e)
	}
}

// passedCorners returns the index of the node to walk to next, after a move planned to
// reach node planNext from node next ended at pos. A node the plan went through counts
// as passed when pos is within cornerTolerance of where the path leaves it (a straight
// node's point, a turn node's exit tangent point) or beyond the line through that point
// across the path. Physics deflects moves that cut a corner (the planned motion is a
// chord of the path, which comes nearer the wall than the path), so the mover is
// seldom exactly where the plan said; demanding that made it walk back to a corner it
// had passed, frame after frame, and never arrive.
func (l *locomotor) passedCorners(planNext int32, pos mgl32.Vec2) int32 {
	next := l.next
	for next < planNext && next >= 1 && int(next) < len(l.path) {
		c, dir := l.path[next], l.legInto(next)
		if a := l.arcAt(next); a.side != 0 && int(next)+1 < len(l.path) {
			out, _, u, ok := tangent(c, a.rho(), l.path[next+1], l.arcAt(next+1).rho())
			if ok {
				c, dir = out, u
			}
		}
		if geom.Dist(pos, c) > cornerTolerance && geom.Dot(geom.Sub(pos, c), dir) < 0 {
			break
		}
		next++
	}
	return next
}

// arrive ends a move; a wandering NPC rests, then picks its next goal.
func (g *Game) arrive(e *Entity) {
	g.stop(e)
	if e.flags&world.FlagWander != 0 && e.owner < 0 {
		g.setWake(e, g.frame+FrameRate+uint64(g.rng.IntN(3*FrameRate)))
	}
}

// wander picks a wandering NPC's next goal: a hotspot of its area half the time, else a
// random point of its area (of its region when it has none), and paths there.
func (g *Game) wander(e *Entity) {
	r := g.regionOf(e)
	if r == nil || e.speed == 0 {
		return
	}
	lo, hi := r.bounds.Min, r.bounds.Max
	var spots []hotspot
	if a := r.areaOf(e.pos); a != nil {
		lo, hi = a.min, a.max
		spots = a.hotspots
	}
	var goal mgl32.Vec2
	if len(spots) > 0 && g.rng.IntN(2) == 0 {
		h := spots[g.rng.IntN(len(spots))]
		goal = mgl32.Vec2{
			h.center[0] + float32((g.rng.Float32()*2-1)*h.radius),
			h.center[1] + float32((g.rng.Float32()*2-1)*h.radius),
		}
	} else {
		goal = mgl32.Vec2{
			lo[0] + float32(g.rng.Float32()*(hi[0]-lo[0])),
			lo[1] + float32(g.rng.Float32()*(hi[1]-lo[1])),
		}
	}
	st := g.findPath(e, goal)
	if st == navi.PathNoPath || len(e.loco.path) < 2 || geom.Dist(e.pos, e.loco.path[len(e.loco.path)-1]) < 0.5 {
		e.loco.path = e.loco.path[:0]
		e.loco.arcs = e.loco.arcs[:0]
		g.setWake(e, g.frame+FrameRate/2+uint64(g.rng.IntN(FrameRate)))
		return
	}
	g.setCommand(e, PathMove)
}

// minFacingMotion: a planned motion shorter than this (or than half the mover's step)
// leaves the facing as it is.
const minFacingMotion = cornerTolerance

// faceMotion returns the yaw of a mover whose locomotor planned motion this frame with a
// full step of step metres. A mover faces where its path takes it, not where physics
// let it go: held against a wall vertex or another entity, its resolved move is a slide
// of a few micrometres whose direction flips from frame to frame, and a client, which
// knows the path but not every contact, could not predict the facing. A plan shorter
// than minFacingMotion (the last sliver of a path, or a mover pushed onto its goal) has
// no meaningful direction and keeps the yaw.
func faceMotion(motion mgl32.Vec2, yaw, step float32) float32 {
	m := min(minFacingMotion, float32(0.5*step))
	if geom.LenSq(motion) < float32(m*m) {
		return yaw
	}
	return yawTo(motion, yaw)
}
