package sim

import (
	"errors"
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/world"

	"github.com/twinframe/twinframe/shared/geom"
)

const worldStatic = world.FlagStatic

func vec(v float32) mgl32.Vec2 { return mgl32.Vec2{v, v} }

// ErrInvariant is wrapped by every problem CheckInvariants reports.
var ErrInvariant = errors.New("sim: invariant violated")

// maxProblems caps the problems CheckInvariants reports at once.
const maxProblems = 20

// CheckInvariants checks the simulation state: ids unique and increasing, below the next
// id; no NaN or infinite position, yaw, radius or speed; every entity that can move (not
// a static prop, not a projectile) on walkable ground for its radius (navi Contains);
// no two blocking entities interpenetrating by more than OverlapTolerance (footprint
// props excluded: the navmesh is their collision); no projectile outliving its range by
// a frame: after a Step, a live projectile's flight ends at a later frame, and no later
// than BoltFlightFrames after the frame it was created in. It returns nil or an error
// joining up to 20 problems, each wrapping ErrInvariant.
func (g *Game) CheckInvariants() error {
	var errs []error
	add := func(format string, args ...any) {
		if len(errs) < maxProblems {
			errs = append(errs, fmt.Errorf("%w: frame %d: "+format, append([]any{ErrInvariant, g.frame}, args...)...))
		}
	}
	for i, e := range g.ents {
		if !g.validID(e.id) || (i > 0 && g.ents[i-1].id >= e.id) {
			add("entity id %d out of order (next id %d)", e.id, g.nextID)
		}
		if !geom.Finite2(e.pos) || !geom.Finite(e.yaw) || !geom.Finite(e.radius) || !geom.Finite(e.speed) || e.radius < 0 || e.speed < 0 {
			add("entity %d has a bad value: pos %v yaw %v radius %v speed %v", e.id, e.pos, e.yaw, e.radius, e.speed)
			continue
		}
		if e.power.power != 0 && !e.dead && (g.frame >= e.power.end || e.power.end > e.created+BoltFlightFrames) {
			add("entity %d (projectile created at frame %d) outlives its range: its flight ends at frame %d", e.id, e.created, e.power.end)
		}
		r := g.regionOf(e)
		if r == nil {
			add("entity %d in unknown region %d", e.id, e.region)
			continue
		}
		if e.flags&worldStatic == 0 && e.power.power == 0 && !r.mesh.Contains(e.pos, e.radius, walkFlags) {
			add("entity %d (prototype %d, radius %g) at %v is outside walkable space", e.id, e.proto, e.radius, e.pos)
		}
	}
	for _, r := range g.regions {
		r.grid.build(g.ents, r.id)
		eg := &r.grid
		for _, e := range eg.items {
			if e.collision != Blocking {
				continue
			}
			reach := e.radius + eg.maxR
			x0, y0, x1, y1 := eg.span(geom.Sub(e.pos, vec(reach)), geom.Add(e.pos, vec(reach)))
			for y := y0; y <= y1; y++ {
				for _, o := range eg.row(y, x0, x1) {
					if o.id <= e.id || o.collision != Blocking {
						continue
					}
					if d := geom.Dist(e.pos, o.pos); d < e.radius+o.radius-OverlapTolerance {
						add("blocking entities %d and %d overlap by %g m", e.id, o.id, e.radius+o.radius-d)
					}
				}
			}
		}
	}
	return errors.Join(errs...)
}
