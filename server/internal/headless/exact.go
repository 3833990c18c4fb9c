package headless

import (
	"fmt"
	"sync"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/server/internal/gameserver"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
)

// The exact check (zero added latency only). The client predicts its avatar with
// the server's own simulation code, from the same inputs at the same frames, so
// without latency its prediction for a frame is the server's state bit for bit,
// unless something it cannot simulate exactly pushed the avatar: a contact with
// another entity (where the client knows the other only from quantized states).
// Once pushed, the client has only the wire's 1/8 m grid to rewind to, and is
// exact again when the avatar next reaches a goal on both sides. The check reads
// the server's avatars through the OnFrame hook and each client's predicted avatar
// before the bots play: a prediction that was exact at the frame before and is not
// at this one, with no contact on either side in this frame, is a violation.

// avatarFrame is what the hook saw of an avatar in a frame.
type avatarFrame struct {
	frame   uint64
	region  int32
	pos     mgl32.Vec2
	yaw     float32
	contact bool // it ran into another entity, or one ran into it
	command bool // it got a new command (move, stop) in the frame
	moving  bool
	end     mgl32.Vec2 // moving: where its path ends; resting at its goal: the goal
	atGoal  int        // frames it has rested where its path ended (0: not so)
	arrived bool       // it entered this region in the frame (a handoff)
}

// avatarWatch is the OnFrame hook's record of every avatar in the newest frame.
type avatarWatch struct {
	mu  sync.Mutex
	now map[sim.EntityID]avatarFrame
}

func (w *avatarWatch) onFrame(v gameserver.FrameView) {
	w.mu.Lock()
	defer w.mu.Unlock()
	prev := w.now
	w.now = make(map[sim.EntityID]avatarFrame, len(prev))
	for _, g := range v.Games {
		w.watch(g, v.Frame, prev)
	}
}

// watch records the avatars of one region's game.
func (w *avatarWatch) watch(g *sim.Game, frame uint64, prev map[sim.EntityID]avatarFrame) {
	for _, e := range g.Entities() {
		if e.Prototype() != gameserver.AvatarPrototype {
			continue
		}
		a := avatarFrame{frame: frame, pos: e.Pos(), yaw: e.Yaw(), command: e.CommandFrame() == frame,
			moving: e.Mode() != sim.Idle}
		if path, _ := e.Path(); a.moving && len(path) > 0 {
			a.end = path[len(path)-1]
		}
		p, seen := prev[e.ID()]
		a.region = g.Home().ID()
		a.arrived = seen && p.region != a.region
		if seen && !a.moving {
			switch {
			case p.moving && a.pos == p.end:
				a.atGoal, a.end = 1, p.end // arrived (not stopped, not stuck)
			case p.atGoal > 0:
				a.atGoal, a.end = p.atGoal+1, p.end
			}
		}
		w.now[e.ID()] = a
	}
	for _, ev := range g.Events() {
		if ev.Kind != sim.OnCollide || ev.B == 0 {
			continue
		}
		for _, id := range [2]sim.EntityID{ev.A, ev.B} {
			if a, ok := w.now[id]; ok {
				a.contact = true
				w.now[id] = a
			}
		}
	}
}

func (w *avatarWatch) get(id uint64) (avatarFrame, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	a, ok := w.now[sim.EntityID(id)]
	return a, ok
}

// predictedAt returns the bot's prediction for frame f, and whether its avatar
// touched another entity in the prediction of that frame.
func predictedAt(b *headlessBot, f uint64) (st locomotion.State, contact, ok bool) {
	b.c.With(func(r *replica.Replica) { st, contact, ok = r.Predicted(f) })
	return st, contact, ok
}

// quantize2 puts a point on the wire's grid.
func quantize2(v mgl32.Vec2) [2]int32 {
	return [2]int32{archive.FixedFromFloat(v[0], locomotion.PositionPrecision), archive.FixedFromFloat(v[1], locomotion.PositionPrecision)}
}

// restFrames is how long an avatar rests at the goal it walked to before the
// prediction must be on its exact position again (it arrives a frame early or
// late when the walk was mispredicted).
const restFrames = 3

// checkExact runs the exact check of every bot at server frame f, after the
// clients have reconciled it and before they predict further.
func (h *headlessRun) checkExact(f uint64) {
	d := &h.rep.Drift
	for _, b := range h.bots {
		player := b.b.Report().Player
		srv, ok := h.avatars.get(player)
		if !ok || srv.frame != f {
			continue
		}
		st, contact, ok := predictedAt(b, f)
		// A region change starts the prediction afresh from the avatar's create, on
		// the wire's grid, as a login does: exact again only once it walks.
		if !ok || srv.arrived {
			b.exact = false
			continue
		}
		pos, yaw := st.Position.Vec2(), st.Yaw
		if st.Fields&locomotion.Moving != 0 && len(st.Path) > 0 {
			b.predEnd = st.Path[len(st.Path)-1].Point.Vec2()
		}
		if srv.command {
			b.touched = false
		}
		b.touched = b.touched || srv.contact || contact
		exact := pos == srv.pos && yaw == srv.yaw
		violate := func(what string) {
			h.rep.violate(headlessViolation{Frame: f, Check: "exact", Bot: b.n, Entity: player,
				What: fmt.Sprintf("%s: predicted %v yaw %v, server %v yaw %v", what, pos, yaw, srv.pos, srv.yaw)})
		}
		switch {
		case exact:
			d.ExactFrames++
		case b.exact && (srv.contact || contact):
			d.ContactDesyncs++
		case b.exact:
			violate("the prediction left the server's exact state without a contact")
		}
		// A walk ends exactly on its path's end on both sides, however the
		// walk was mispredicted, unless the avatar was pushed on the way or
		// the two paths end in different cells of the wire's grid (a goal out
		// of reach: each path ends where it gets nearest, which depends on
		// where it started; in one cell, the client kept its own end). The
		// yaw is the direction of the last step, which may still differ.
		if srv.atGoal == restFrames && !b.touched && quantize2(b.predEnd) == quantize2(srv.end) && pos != srv.pos {
			violate(fmt.Sprintf("the prediction is not on the server's exact position %d frames after the avatar came to rest at its goal (the predicted path ended at %v, the server's at %v)", restFrames, b.predEnd, srv.end))
		}
		b.exact = exact
	}
}
