package sim

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/sim/locomotion"

	"github.com/twinframe/twinframe/shared/geom"
)

// SetLocomotion puts a replicated locomotion state into entity id exactly as given,
// the way a Replication create sets it (position, yaw, speed, and a path walked
// from node Goal when Moving) but without the wire's quantization. A client's
// prediction rewinds its avatar with it: the values it keeps from its own exact
// prediction must not be rounded to the wire's grid, or the replay starts a
// sub-quantum away from the server.
func (g *Game) SetLocomotion(id EntityID, st *locomotion.State) error {
	e, err := g.live(id)
	if err != nil {
		return err
	}
	if !geom.Finite(st.Position[0]) || !geom.Finite(st.Position[1]) || !geom.Finite(st.Yaw) || !geom.Finite(st.Speed) {
		return ErrNotFinite
	}
	moving := st.Fields&locomotion.Moving != 0
	if moving && int(st.Goal) > len(st.Path) {
		return fmt.Errorf("%w: goal %d beyond %d path nodes", ErrCorrupt, st.Goal, len(st.Path))
	}
	e.changed = st.Frame
	e.pos = mgl32.Vec2{st.Position[0], st.Position[1]}
	e.yaw, e.speed = st.Yaw, st.Speed
	// The path's and arcs' storage is kept, idle or not: a client's rewind sets
	// its avatar's state every correction, and the replay plans paths into it.
	e.loco = locomotor{path: e.loco.path[:0], arcs: e.loco.arcs[:0]}
	e.follow = follow{}
	if moving {
		e.loco.mode = PathMove
		turns := false
		for _, n := range st.Path {
			e.loco.path = append(e.loco.path, mgl32.Vec2{n.Point[0], n.Point[1]})
			turns = turns || n.Side != locomotion.None
		}
		e.loco.next = int32(st.Goal)
		// The arcs, as a Replication create takes them (one per node when
		// any node turns); invalid ones are walked as straight corners, as
		// the Walker does.
		if turns {
			for _, n := range st.Path {
				e.loco.arcs = append(e.loco.arcs, arc{side: n.Side, r: n.Radius})
			}
			if !validArcs(e.loco.path, e.loco.arcs) {
				e.loco.arcs = e.loco.arcs[:0]
			}
		}
	}
	return nil
}
