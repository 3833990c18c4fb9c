package sim

import (
	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/navi"
	"github.com/twinframe/twinframe/shared/world"
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
// along its path, through as many corners as the distance reaches, but not beyond a
// sharp turn.
func (g *Game) locomote() {
	g.maxMotion = 0
	for _, e := range g.ents {
		e.motion = mgl32.Vec2{}
		e.from = e.pos
		if e.loco.mode == Idle || e.dead {
			continue
		}
		if e.loco.mode == Following && !g.follow(e) {
			continue
		}
		step := float32(e.speed * FrameSeconds)
		p := e.pos
		next := e.loco.next
		path := e.loco.path
		for step > 0 && int(next) < len(path) {
			c := path[next]
			d := sub2(c, p)
			l := len2(d)
			if l <= step {
				p = c
				step -= l
				next++
				if sharpTurn(path, next) {
					break
				}
				continue
			}
			p = axpy2(p, d, step/l)
			step = 0
		}
		e.planNext = next
		e.motion = sub2(p, e.pos)
		if m := len2(e.motion); m > g.maxMotion {
			g.maxMotion = m
		}
	}
}

// sharpTurnCos2 is the squared cosine of the turn (45°) beyond which a frame's motion
// stops at the corner.
const sharpTurnCos2 float32 = 0.5

// sharpTurn reports whether the path turns by more than 45° at corner next-1. A frame's
// motion is one straight sweep from where the entity stands to where its step ends on
// the path; through a sharp turn that chord cuts the corner into the wall the path turns
// around (through a U-turn it hardly moves at all), so the motion stops at such a corner
// and the next frame turns it.
func sharpTurn(path []mgl32.Vec2, next int32) bool {
	i := int(next) - 1
	if i < 1 || i+1 >= len(path) {
		return false
	}
	in, out := sub2(path[i], path[i-1]), sub2(path[i+1], path[i])
	d := dot2(in, out)
	return d < 0 || float32(d*d) < float32(float32(sharpTurnCos2*lenSq2(in))*lenSq2(out))
}

// follow updates a follower's path; it reports whether the follower should move.
func (g *Game) follow(e *Entity) bool {
	t := g.Entity(e.loco.target)
	if t == nil || t.region != e.region {
		g.stop(e)
		return false
	}
	if dist2(t.pos, e.pos) <= e.loco.rng {
		return false
	}
	if g.frame >= e.loco.repath {
		e.loco.repath = g.frame + followRepath
		if g.findPath(e, t.pos) == navi.PathNoPath {
			g.stop(e)
			return false
		}
		e.locoFrame, e.changed = g.frame, g.frame
	}
	return true
}

// commitMoves runs after physics: it advances each mover's corner index when the move
// reached its plan, turns it to face its motion, counts blocked frames, and ends moves
// that arrived or are stuck.
func (g *Game) commitMoves() {
	for _, e := range g.ents {
		if e.dead || (e.motion[0] == 0 && e.motion[1] == 0) {
			if e.loco.mode == Direct || e.loco.mode == PathMove {
				if int(e.loco.next) >= len(e.loco.path) || e.speed == 0 {
					g.arrive(e)
				}
			}
			continue
		}
		if e.power.power != 0 {
			continue // projectiles are done in physics
		}
		want := add2(e.from, e.motion)
		moved := sub2(e.pos, e.from)
		e.loco.next = passedCorners(e.loco.path, e.loco.next, e.planNext, e.pos)
		if dist2(e.pos, want) <= reachEpsilon {
			e.stuck = 0
		} else if lenSq2(moved) < float32(0.0625*lenSq2(e.motion)) {
			e.stuck++
		} else {
			e.stuck = 0
		}
		if moved[0] != 0 || moved[1] != 0 {
			e.yaw = yawTo(moved, e.yaw)
			e.changed = g.frame
		}
		switch {
		case e.loco.mode == Following:
			if e.stuck >= StuckFrames {
				e.stuck = 0
				e.loco.repath = g.frame // try another path
			}
		case int(e.loco.next) >= len(e.loco.path):
			g.arrive(e)
		case e.stuck >= StuckFrames:
			g.arrive(e)
		}
	}
}

// passedCorners returns the index of the corner to walk to next, after a move planned to
// reach corner planNext from corner next ended at pos. A corner the plan went through
// counts as passed when pos is within cornerTolerance of it or beyond the line through it
// across the segment that leads to it. Physics deflects moves that cut a corner (the
// planned motion is the chord of the path, which comes nearer the wall vertex than the
// radius), so the mover is seldom exactly where the plan said; demanding that made it
// walk back to a corner it had passed, frame after frame, and never arrive.
func passedCorners(path []mgl32.Vec2, next, planNext int32, pos mgl32.Vec2) int32 {
	for next < planNext && next >= 1 && int(next) < len(path) {
		c := path[next]
		if dist2(pos, c) > cornerTolerance && dot2(sub2(pos, c), sub2(c, path[next-1])) < 0 {
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
	if st == navi.PathNoPath || len(e.loco.path) < 2 || dist2(e.pos, e.loco.path[len(e.loco.path)-1]) < 0.5 {
		e.loco.path = e.loco.path[:0]
		g.setWake(e, g.frame+FrameRate/2+uint64(g.rng.IntN(FrameRate)))
		return
	}
	g.setCommand(e, PathMove)
}
