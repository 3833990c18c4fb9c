// Package locomotion holds the replicated state of a moving entity: the archive
// inside NetMessageLocomotionStateUpdate, and how a client applies relative updates.
//
// Its byte layout is docs/PROTOCOL.md §4.4.
//
// # Design note
//
// A State carries a field-flag set saying which parts are present. Positions use
// fixed point with precision 3 and yaw precision 6 (docs/ARCHITECTURE.md §4). Path nodes are
// written as integer deltas from the previous node in fixed-point units (the first
// from the state's position), so quantization never accumulates along a path: the
// unpacker rebuilds exactly the quantized nodes the packer saw. With the Relative
// flag set, a field that is not present means "unchanged"; Apply merges such an
// update into the last known state.
package locomotion

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
)

// Fixed-point precisions of the locomotion archive.
const (
	PositionPrecision = 3
	YawPrecision      = 6
	SpeedPrecision    = 3
	// RadiusPrecision is finer than positions: a turn node's radius is the mover's
	// radius plus a few millimetres of clearance, which 1/8 m would round away.
	RadiusPrecision = 6
)

// Fields says which parts of a State an archive carries.
type Fields uint32

const (
	HasPosition Fields = 1 << iota
	HasYaw
	HasSpeed
	HasPath // path nodes and goal index
	Relative
	Moving // not a field: the entity is moving along its path
)

// Side is the turning side of a path node: a circle-tangent segment turns around
// a node of radius Radius on that side; a straight corner has Side None.
type Side int32

const (
	None  Side = 0
	Left  Side = 1
	Right Side = -1
)

// PathNode is one corner of a path.
type PathNode struct {
	Point  mgl32.Vec3
	Side   Side
	Radius float32
}

// MaxPathNodes caps the nodes an update may carry.
const MaxPathNodes = 256

// State is an entity's locomotion as the server replicates it.
type State struct {
	Entity   uint64
	Frame    uint64 // the server frame this state is authoritative for
	Fields   Fields
	Position mgl32.Vec3
	Yaw      float32
	Speed    float32
	Goal     uint32 // index in Path of the node being walked to
	Path     []PathNode
}

// Nodes is where a path's nodes come from when packing, or go to when unpacking,
// instead of State.Path: it lets an owner of the path in another form (the
// simulation's entity) pack and unpack it without a copy in between.
type Nodes interface {
	// Len returns the number of nodes to pack.
	Len() int
	// Node returns node i (0 <= i < Len) to pack.
	Node(i int) PathNode
	// Resize makes room for n unpacked nodes, before any SetNode.
	Resize(n int)
	// SetNode stores unpacked node i (0 <= i < n), in order.
	SetNode(i int, n PathNode)
}

// Serialize packs or unpacks the state; only present fields travel.
func (s *State) Serialize(a *archive.Archive) error { return s.SerializeNodes(a, nil) }

// SerializeNodes is Serialize with the path's nodes taken from (packing) or given
// to (unpacking) nodes instead of s.Path, which it leaves alone; nil nodes means
// s.Path. The bytes are the same. Call it for an object inline in Replication
// (as TransferObject would), where it allocates nothing.
func (s *State) SerializeNodes(a *archive.Archive, nodes Nodes) error {
	a.TransferUint64(&s.Entity)
	a.TransferUint64(&s.Frame)
	f := uint32(s.Fields)
	a.TransferUint32(&f)
	s.Fields = Fields(f)
	if s.Fields&HasPosition != 0 {
		a.TransferVec3Fixed(&s.Position, PositionPrecision)
	}
	if s.Fields&HasYaw != 0 {
		a.TransferOrientationFixed(&s.Yaw, nil, nil, true, YawPrecision)
	}
	if s.Fields&HasSpeed != 0 {
		a.TransferFloatFixed(&s.Speed, SpeedPrecision)
	}
	if s.Fields&HasPath != 0 {
		a.TransferUint32(&s.Goal)
		if n := s.transferPath(a, nodes); a.Err() == nil && int(s.Goal) > n {
			return goalError(s.Goal, n)
		}
	}
	return a.Err()
}

func goalError(goal uint32, n int) error {
	return fmt.Errorf("locomotion: goal index %d beyond %d path nodes", goal, n)
}

// transferPath moves the path through nodes (nil: s.Path) and returns its length.
func (s *State) transferPath(a *archive.Archive, nodes Nodes) int {
	n := len(s.Path)
	if nodes != nil && a.IsPacking() {
		n = nodes.Len()
	}
	a.TransferCount(&n)
	if a.Err() != nil {
		return 0
	}
	if n > MaxPathNodes {
		// Through the archive's own error, so it carries an offset.
		a.TransferObject(tooLong(n))
		return 0
	}
	var prev [3]int32
	if s.Fields&HasPosition != 0 {
		prev = fixed3(s.Position)
	}
	if a.IsPacking() {
		for i := range n {
			var node PathNode
			if nodes != nil {
				node = nodes.Node(i)
			} else {
				node = s.Path[i]
			}
			prev = packNode(a, &node, prev)
		}
		return n
	}
	if nodes != nil {
		nodes.Resize(n)
	} else {
		s.Path = grow(s.Path, n)
	}
	for i := range n {
		var node PathNode
		prev = unpackNode(a, &node, prev)
		if a.Err() != nil {
			return 0
		}
		if nodes != nil {
			nodes.SetNode(i, node)
		} else {
			s.Path[i] = node
		}
	}
	return n
}

// packNode writes node as deltas from prev (fixed point) and returns its fixed point.
func packNode(a *archive.Archive, node *PathNode, prev [3]int32) [3]int32 {
	cur := fixed3(node.Point)
	for k := range 3 {
		d := cur[k] - prev[k] // wraps back exactly even when the delta overflows
		a.TransferInt32(&d)
	}
	side := int32(node.Side)
	a.TransferInt32(&side)
	if node.Side != None {
		a.TransferFloatFixed(&node.Radius, RadiusPrecision)
	}
	return cur
}

// unpackNode reads a node written by packNode after prev and returns its fixed point.
func unpackNode(a *archive.Archive, node *PathNode, prev [3]int32) [3]int32 {
	var cur [3]int32
	for k := range 3 {
		var d int32
		a.TransferInt32(&d)
		cur[k] = prev[k] + d
		node.Point[k] = float32(cur[k]) / (1 << PositionPrecision)
	}
	side := int32(node.Side)
	a.TransferInt32(&side)
	node.Side = Side(side)
	if node.Side != None && node.Side != Left && node.Side != Right {
		a.TransferObject(badSide(side))
		return cur
	}
	if node.Side != None {
		a.TransferFloatFixed(&node.Radius, RadiusPrecision)
	}
	return cur
}

func fixed3(v mgl32.Vec3) [3]int32 {
	return [3]int32{
		archive.FixedFromFloat(v[0], PositionPrecision),
		archive.FixedFromFloat(v[1], PositionPrecision),
		archive.FixedFromFloat(v[2], PositionPrecision),
	}
}

func grow(p []PathNode, n int) []PathNode {
	if cap(p) >= n {
		p = p[:n]
		clear(p)
		return p
	}
	return make([]PathNode, n)
}

// tooLong is a Serializer that fails, turning a semantic limit into an archive error.
type tooLong int

func (n tooLong) Serialize(*archive.Archive) error {
	return fmt.Errorf("locomotion: path of %d nodes exceeds %d", int(n), MaxPathNodes)
}

// badSide is a Serializer that fails on a path node's unknown side.
type badSide int32

func (s badSide) Serialize(*archive.Archive) error {
	return fmt.Errorf("locomotion: path node side %d is none of 0, 1 (left), -1 (right)", int32(s))
}

// Apply returns the state after update: a relative update replaces only the
// fields it carries; an absolute one replaces the state. Entity must match.
func (s State) Apply(update *State) (State, error) {
	if update.Entity != s.Entity {
		return s, fmt.Errorf("locomotion: update for entity %d applied to %d", update.Entity, s.Entity)
	}
	if update.Fields&Relative == 0 {
		out := *update
		out.Path = append([]PathNode(nil), update.Path...)
		return out, nil
	}
	out := s
	out.Frame = update.Frame
	out.Fields = s.Fields&^Moving | update.Fields&Moving
	if update.Fields&HasPosition != 0 {
		out.Position = update.Position
	}
	if update.Fields&HasYaw != 0 {
		out.Yaw = update.Yaw
	}
	if update.Fields&HasSpeed != 0 {
		out.Speed = update.Speed
	}
	if update.Fields&HasPath != 0 {
		out.Goal = update.Goal
		out.Path = append([]PathNode(nil), update.Path...)
	}
	out.Fields &^= Relative
	return out, nil
}

// Diff returns the relative update that turns prev into cur, carrying only the
// fields whose quantized values differ.
func Diff(prev, cur *State) State {
	u := State{Entity: cur.Entity, Frame: cur.Frame, Fields: Relative | cur.Fields&Moving}
	if fixed3(prev.Position) != fixed3(cur.Position) {
		u.Fields |= HasPosition
		u.Position = cur.Position
	}
	if archive.Quantize(prev.Yaw, YawPrecision) != archive.Quantize(cur.Yaw, YawPrecision) {
		u.Fields |= HasYaw
		u.Yaw = cur.Yaw
	}
	if archive.Quantize(prev.Speed, SpeedPrecision) != archive.Quantize(cur.Speed, SpeedPrecision) {
		u.Fields |= HasSpeed
		u.Speed = cur.Speed
	}
	if prev.Goal != cur.Goal || !samePath(prev.Path, cur.Path) {
		u.Fields |= HasPath
		u.Goal, u.Path = cur.Goal, cur.Path
	}
	return u
}

func samePath(a, b []PathNode) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if fixed3(a[i].Point) != fixed3(b[i].Point) || a[i].Side != b[i].Side ||
			archive.Quantize(a[i].Radius, RadiusPrecision) != archive.Quantize(b[i].Radius, RadiusPrecision) {
			return false
		}
	}
	return true
}
