package gameserver

import (
	"errors"

	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replication"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
)

// newReplicator returns the replicator of the server's game, with the server's
// replication settings.
func (s *Server) newReplicator() (*replication.Replicator, error) {
	return replication.New(s.game, replication.Config{
		AOI: s.cfg.AOI, AOIMove: s.cfg.AOIMove, AOIRefresh: s.cfg.AOIRefresh, MaxInputLead: s.cfg.MaxInputLead,
		RefreshFrames: s.cfg.RefreshFrames, EveryFrameUpdates: s.cfg.EveryFrameUpdates, Logger: s.log,
	})
}

// replicate builds and queues every session's packet for the frame just run
// (shared/replication decides what each client gets).
func (s *Server) replicate(stepped bool) {
	s.repl.Prepare(stepped)
	f := s.game.Frame()
	for _, g := range s.repl.Gone() {
		s.addLost(world.Lost{ID: int64(g.ID), Region: g.Region, Timestamp: int64(f)})
	}
	var draw *pb.NetMessageDebugDraw
	for _, c := range s.sessions {
		if c.closed() {
			continue
		}
		err := s.repl.Write(&s.pk, &c.view, replication.Frame{Paused: s.paused, Replies: c.replies})
		clear(c.replies)
		c.replies = c.replies[:0]
		if errors.Is(err, replication.ErrPacketFull) {
			c.fail(pb.ErrorCode_ERROR_CODE_INTERNAL, err.Error())
			continue
		}
		if c.draw {
			if draw == nil {
				draw = s.debugDraw()
			}
			_ = s.pk.Append(draw)
		}
		s.queue(c, &s.pk)
	}
}

// debugDraw records the sweeps of the frame just stepped, drawn as the simulation
// draws them for every viewer.
func (s *Server) debugDraw() *pb.NetMessageDebugDraw {
	var r protocol.DrawRecorder
	sim.DebugDraw(&r, s.game, sim.DrawOptions{Sweeps: true, Region: -1, SweepFrame: s.game.Frame()})
	if r.Msg == nil {
		r.Msg = &pb.NetMessageDebugDraw{}
	}
	r.Msg.Frame = s.game.Frame()
	return r.Msg
}

func (s *Server) addLost(l world.Lost) {
	const maxLost = 4096
	if len(s.lost) >= maxLost {
		s.lost = s.lost[len(s.lost)-maxLost+1:]
	}
	s.lost = append(s.lost, l)
}
