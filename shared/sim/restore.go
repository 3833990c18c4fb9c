package sim

import (
	"fmt"

	"github.com/twinframe/twinframe/shared/world"

	"github.com/twinframe/twinframe/shared/geom"
)

// Restore inserts into the game an entity unpacked from a Database or Migration archive
// of (*Entity).Serialize, possibly written by another game (a save before a restart, a
// handoff). The entity gets a new id (ids are never reused) and keeps what the save says
// about it: prototype, region, owner, seed, position, yaw, speed and its move. What the
// prototype says (radius, collision, flags) comes from this game's world, which may have
// changed since the save. A position where it no longer fits moves to the nearest free
// spot within 8 m (ErrNoSpace when there is none), and a path move goes on from there.
// Following becomes Idle: the followed id named an entity of the other game. Projectiles
// are not restored (ErrCannotMove).
func (g *Game) Restore(saved *Entity) (EntityID, error) {
	if saved == nil {
		return 0, fmt.Errorf("%w: nil entity", ErrNoEntity)
	}
	if saved.power.power != 0 || saved.proto == ProtoProjectile {
		return 0, fmt.Errorf("%w: a projectile is not restored", ErrCannotMove)
	}
	pr := g.proto(saved.proto)
	if pr == nil {
		return 0, fmt.Errorf("%w: %d", ErrNoPrototype, saved.proto)
	}
	r := g.Region(saved.region)
	if r == nil {
		return 0, fmt.Errorf("%w: %d", ErrNoRegion, saved.region)
	}
	if !geom.Finite2(saved.pos) || !geom.Finite(saved.yaw) || !geom.Finite(saved.speed) || saved.speed < 0 {
		return 0, ErrNotFinite
	}
	for _, p := range saved.loco.path {
		if !geom.Finite2(p) {
			return 0, ErrNotFinite
		}
	}
	e := g.fromProto(pr, saved.region, saved.pos, saved.yaw)
	e.footprint = false // the navmesh was built without it
	if pr.Flags&world.FlagStatic == 0 {
		p, ok := g.findSpot(r, saved.pos, e.radius, e.collision, 8)
		if !ok {
			return 0, fmt.Errorf("%w near %v", ErrNoSpace, saved.pos)
		}
		e.pos = p
		e.speed = min(saved.speed, MaxSpeed)
	}
	e.owner, e.seed = saved.owner, saved.seed
	if saved.population >= 0 && g.hasPopulation(saved.population) {
		e.population = saved.population
	}
	g.insert(e)
	g.restoreMove(e, &saved.loco)
	if e.flags&world.FlagWander != 0 && e.owner < 0 && e.loco.mode == Idle {
		g.setWake(e, g.frame+1+uint64(g.rng.IntN(FrameRate)))
	}
	return e.id, nil
}

// restoreMove gives e the saved move when it can still be walked: a Direct or PathMove
// with corners left, by an entity that moves.
func (g *Game) restoreMove(e *Entity, saved *locomotor) {
	if e.speed == 0 || e.flags&world.FlagStatic != 0 || (saved.mode != Direct && saved.mode != PathMove) ||
		saved.next < 1 || int(saved.next) >= len(saved.path) {
		return
	}
	e.loco.path = append(e.loco.path[:0], saved.path...)
	e.loco.arcs = append(e.loco.arcs[:0], saved.arcs...)
	// The move goes on from where the entity is now: the leg to the next node starts
	// here.
	e.loco.path[saved.next-1] = e.pos
	if len(e.loco.arcs) > 0 {
		e.loco.arcs[saved.next-1] = arc{}
	}
	e.loco.next = saved.next
	g.setCommand(e, saved.mode)
}

func (g *Game) hasPopulation(id int32) bool {
	for i := range g.world.Populations {
		if g.world.Populations[i].ID == id {
			return true
		}
	}
	return false
}

// SetOwner sets the player controlling the entity (any negative value: none, stored as
// -1). An owned wanderer makes no wander decisions of its own; a wanderer released when
// idle starts wandering within a second.
func (g *Game) SetOwner(id EntityID, owner int32) error {
	e, err := g.live(id)
	if err != nil {
		return err
	}
	if owner < 0 {
		owner = -1
	}
	e.owner = owner
	switch {
	case owner >= 0:
		e.wake = 0 // a pending wander decision is dropped
	case e.flags&world.FlagWander != 0 && e.loco.mode == Idle && e.wake == 0:
		g.setWake(e, g.frame+1+uint64(g.rng.IntN(FrameRate)))
	}
	return nil
}
