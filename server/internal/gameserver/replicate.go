package gameserver

import (
	"errors"
	"slices"

	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replication"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
)

// newReplicator returns the replicator of g, with the server's replication
// settings.
func (s *Server) newReplicator(g *sim.Game) (*replication.Replicator, error) {
	return replication.New(g, replication.Config{
		AOI: s.cfg.AOI, AOIMove: s.cfg.AOIMove, AOIRefresh: s.cfg.AOIRefresh, MaxInputLead: s.cfg.MaxInputLead,
		RefreshFrames: s.cfg.RefreshFrames, EveryFrameUpdates: s.cfg.EveryFrameUpdates, Logger: s.log,
	})
}

// replicate builds and queues every session's packet for the frame just run, from
// its region's replication (prepareRegions; shared/replication decides what each
// client gets).
func (s *Server) replicate() {
	f := s.frameNumber()
	slices.Sort(s.travelled)
	for _, r := range s.live {
		for _, g := range r.repl.Gone() {
			if _, moved := slices.BinarySearch(s.travelled, uint64(g.ID)); !moved {
				s.addLost(world.Lost{ID: int64(g.ID), Region: g.Region, Timestamp: int64(f)})
			}
		}
	}
	for _, c := range s.sessions {
		if c.closed() || c.reg == nil {
			continue
		}
		r := c.reg
		err := r.repl.Write(&s.pk, &c.view, replication.Frame{Paused: s.paused, Replies: c.replies})
		clear(c.replies)
		c.replies = c.replies[:0]
		if errors.Is(err, replication.ErrPacketFull) {
			c.fail(pb.ErrorCode_ERROR_CODE_INTERNAL, err.Error())
			continue
		}
		if c.draw {
			if r.draw == nil {
				r.draw = debugDraw(r.game)
			}
			_ = s.pk.Append(r.draw)
		}
		s.queue(c, &s.pk)
	}
}

// debugDraw records the sweeps of the frame just stepped in g, drawn as the
// simulation draws them for every viewer, its events (debugEvents) and the
// explanation of its collisions (debugContacts).
func debugDraw(g *sim.Game) *pb.NetMessageDebugDraw {
	var r protocol.DrawRecorder
	sim.DebugDraw(&r, g, sim.DrawOptions{Sweeps: true, Region: -1, SweepFrame: g.Frame()})
	if r.Msg == nil {
		r.Msg = &pb.NetMessageDebugDraw{}
	}
	r.Msg.Frame = g.Frame()
	debugEvents(r.Msg, g, maxDebugEvents)
	debugContacts(r.Msg, g, maxDebugContacts)
	return r.Msg
}

func (s *Server) addLost(l world.Lost) {
	const maxLost = 4096
	if len(s.lost) >= maxLost {
		s.lost = s.lost[len(s.lost)-maxLost+1:]
	}
	s.lost = append(s.lost, l)
}
