package gameserver

import "github.com/twinframe/twinframe/shared/sim"

// FrameView is what an OnFrame hook sees of a frame: every region's game after its
// step, the frame's travel and its replication.
type FrameView struct {
	Frame uint64 // the game frame just stepped
	// Games are the regions' games, in the world's order. They are the loop's:
	// read them during the call and do not keep them, step them or command them
	// (queries that rebuild scratch state, such as CheckInvariants, are fine).
	Games []*sim.Game
	// Handoffs are the frame's travels, in the order they were carried out.
	Handoffs []Handoff
}

// Handoff is one avatar's travel: what its source game packed (sim.Game.Emigrate,
// Migration mode) before the target game unpacked it, for checks that compare
// the two.
type Handoff struct {
	Entity    sim.EntityID
	From, To  int32 // region ids
	Emigrated []byte
	// Away: another node of the cluster runs To; this frame packed the avatar
	// and sent it there (it arrives there, or comes back here, a few frames on).
	Away bool
}

// onFrame runs the configured hook, on the frame loop's goroutine, after a frame
// that stepped the game (a paused frame has nothing new to show).
func (s *Server) onFrame(stepped bool) {
	if s.cfg.OnFrame != nil && stepped {
		games := make([]*sim.Game, len(s.regions))
		for i, r := range s.regions {
			games[i] = r.game
		}
		s.cfg.OnFrame(FrameView{Frame: s.frameNumber(), Games: games, Handoffs: s.handoffs})
	}
}

// PendingRequests returns the number of requests (joins, HTTP xdumps, status
// pages, live edits) waiting for the next frame boundary. A driver that grants
// frames one at a time (Config.Clock) reads it to run a join at a frame it
// chooses: once a login's request is queued, the next frame admits it.
func (s *Server) PendingRequests() int { return len(s.reqs) }
