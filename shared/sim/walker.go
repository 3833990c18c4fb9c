package sim

import (
	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/sim/locomotion"

	"github.com/twinframe/twinframe/shared/geom"
)

// Walker moves an entity along its path the way the locomotor moves it when
// nothing blocks it: speed × 50 ms a frame along straight legs and round turn
// nodes' arcs, through as many nodes as that reaches, facing its planned motion. A client
// walks the entities the server replicates with it between their updates, and the
// server walks its own copy of what the clients hold, so that it knows when they
// need an update (collisions, slides and new commands are the server's alone).
//
// Step runs the code a Step of the Game runs for an unobstructed mover (the
// locomotor's advance, the physics' unblocked move, passed corners, faceMotion), so a
// walker started from an entity's exact state stays on it bit for bit until
// something gets in its way.
type Walker struct {
	Pos   mgl32.Vec2
	Yaw   float32
	Speed float32 // metres per second
	Next  int     // index in the path of the node walked to

	loco locomotor // path and arcs; mode and next are unused
}

// SetPath sets the path the walker follows (nodes as locomotion.State carries them:
// the first is where the move started) and the node it walks to. The walker keeps
// its own copy.
func (w *Walker) SetPath(nodes []locomotion.PathNode, next int) {
	w.loco.path = w.loco.path[:0]
	w.loco.arcs = w.loco.arcs[:0]
	turns := false
	for _, n := range nodes {
		w.loco.path = append(w.loco.path, mgl32.Vec2{n.Point[0], n.Point[1]})
		turns = turns || n.Side != locomotion.None
	}
	if turns {
		for _, n := range nodes {
			w.loco.arcs = append(w.loco.arcs, arc{side: n.Side, r: n.Radius})
		}
		if !validArcs(w.loco.path, w.loco.arcs) {
			w.loco.arcs = w.loco.arcs[:0] // walk it as straight corners
		}
	}
	w.Next = next
}

// PathLen returns the number of nodes of the walker's path.
func (w *Walker) PathLen() int { return len(w.loco.path) }

// Walking reports whether a Step would move the walker: it has a node left to
// walk to and a positive speed.
func (w *Walker) Walking() bool {
	return w.Next >= 0 && w.Next < len(w.loco.path) && w.Speed > 0 && geom.Finite(w.Speed)
}

// Step advances the walker one frame and reports whether it is still walking
// afterwards (false once it reached the end of its path, where the locomotor
// would stop the entity).
func (w *Walker) Step() bool {
	if !w.Walking() {
		return false
	}
	from := w.Pos
	w.loco.next = int32(w.Next)
	step := float32(min(w.Speed, MaxSpeed) * FrameSeconds)
	p, planNext := w.loco.advance(from, step)
	motion := geom.Sub(p, from)
	w.Pos = geom.Add(from, motion) // what physics does with an unblocked motion
	w.Next = int(w.loco.passedCorners(planNext, w.Pos))
	w.Yaw = faceMotion(motion, w.Yaw, step)
	return w.Walking()
}
