package replication

import (
	"errors"
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/sim/locomotion"

	"github.com/twinframe/twinframe/shared/geom"
)

// Dead reckoning. The server does not send a remote entity's every step: a client
// walks it along its replicated path with the simulation's locomotor (sim.Walker),
// frame by frame, from the last update it got. The server runs the same walk on a
// Remote per entity (the copy every client holds) and sends an update when the
// command changes, when the entity starts or stops, when the walked copy strays
// beyond WalkTolerance from the truth (a collision, a slide) and as a periodic
// refresh. A client that starts holding the entity gets the server's copy in its
// create (PackCreate), and walking is deterministic: every client's copy and the
// server's are the same, bit for bit, so the bound holds for each of them. A create
// carries the copy at the wire's precision: when the walk has taken it off the wire's
// grid (OnWire), the server sends every holder a correction the next frame, which
// makes their copies the same again.

// WalkTolerance is how far (metres) a client's walked copy of a remote entity may be
// from the server's entity before the server sends an update.
const WalkTolerance float32 = 0.25

// YawTolerance is how far (radians) a walked copy's facing may be from the
// server's before the server sends an update.
const YawTolerance float32 = 0.25

// maxWalkFrames caps the frames one advance walks: a gap in the server's frames
// longer than this (a minute) stops the walk rather than the client.
const maxWalkFrames = 20 * 60

// Remote is a remote entity's locomotion as a client holds it: the last update,
// walked along its path to the frame it stands for. The zero value holds nothing;
// Reset it first.
type Remote struct {
	st locomotion.State
	w  sim.Walker
}

// State returns the state at its frame. The path is the Remote's own: do not
// modify it.
func (m *Remote) State() *locomotion.State { return &m.st }

// Reset replaces the state with an absolute one, standing for frame at (or for
// st.Frame when it is later).
func (m *Remote) Reset(st *locomotion.State, at uint64) {
	path := append(m.st.Path[:0], st.Path...)
	m.st = *st
	m.st.Path = path
	m.st.Fields &^= locomotion.Relative
	m.st.Frame = max(st.Frame, at)
	load(&m.st, &m.w)
}

// Apply merges an update (see locomotion.State.Apply): the state then stands for
// the update's frame. It refuses an update for another entity or one that leaves a
// non-finite position, yaw or speed.
func (m *Remote) Apply(u *locomotion.State) error { return apply(&m.st, &m.w, u) }

// AdvanceTo walks the entity to frame f, one locomotor step per frame, while the
// server last said it moves; a frame not after the state's does nothing.
func (m *Remote) AdvanceTo(f uint64) { walkTo(&m.st, &m.w, f) }

// Walking reports whether the next frame would move the entity.
func (m *Remote) Walking() bool {
	return m.st.Fields&locomotion.Moving != 0 && m.w.Walking()
}

// apply merges update u into st and loads the result into its walker.
func apply(st *locomotion.State, w *sim.Walker, u *locomotion.State) error {
	next, err := st.Apply(u)
	if err != nil {
		return err
	}
	if !geom.Finite3(next.Position) || !geom.Finite(next.Yaw) || !geom.Finite(next.Speed) {
		return errNonFinite
	}
	*st = next
	load(st, w)
	return nil
}

var errNonFinite = errors.New("non-finite position, yaw or speed")

// load puts a state into its walker.
func load(st *locomotion.State, w *sim.Walker) {
	w.Pos = mgl32.Vec2{st.Position[0], st.Position[1]}
	w.Yaw, w.Speed = st.Yaw, st.Speed
	w.SetPath(st.Path, int(st.Goal))
}

// walkTo advances st (and its walker) to frame f.
func walkTo(st *locomotion.State, w *sim.Walker, f uint64) {
	if f <= st.Frame {
		return
	}
	if st.Fields&locomotion.Moving != 0 && w.Walking() {
		for range min(f-st.Frame, maxWalkFrames) {
			if !w.Step() {
				break
			}
		}
		st.Position[0], st.Position[1] = w.Pos[0], w.Pos[1]
		st.Yaw, st.Goal = w.Yaw, uint32(w.Next)
	}
	st.Frame = f
}

// Off reports whether the walked copy needs an update to match cur, the server's
// state of the entity at the same frame: it starts or stops, its speed or path
// differ, its goal corner differs (by more than one corner, when tolerances are
// given: passing a corner a frame apart heals itself), or its position or yaw
// differ by more than posTol metres or yawTol radians. Zero tolerances mean: the
// copy is not exactly what Correction would send.
func (m *Remote) Off(cur *locomotion.State, posTol, yawTol float32) bool {
	st := &m.st
	if (st.Fields^cur.Fields)&locomotion.Moving != 0 || st.Speed != wireSpeed(cur.Speed) {
		return true
	}
	if st.Goal != cur.Goal && (posTol == 0 || max(st.Goal, cur.Goal)-min(st.Goal, cur.Goal) > 1) {
		return true
	}
	if len(st.Path) != len(cur.Path) {
		return true
	}
	for i := range st.Path {
		if st.Path[i] != wireNode(cur.Path[i]) {
			return true
		}
	}
	if posTol == 0 {
		return st.Position != wirePos(cur.Position) || st.Yaw != wireYaw(cur.Yaw)
	}
	d := mgl32.Vec2{st.Position[0] - cur.Position[0], st.Position[1] - cur.Position[1]}
	dyaw := geom.WrapAngle(st.Yaw - cur.Yaw)
	return d.Len() > posTol || dyaw > yawTol || -dyaw > yawTol
}

// Correction fills u with the update that makes the walked copy cur, the server's
// state: a Relative update of position, yaw and speed (absolute values, so that a
// client whose copy came from a later create takes them as well), with the path and
// goal when withPath is set or they differ from the copy. Values are rounded to the
// nearest the wire can carry (the archive truncates), so that packing and unpacking
// u gives u back: the server applies u to its own copy as it is. u.Path's storage
// is reused.
func (m *Remote) Correction(cur *locomotion.State, u *locomotion.State, withPath bool) {
	path := u.Path[:0]
	*u = locomotion.State{Entity: cur.Entity, Frame: cur.Frame,
		Fields:   locomotion.Relative | locomotion.HasPosition | locomotion.HasYaw | locomotion.HasSpeed | cur.Fields&locomotion.Moving,
		Position: wirePos(cur.Position), Yaw: wireYaw(cur.Yaw), Speed: wireSpeed(cur.Speed)}
	same := m.st.Goal == cur.Goal && len(m.st.Path) == len(cur.Path)
	for i := 0; same && i < len(cur.Path); i++ {
		same = m.st.Path[i] == wireNode(cur.Path[i])
	}
	if withPath || !same {
		u.Fields |= locomotion.HasPath
		u.Goal = cur.Goal
		for _, n := range cur.Path {
			path = append(path, wireNode(n))
		}
	}
	u.Path = path
}

// wire rounds v to the nearest multiple of 2^-p, which the archive's fixed-point
// truncation then carries exactly.
func wire(v float32, p int) float32 {
	s := float64(int(1) << p)
	return float32(math.Round(float64(v)*s) / s)
}

func wirePos(v mgl32.Vec3) mgl32.Vec3 {
	p := locomotion.PositionPrecision
	return mgl32.Vec3{wire(v[0], p), wire(v[1], p), wire(v[2], p)}
}

func wireYaw(y float32) float32 { return wire(geom.WrapAngle(y), locomotion.YawPrecision) }

func wireSpeed(v float32) float32 { return wire(v, locomotion.SpeedPrecision) }

func wireNode(n locomotion.PathNode) locomotion.PathNode {
	n.Point = wirePos(n.Point)
	if n.Side == locomotion.None {
		n.Radius = 0 // not on the wire
	} else {
		n.Radius = wire(n.Radius, locomotion.PositionPrecision)
	}
	return n
}

// OnWire reports whether PackCreate carries the state exactly: its position, yaw
// and speed are values the wire can carry (as after Reset or Apply of a
// Correction), not where a walk has taken them since.
func (m *Remote) OnWire() bool {
	st := &m.st
	return st.Position == wirePos(st.Position) && st.Yaw == wireYaw(st.Yaw) && st.Speed == wireSpeed(st.Speed)
}

// PackCreate writes the replication archive of e's create (sim.Entity.Serialize's
// layout: id, prototype, region, owner, locomotion state, not a projectile) with the
// walked copy's state in place of e's own: a client that gets e now then holds
// exactly what the clients holding it already hold, and one correction serves
// them all. e must not be a projectile.
func (m *Remote) PackCreate(a *archive.Archive, e *sim.Entity) {
	id := uint64(e.ID())
	proto, region, owner := e.Prototype(), e.Region(), e.Owner()
	a.TransferUint64(&id)
	a.TransferInt32(&proto)
	a.TransferInt32(&region)
	a.TransferInt32(&owner)
	a.TransferObject(&m.st)
	projectile := false
	a.TransferBool(&projectile)
}
