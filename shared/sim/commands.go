package sim

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/navi"
	"github.com/twinframe/twinframe/shared/world"

	"github.com/twinframe/twinframe/shared/geom"
)

// Command is what an Input asks an entity to do.
type Command uint8

const (
	CmdMoveTo        Command = iota + 1 // walk straight to Point
	CmdMoveAlongPath                    // walk to Point along a navmesh path
	CmdFollow                           // follow Target, stopping within Range
	CmdLookAt                           // turn to face Point
	CmdStop                             // stop moving
	CmdSetSpeed                         // set the speed to Speed (clamped to MaxSpeed)
	CmdFire                             // fire a bolt towards Point
)

// Input is a command queued for the next Step, usually from a client session.
type Input struct {
	Entity      EntityID
	Command     Command
	Point       mgl32.Vec2
	Target      EntityID
	Range       float32
	Speed       float32
	ClientFrame uint64 // the client's frame when it sent the input (kept for replay)
}

// Serialize packs or unpacks the input (snapshots keep queued inputs).
func (in *Input) Serialize(a *archive.Archive) error {
	transferID(a, &in.Entity)
	c := byte(in.Command)
	a.TransferByte(&c)
	in.Command = Command(c)
	transferVec2(a, &in.Point)
	transferID(a, &in.Target)
	a.TransferFloat32(&in.Range)
	a.TransferFloat32(&in.Speed)
	a.TransferUint64(&in.ClientFrame)
	return a.Err()
}

// Rejected is an input the last Step could not apply, and why.
type Rejected struct {
	Input Input
	Err   error
	// Index is the input's place among the inputs the Step applied, in the order
	// Enqueue took them (0 first): what tells two equal inputs apart, as when a
	// second identical fire in one frame meets the cooldown.
	Index int
}

// Enqueue queues an input for the start of the next Step. It rejects at once what can
// never be applied (an unknown command, a non-finite point, range or speed); errors that
// depend on the game (a missing entity) are reported by Rejected after the Step.
func (g *Game) Enqueue(in Input) error {
	if in.Command < CmdMoveTo || in.Command > CmdFire {
		return fmt.Errorf("%w: %d", ErrBadCommand, in.Command)
	}
	if !geom.Finite2(in.Point) || !geom.Finite(in.Range) || !geom.Finite(in.Speed) {
		return ErrNotFinite
	}
	g.inputs = append(g.inputs, in)
	return nil
}

// Rejected returns the inputs the last Step rejected. The slice is reused.
func (g *Game) Rejected() []Rejected { return g.rejected }

// QueuedInputs returns how many inputs wait for the next Step: right after an
// Enqueue that took an input, QueuedInputs()-1 is the Index its Rejected would
// have.
func (g *Game) QueuedInputs() int { return len(g.inputs) }

func (g *Game) apply(in *Input) error {
	switch in.Command {
	case CmdMoveTo:
		return g.MoveTo(in.Entity, in.Point)
	case CmdMoveAlongPath:
		_, err := g.MoveAlongPath(in.Entity, in.Point)
		return err
	case CmdFollow:
		return g.Follow(in.Entity, in.Target, in.Range)
	case CmdLookAt:
		return g.LookAt(in.Entity, in.Point)
	case CmdStop:
		return g.Stop(in.Entity)
	case CmdSetSpeed:
		return g.SetSpeed(in.Entity, in.Speed)
	case CmdFire:
		_, err := g.Fire(in.Entity, in.Point)
		return err
	}
	return ErrBadCommand
}

func (g *Game) mover(id EntityID) (*Entity, error) {
	e, err := g.live(id)
	if err != nil {
		return nil, err
	}
	if e.speed <= 0 || e.power.power != 0 || e.flags&world.FlagStatic != 0 {
		return nil, fmt.Errorf("%w: %d", ErrCannotMove, id)
	}
	return e, nil
}

// aimed checks the point p a command aims at, then finds its entity with find (live or
// mover): a non-finite point is ErrNotFinite whatever the entity.
func (g *Game) aimed(id EntityID, p mgl32.Vec2, find func(EntityID) (*Entity, error)) (*Entity, error) {
	if !geom.Finite2(p) {
		return nil, ErrNotFinite
	}
	return find(id)
}

func (g *Game) setCommand(e *Entity, mode MoveMode) {
	e.loco.mode = mode
	e.stuck = 0
	e.locoFrame, e.changed = g.frame, g.frame
	e.wake = 0
}

// MoveTo makes the entity walk in a straight line to p; physics slides it along walls
// and stops it at other blocking entities (after StuckFrames blocked frames it gives up).
func (g *Game) MoveTo(id EntityID, p mgl32.Vec2) error {
	e, err := g.aimed(id, p, g.mover)
	if err != nil {
		return err
	}
	e.loco.path = append(e.loco.path[:0], e.pos, p)
	e.loco.arcs = e.loco.arcs[:0]
	e.loco.next = 1
	e.follow.target = 0
	g.setCommand(e, Direct)
	return nil
}

// MoveAlongPath makes the entity walk to p along a navmesh path for its radius. A partial
// path (the goal is unreachable) is followed to the reachable point nearest the goal and
// reported by the status, not as an error; ErrUnreachable means there is no path at all
// (the entity stands nowhere walkable), and the entity stops.
func (g *Game) MoveAlongPath(id EntityID, p mgl32.Vec2) (navi.PathStatus, error) {
	e, err := g.aimed(id, p, g.mover)
	if err != nil {
		return navi.PathNoPath, err
	}
	st := g.findPath(e, p)
	if st == navi.PathNoPath {
		g.stop(e)
		return st, fmt.Errorf("%w: entity %d to %v", ErrUnreachable, id, p)
	}
	e.follow.target = 0
	g.setCommand(e, PathMove)
	return st, nil
}

// findPath stores a path from e to p in e's locomotor. It plans for the entity's radius
// plus PathClearance, so that the path's corners and legs stay clear of the walls, and
// turns the corners where an arc fits into turn nodes round the obstacle vertices.
func (g *Game) findPath(e *Entity, p mgl32.Vec2) navi.PathStatus {
	r := g.regionOf(e)
	if r == nil {
		return navi.PathNoPath
	}
	st := r.query.FindPath(e.pos, p, e.radius+PathClearance, &r.path)
	if st == navi.PathNoPath || len(r.path.Points) == 0 {
		return navi.PathNoPath
	}
	e.loco.path = append(e.loco.path[:0], e.pos)
	e.loco.path = append(e.loco.path, r.path.Points[1:]...)
	fits := func(p mgl32.Vec2) bool { return r.walls.clear(p, e.radius+Skin) }
	e.loco.arcs = filletCorners(e.loco.path, e.loco.arcs, e.radius+PathClearance, fits)
	e.loco.next = 1
	return st
}

// Follow makes the entity follow target, walking along paths towards it (re-planned
// every half second) and standing still while it is within rng metres. A negative rng
// is clamped to 0.
func (g *Game) Follow(id, target EntityID, rng float32) error {
	if !geom.Finite(rng) {
		return ErrNotFinite
	}
	e, err := g.mover(id)
	if err != nil {
		return err
	}
	if id == target {
		return ErrSelf
	}
	if _, err := g.live(target); err != nil {
		return err
	}
	e.follow.target = target
	e.follow.rng = max(rng, 0)
	e.follow.repath = g.frame
	e.loco.path = append(e.loco.path[:0], e.pos)
	e.loco.arcs = e.loco.arcs[:0]
	e.loco.next = 1
	g.setCommand(e, Following)
	return nil
}

// LookAt turns the entity to face p (any entity, moving or not; a moving entity faces its
// planned motion again on its next step).
func (g *Game) LookAt(id EntityID, p mgl32.Vec2) error {
	e, err := g.aimed(id, p, g.live)
	if err != nil {
		return err
	}
	d := geom.Sub(p, e.pos)
	if d[0] == 0 && d[1] == 0 {
		return ErrZeroDirection
	}
	e.yaw = yawTo(d, e.yaw)
	e.changed = g.frame
	return nil
}

// Stop stops the entity where it is.
func (g *Game) Stop(id EntityID) error {
	e, err := g.live(id)
	if err != nil {
		return err
	}
	g.stop(e)
	return nil
}

func (g *Game) stop(e *Entity) {
	if e.loco.mode == Idle {
		return
	}
	e.loco.mode = Idle
	e.loco.path = e.loco.path[:0]
	e.loco.arcs = e.loco.arcs[:0]
	e.loco.next = 0
	e.follow.target = 0
	e.stuck = 0
	e.locoFrame, e.changed = g.frame, g.frame
}

// SetSpeed sets the entity's speed in metres per second: negative or non-finite speeds
// are ErrBadSpeed, speeds above MaxSpeed are clamped to it, and 0 stops the entity.
func (g *Game) SetSpeed(id EntityID, speed float32) error {
	if !geom.Finite(speed) || speed < 0 {
		return ErrBadSpeed
	}
	e, err := g.live(id)
	if err != nil {
		return err
	}
	e.speed = min(speed, MaxSpeed)
	if e.speed == 0 {
		g.stop(e)
	}
	e.locoFrame, e.changed = g.frame, g.frame
	return nil
}

// Teleport puts the entity at p, which must be walkable for its radius and, for a
// blocking entity, clear of other blocking entities.
func (g *Game) Teleport(id EntityID, p mgl32.Vec2) error {
	e, err := g.aimed(id, p, g.live)
	if err != nil {
		return err
	}
	r := g.regionOf(e)
	if r == nil || !r.mesh.Contains(p, e.radius, walkFlags) {
		return fmt.Errorf("%w at %v", ErrNoSpace, p)
	}
	if e.collision == Blocking {
		r.grid.build(g.ents, r.id)
		if g.blocked(r, p, e.radius, e.id) {
			return fmt.Errorf("%w: a blocking entity is at %v", ErrNoSpace, p)
		}
	}
	g.stop(e)
	e.pos = p
	e.changed = g.frame
	return nil
}
