package sim

import (
	"slices"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
	"github.com/twinframe/twinframe/shared/world"

	"github.com/twinframe/twinframe/shared/geom"
)

// EntityID names an entity of a Game. The game hands ids out in increasing order and
// never reuses one; 0 names no entity (and, in a collision event, a wall).
type EntityID uint64

// Collision is how an entity takes part in physics; the values match world.Collision.
type Collision uint8

const (
	CollideNone Collision = iota // passes through everything, no events
	Blocking                     // stops other blocking entities; OnCollide
	Overlapping                  // passes through, reporting OnOverlapBegin/End
)

func (c Collision) String() string {
	switch c {
	case CollideNone:
		return "none"
	case Blocking:
		return "blocking"
	case Overlapping:
		return "overlapping"
	}
	return "collision?"
}

// MoveMode says what an entity's locomotor is doing.
type MoveMode uint8

const (
	Idle      MoveMode = iota // not moving
	Direct                    // MoveTo: a straight line to the goal
	PathMove                  // MoveAlongPath: along a navmesh path
	Following                 // Follow: re-pathing towards another entity
)

func (m MoveMode) String() string {
	return [...]string{"idle", "direct", "path", "following", "mode?"}[min(int(m), 4)]
}

// Entity is one simulated object. Read it through its methods; change it through the
// Game, so that ids, frames and events stay consistent.
type Entity struct {
	// The fields every pass of a step reads come first, so that they share the
	// entity's first cache line, with what commitMove reads and writes for a mover
	// (planNext, speed, yaw): at 10k the entities do not fit in the cache, and each
	// line a pass touches is a miss.
	id        EntityID
	region    int32
	pos       mgl32.Vec2
	radius    float32
	collision Collision
	footprint bool // a static prop cut out of the navmesh: the mesh is its collision
	dead      bool
	planEnd   bool       // scratch: planNext is past the path's last node
	stuck     uint16     // consecutive frames of blocked movement
	motion    mgl32.Vec2 // scratch: desired motion of this frame
	planNext  int32      // scratch: corner index reached if the motion is not blocked
	speed     float32
	yaw       float32
	// owner fills the first line's padding: the physics pass lists the owned entities
	// for updatePortals from it, instead of every portal reading a third line of every
	// entity.
	owner int32
	// The locomotor's mode and next end the first cache line; its path and arcs, and
	// changed, which commitMove writes, and locoFrame fill the second.
	loco      locomotor
	changed   uint64 // last frame any replicated field changed
	locoFrame uint64 // last frame the locomotion command (mode, path, speed) changed

	proto      int32 // world prototype id, or ProtoProjectile
	flags      world.ProtoFlags
	seed       uint32
	population int32 // the population row that spawned it, or -1
	created    uint64
	wake       uint64 // frame of the next wander decision, 0 for none
	nextFire   uint64 // the first frame it may fire again (the fire cooldown)
	follow     follow
	power      projectile

	// Debug record, not simulation state: the last sweep (Frame 0: none). Physics writes
	// it for every mover; it starts a cache line of its own (Entity objects are 320-byte
	// aligned, TestEntityLayout), so that the write touches one line, not two.
	_     [32]byte
	sweep Sweep
}

// locomotor is the movement command of an entity.
type locomotor struct {
	mode MoveMode
	next int32        // index in path of the corner being walked to
	path []mgl32.Vec2 // path[0] is where the move started; the rest are corners
	arcs []arc        // how each node of path is passed; empty: all straight
}

// follow is what a Following move follows, beside the locomotor: the walk does not read
// it, and it would push the fields commitMove writes out of the entity's second line.
type follow struct {
	target EntityID // the entity followed
	rng    float32  // stop within this distance
	repath uint64   // frame of the next re-path
}

// projectile reports whether e is a projectile. Every projectile collides with nothing
// (Fire makes them so; Serialize refuses others), so that for the others, the movers of
// every frame, the test reads only the entity's first cache line.
func (e *Entity) projectile() bool { return e.collision == CollideNone && e.power.power != 0 }

// ID returns the entity's id.
func (e *Entity) ID() EntityID { return e.id }

// Prototype returns the world prototype id (ProtoProjectile for a projectile).
func (e *Entity) Prototype() int32 { return e.proto }

// Region returns the id of the region the entity is in.
func (e *Entity) Region() int32 { return e.region }

// Pos returns the entity's position.
func (e *Entity) Pos() mgl32.Vec2 { return e.pos }

// Yaw returns the facing in radians, counter-clockwise from +x.
func (e *Entity) Yaw() float32 { return e.yaw }

// Radius returns the collision radius.
func (e *Entity) Radius() float32 { return e.radius }

// Speed returns the movement speed in metres per second.
func (e *Entity) Speed() float32 { return e.speed }

// Collision returns the collision kind.
func (e *Entity) Collision() Collision { return e.collision }

// Flags returns the prototype flags.
func (e *Entity) Flags() world.ProtoFlags { return e.flags }

// Owner returns the player controlling the entity, or -1.
func (e *Entity) Owner() int32 { return e.owner }

// Mode returns what the locomotor is doing.
func (e *Entity) Mode() MoveMode { return e.loco.mode }

// Path returns the corners of the current path (the first is where the move started)
// and the index of the corner being walked to. The slice must not be modified.
func (e *Entity) Path() ([]mgl32.Vec2, int) { return e.loco.path, int(e.loco.next) }

// CreatedFrame returns the frame the entity was created in (0: before the first frame).
func (e *Entity) CreatedFrame() uint64 { return e.created }

// ChangedFrame returns the last frame in which a replicated field (position, yaw, speed,
// path) changed: the server sends a locomotion update for entities whose ChangedFrame
// is the frame just stepped.
func (e *Entity) ChangedFrame() uint64 { return e.changed }

// CommandFrame returns the last frame the locomotion command changed (a new goal, path,
// stop or speed): the changes a client cannot predict by walking the path itself.
func (e *Entity) CommandFrame() uint64 { return e.locoFrame }

// LastSweep returns the entity's last physics sweep, for debug drawing.
func (e *Entity) LastSweep() (Sweep, bool) { return e.sweep, e.sweep.Frame != 0 }

// Policy returns the replication policy of the entity: ClientIndependent for a
// projectile (a client simulates it from its creation), Proximity otherwise.
func (e *Entity) Policy() archive.Policy {
	if e.power.power != 0 {
		return archive.ClientIndependent
	}
	return archive.Proximity
}

// LocomotionState fills st with the entity's replicated locomotion at frame: absolute
// position, yaw, speed and the whole path with the index of the corner being walked to.
// It reuses st.Path's storage.
func (e *Entity) LocomotionState(st *locomotion.State, frame uint64) {
	e.locomotionHeader(st, frame)
	nodes := (*locoNodes)(e)
	st.Path = st.Path[:0]
	for i := range nodes.Len() {
		st.Path = append(st.Path, nodes.Node(i))
	}
}

// locomotionHeader fills st as LocomotionState does, except for the path itself.
func (e *Entity) locomotionHeader(st *locomotion.State, frame uint64) {
	st.Entity = uint64(e.id)
	st.Frame = frame
	st.Fields = locomotion.HasPosition | locomotion.HasYaw | locomotion.HasSpeed | locomotion.HasPath
	if e.loco.mode != Idle {
		st.Fields |= locomotion.Moving
	}
	st.Position = mgl32.Vec3{e.pos[0], e.pos[1], 0}
	st.Yaw = e.yaw
	st.Speed = e.speed
	st.Goal = 0
	if e.loco.mode != Idle {
		st.Goal = uint32(min(int(e.loco.next), (*locoNodes)(e).Len()))
	}
}

// locoNodes is an entity seen as the nodes of its replicated path: a replication
// archive packs them straight from the locomotor and unpacks them into it, with
// no locomotion.State path in between.
type locoNodes Entity

var _ locomotion.Nodes = (*locoNodes)(nil)

func (l *locoNodes) Len() int {
	if l.loco.mode == Idle {
		return 0
	}
	return min(len(l.loco.path), locomotion.MaxPathNodes)
}

func (l *locoNodes) Node(i int) locomotion.PathNode {
	p, a := l.loco.path[i], l.loco.arcAt(int32(i))
	return locomotion.PathNode{Point: mgl32.Vec3{p[0], p[1], 0}, Side: a.side, Radius: a.r}
}

// Resize reuses the path's storage; arcs appear only when a node turns.
func (l *locoNodes) Resize(n int) {
	l.loco.path = slices.Grow(l.loco.path[:0], n)[:n]
	l.loco.arcs = l.loco.arcs[:0]
}

func (l *locoNodes) SetNode(i int, n locomotion.PathNode) {
	l.loco.path[i] = mgl32.Vec2{n.Point[0], n.Point[1]}
	if n.Side != locomotion.None && len(l.loco.arcs) == 0 {
		l.loco.arcs = slices.Grow(l.loco.arcs, len(l.loco.path))[:len(l.loco.path)]
		clear(l.loco.arcs) // the nodes before i are straight
	}
	if len(l.loco.arcs) > 0 {
		l.loco.arcs[i] = arc{side: n.Side, r: n.Radius}
	}
}

func transferVec2(a *archive.Archive, v *mgl32.Vec2) {
	a.TransferFloat32(&v[0])
	a.TransferFloat32(&v[1])
}

func transferArc(a *archive.Archive, v *arc) {
	s := int32(v.side)
	a.TransferInt32(&s)
	v.side = locomotion.Side(s)
	a.TransferFloat32(&v.r)
}

// validArcs reports whether arcs describe path's nodes: none, or one per node, each
// straight or a turn of positive finite radius; the first and last nodes are straight.
func validArcs(path []mgl32.Vec2, arcs []arc) bool {
	if len(arcs) == 0 {
		return true
	}
	if len(arcs) != len(path) || arcs[0].side != locomotion.None || arcs[len(arcs)-1].side != locomotion.None {
		return false
	}
	for _, a := range arcs {
		switch a.side {
		case locomotion.None:
		case locomotion.Left, locomotion.Right:
			if !(a.r > 0) || !geom.Finite(a.r) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func transferID(a *archive.Archive, id *EntityID) {
	v := uint64(*id)
	a.TransferUint64(&v)
	*id = EntityID(v)
}

// Serialize packs or unpacks the entity. Replication carries what a client needs: id,
// prototype, region, owner, and an absolute locomotion.State (quantized position and
// yaw, speed, path), plus the projectile's power data. Migration and Disk carry every
// field exactly; Database every field but the fire cooldown (saves are restored into
// another game, Restore). docs/PROTOCOL.md §4.3 (Replication) and §4.6 (Database)
// give the byte layouts other clients implement: change them with this method.
func (e *Entity) Serialize(a *archive.Archive) error {
	transferID(a, &e.id)
	a.TransferInt32(&e.proto)
	a.TransferInt32(&e.region)
	a.TransferInt32(&e.owner)
	if a.IsReplication() {
		return e.serializeReplication(a)
	}
	transferVec2(a, &e.pos)
	a.TransferFloat32(&e.yaw)
	a.TransferFloat32(&e.radius)
	a.TransferFloat32(&e.speed)
	c := uint32(e.collision)
	a.TransferUint32(&c)
	e.collision = Collision(c)
	f := uint32(e.flags)
	a.TransferUint32(&f)
	e.flags = world.ProtoFlags(f)
	a.TransferBool(&e.footprint)
	a.TransferUint32(&e.seed)
	a.TransferInt32(&e.population)
	a.TransferUint64(&e.created)
	a.TransferUint64(&e.changed)
	a.TransferUint64(&e.locoFrame)
	a.TransferUint64(&e.wake)
	if a.Mode() != archive.Database {
		// A Database archive saves an entity for another game (Restore), whose frames
		// the cooldown does not count; leaving it out keeps saves made before it readable.
		a.TransferUint64(&e.nextFire)
	}
	a.TransferUint16(&e.stuck)
	mode := uint32(e.loco.mode)
	a.TransferUint32(&mode)
	e.loco.mode = MoveMode(mode)
	archive.TransferSlice(a, &e.loco.path, transferVec2)
	archive.TransferSlice(a, &e.loco.arcs, transferArc)
	a.TransferInt32(&e.loco.next)
	transferID(a, &e.follow.target)
	a.TransferFloat32(&e.follow.rng)
	a.TransferUint64(&e.follow.repath)
	e.power.serialize(a)
	if !a.IsPacking() && a.Err() == nil {
		if e.loco.mode > Following || e.collision > Overlapping || (e.power.power != 0 && e.collision != CollideNone) ||
			e.loco.next < 0 || int(e.loco.next) > len(e.loco.path) || !validArcs(e.loco.path, e.loco.arcs) {
			return ErrCorrupt
		}
	}
	return a.Err()
}

// serializeReplication moves what a client needs after the ids: the locomotion
// state (inline, as TransferObject writes it in Replication) and the projectile's
// power data. The path goes straight between the locomotor and the archive, so a
// pack allocates nothing and an unpack only what the entity's path storage lacks.
func (e *Entity) serializeReplication(a *archive.Archive) error {
	var st locomotion.State
	if a.IsPacking() {
		e.locomotionHeader(&st, e.changed)
	} else {
		e.loco = locomotor{path: e.loco.path[:0], arcs: e.loco.arcs[:0]}
		e.follow = follow{}
	}
	if err := st.SerializeNodes(a, (*locoNodes)(e)); err != nil {
		return err
	}
	isProj := e.power.power != 0
	a.TransferBool(&isProj)
	if isProj {
		e.power.serialize(a)
	}
	if a.IsPacking() || a.Err() != nil {
		return a.Err()
	}
	e.changed = st.Frame
	e.pos = mgl32.Vec2{st.Position[0], st.Position[1]}
	e.yaw, e.speed = st.Yaw, st.Speed
	if st.Fields&locomotion.Moving == 0 {
		e.loco = locomotor{}
		return nil
	}
	e.loco.mode = PathMove
	e.loco.next = int32(st.Goal)
	if !validArcs(e.loco.path, e.loco.arcs) {
		return ErrCorrupt
	}
	return nil
}
