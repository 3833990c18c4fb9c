package gameserver

import "github.com/twinframe/twinframe/shared/sim"

// FrameView is what an OnFrame hook sees of a frame: the game after its step and
// its replication.
type FrameView struct {
	Frame uint64 // the game frame just stepped
	// Game is the server's game. It is the loop's: read it during the call and do
	// not keep it, step it or command it (queries that rebuild scratch state,
	// such as CheckInvariants, are fine).
	Game *sim.Game
}

// onFrame runs the configured hook, on the frame loop's goroutine, after a frame
// that stepped the game (a paused frame has nothing new to show).
func (s *Server) onFrame(stepped bool) {
	if s.cfg.OnFrame != nil && stepped {
		s.cfg.OnFrame(FrameView{Frame: s.game.Frame(), Game: s.game})
	}
}

// PendingRequests returns the number of requests (joins, HTTP xdumps, status
// pages, live edits) waiting for the next frame boundary. A driver that grants
// frames one at a time (Config.Clock) reads it to run a join at a frame it
// chooses: once a login's request is queued, the next frame admits it.
func (s *Server) PendingRequests() int { return len(s.reqs) }
