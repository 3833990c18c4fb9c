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

// locomote computes every moving entity's desired motion for this frame: speed × 50 ms
// along its path, through as many corners as the distance reaches.
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
		p, next := plan(e.pos, e.loco.path, e.loco.next, e.speed)
		e.planNext = next
		e.motion = sub2(p, e.pos)
		if m := len2(e.motion); m > g.maxMotion {
			g.maxMotion = m
		}
	}
}

// plan returns where a walker at p with speed ends this frame, walking speed × 50 ms
// along path towards corner next and through as many corners as the distance
// reaches, and the index of the corner it then walks to. The server's locomotor and
// a client's Walker both move with it.
func plan(p mgl32.Vec2, path []mgl32.Vec2, next int32, speed float32) (mgl32.Vec2, int32) {
	step := float32(speed * FrameSeconds)
	for step > 0 && int(next) < len(path) {
		c := path[next]
		d := sub2(c, p)
		l := len2(d)
		if l <= step {
			p = c
			step -= l
			next++
			continue
		}
		p = axpy2(p, d, step/l)
		step = 0
	}
	return p, next
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
		if dist2(e.pos, want) <= reachEpsilon {
			e.loco.next = e.planNext
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
