package gameserver

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twinframe/twinframe/server/internal/frameclock"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replication"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
)

// region is one region of the world as the server runs it: its own game (own
// entities, random source and state hash) and the replication of that game.
// Regions share nothing but the world, which none changes, so their games step in
// parallel (stepRegions); everything that crosses regions (travel, sessions) runs
// on the loop between those parallel phases.
type region struct {
	id   int32
	name string
	live bool // stepped by this server (in a cluster: this node holds its lease)
	game *sim.Game
	repl *replication.Replicator
	// This frame, written by the worker that steps the region and read by the
	// loop after the workers are done.
	sessions []*session              // the joined sessions whose avatar is here, in join order
	busy     time.Duration           // the region's step and replication preparation
	doneAt   time.Duration           // when its work ended, from the start of the frame's step
	draw     *pb.NetMessageDebugDraw // the frame's sweeps, built for the first deity that wants them
}

// newRegions builds a game per region of w, in the world's order.
func (s *Server) newRegions(w *world.World) ([]*region, error) {
	if len(w.Regions) == 0 {
		return nil, fmt.Errorf("%w: the world has no region", ErrConfig)
	}
	var rs []*region
	for i := range w.Regions {
		wr := &w.Regions[i]
		g, err := sim.New(w, &sim.Options{Region: wr.ID, Seed: sim.RegionSeed(s.cfg.Seed, wr.ID), NoPopulation: s.cfg.NoPopulation})
		if err != nil {
			return nil, err
		}
		r := &region{id: wr.ID, name: wr.Name, game: g}
		if r.repl, err = s.newReplicator(g); err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	return rs, nil
}

// regionIDs returns the regions' ids in order.
func (s *Server) regionIDs() []int32 {
	ids := make([]int32, len(s.regions))
	for i, r := range s.regions {
		ids[i] = r.id
	}
	return ids
}

// regionSamples measures each region's share of the frame just reported: its
// busy time, and how far past the frame's deadline its work ended. It also feeds
// the per-region metrics.
func (s *Server) regionSamples(rep frameclock.Report) []regionSample {
	s.samples = s.samples[:0]
	for _, r := range s.regions {
		late := max(0, rep.Lateness+r.doneAt-s.cfg.Period)
		s.samples = append(s.samples, regionSample{Duration: r.busy, Lateness: late})
		if !r.live {
			continue
		}
		s.metrics.regionDuration.WithLabelValues(r.name).Observe(r.busy.Seconds())
		s.metrics.regionLateness.WithLabelValues(r.name).Observe(late.Seconds())
	}
	return s.samples
}

// regionByID returns the region with id, or nil.
func (s *Server) regionByID(id int32) *region {
	for _, r := range s.regions {
		if r.id == id {
			return r
		}
	}
	return nil
}

// frameNumber is the game frame the regions of this server are at (they step
// together; a region that joined later, in a cluster, counts its own): the first
// live region's, 0 when it runs none.
func (s *Server) frameNumber() uint64 {
	if len(s.live) == 0 {
		return 0
	}
	return s.live[0].game.Frame()
}

// workers returns how many goroutines step regions at once.
func (s *Server) workers() int {
	w := s.cfg.Workers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	return max(1, min(w, len(s.live)))
}

// parallel runs fn for every region on a bounded pool of workers and waits. fn
// must touch only its region and the sessions in it.
func (s *Server) parallel(fn func(r *region)) {
	n := s.workers()
	if n == 1 {
		for _, r := range s.live {
			fn(r)
		}
		return
	}
	var next atomic.Int32
	var wg sync.WaitGroup
	wg.Add(n)
	for range n {
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(s.live) {
					return
				}
				fn(s.live[i])
			}
		}()
	}
	wg.Wait()
}

// stepRegions applies each region's due inputs and steps its game, the regions in
// parallel. It returns the step's start on the loop's clock, from which each
// region's doneAt counts (the clock, not the wall: a headless run's reports must
// not depend on the machine).
func (s *Server) stepRegions() time.Duration {
	for _, r := range s.live {
		r.sessions = r.sessions[:0]
	}
	for _, c := range s.sessions {
		if c.reg != nil {
			c.reg.sessions = append(c.reg.sessions, c)
		}
	}
	clk := s.cfg.Clock
	start := clk.Now()
	s.parallel(func(r *region) {
		t0 := clk.Now()
		f := r.game.Frame() + 1
		for _, c := range r.sessions {
			s.applyInputs(c, f)
		}
		if err := r.game.Step(); err != nil {
			s.log.Warn("step", "region", r.name, "frame", f, "err", err)
		}
		if len(r.game.Rejected()) > 0 {
			for _, rj := range r.game.Rejected() {
				s.log.Debug("input rejected", "region", r.name, "entity", rj.Input.Entity, "err", rj.Err)
			}
			for _, c := range r.sessions {
				s.reportRejected(c)
			}
		}
		r.busy = clk.Now() - t0
	})
	return start
}

// prepareRegions computes each region's replication of the frame, in parallel.
func (s *Server) prepareRegions(stepped bool, start time.Duration) {
	clk := s.cfg.Clock
	s.parallel(func(r *region) {
		t0 := clk.Now()
		r.repl.Prepare(stepped)
		r.draw = nil
		if stepped {
			r.busy += clk.Now() - t0
		} else {
			r.busy = clk.Now() - t0
		}
		r.doneAt = clk.Now() - start
	})
}

// Travel errors.
var (
	ErrNoTarget  = errors.New("gameserver: no such region or marker")
	ErrNoAvatar  = errors.New("gameserver: the player has no avatar in the game")
	errHandoffIn = errors.New("gameserver: the target game refused the avatar")
)

// travel hands off the avatars that entered a portal this frame, in region order,
// then the departures' order (sim.Game.Departures). A departure the server cannot
// carry out (a session gone, a target missing) leaves the avatar where it is.
func (s *Server) travel() {
	for _, r := range s.live {
		for _, d := range r.game.Departures() {
			c := s.byAvatar(r, d.Entity)
			if c == nil {
				continue // not a logged-in player's avatar
			}
			if c.backFrame != 0 && r.game.Frame() == c.backFrame+1 {
				continue // put back in the portal by a refused handoff
			}
			if err := s.handoff(c, d.Region, d.Marker); err != nil {
				s.metrics.handoffs.WithLabelValues("refused").Inc()
				s.log.Warn("travel refused", "name", c.name, "from", r.name, "transition", d.Transition, "err", err)
			}
		}
	}
}

// byAvatar returns the session in r whose avatar is id, or nil.
func (s *Server) byAvatar(r *region, id sim.EntityID) *session {
	for _, c := range s.sessions {
		if c.reg == r && c.avatar == id && !c.closed() {
			return c
		}
	}
	return nil
}

// handoff moves c's avatar to marker of region to: packed in Migration mode from
// its game (sim.Game.Emigrate), unpacked into the target's (Immigrate), the same
// entity. Its client gets the region change and, with the frame's packet, the
// creates of its new view; its inputs not yet applied are dropped, their numbers
// acknowledged. Errors leave everything as it was.
func (s *Server) handoff(c *session, to, marker int32) error {
	from := c.reg
	target := s.regionByID(to)
	switch {
	case from == nil || from.game.Entity(c.avatar) == nil:
		return ErrNoAvatar
	case target == nil:
		return fmt.Errorf("%w: region %d", ErrNoTarget, to)
	case !hasMarker(target.game, marker):
		return fmt.Errorf("%w: marker %d in region %q", ErrNoTarget, marker, target.name)
	}
	if !target.live {
		return s.sendAway(c, target, marker) // another node runs it
	}
	t0 := s.cfg.Clock.Now()
	b, err := from.game.Emigrate(c.avatar)
	if err != nil {
		return err
	}
	id, err := target.game.Immigrate(b, marker)
	if err != nil {
		// The target refused what the source packed (which the checks above make
		// impossible): restore the avatar into the source, so that nobody is lost.
		if back := s.putBack(c, from, b); back != nil {
			s.log.Error("handoff: the avatar could not be put back", "name", c.name, "err", back)
			c.fail(pb.ErrorCode_ERROR_CODE_INTERNAL, "lost in a handoff")
		}
		return fmt.Errorf("%w: %w", errHandoffIn, err)
	}
	c.avatar = id
	c.reg = target
	c.view.SetAvatar(id)
	c.view.DropPending()
	target.repl.Attach(&c.view)
	s.travelled = append(s.travelled, uint64(id))
	if s.cfg.OnFrame != nil {
		s.handoffs = append(s.handoffs, Handoff{Entity: id, From: from.id, To: target.id, Emigrated: b})
	}
	c.replies = append(c.replies, s.regionChange(target))
	if sv, ok := s.packAvatar(c); ok {
		s.saver.queue(sv) // the region is part of the save
	}
	s.metrics.handoffs.WithLabelValues("ok").Inc()
	s.metrics.handoffSeconds.Observe((s.cfg.Clock.Now() - t0).Seconds())
	s.log.Info("travel", "name", c.name, "avatar", id, "from", from.name, "to", target.name, "marker", marker,
		"frame", target.game.Frame())
	return nil
}

func hasMarker(g *sim.Game, marker int32) bool {
	_, ok := g.MarkerPos(marker)
	return ok
}

// putBack restores an avatar packed by Emigrate into the region it left.
func (s *Server) putBack(c *session, r *region, b []byte) error {
	u, err := archive.NewUnpacker(archive.Migration, b)
	if err != nil {
		return err
	}
	var e sim.Entity
	u.TransferObject(&e)
	if err := u.Done(); err != nil {
		return err
	}
	id, err := r.game.Restore(&e)
	if err != nil {
		return err
	}
	c.avatar = id
	c.view.SetAvatar(id)
	// Restore gives the avatar a new id, and the view starts afresh: the client
	// gets what a resync answers (its avatar's id and the region), then the
	// creates of everything in view, which it would otherwise hold twice.
	c.reg = r
	r.repl.Forget(&c.view)
	s.sendRegion(c)
	return nil
}

// regionChange is the message that puts a client in r: the tables it builds the
// region from, and the frame.
func (s *Server) regionChange(r *region) *pb.NetMessageRegionChange {
	return replication.Tables{Files: s.tables, Hash: s.hash}.RegionChange(r.id, r.game.Frame(), s.nodeName())
}

// teleport is the deity's DEBUG_OP_TELEPORT: the named player's avatar goes to
// marker of region, by the same handoff as a portal (or a move within its region).
func (s *Server) teleport(m *pb.NetMessageDebugCommand) error {
	c := s.byName[m.GetPlayerName()]
	if c == nil || !c.joined || c.closed() {
		return fmt.Errorf("%w: no player %q online", ErrNoAvatar, m.GetPlayerName())
	}
	target := s.regionByID(m.GetRegionId())
	if target == nil {
		return fmt.Errorf("%w: region %d", ErrNoTarget, m.GetRegionId())
	}
	if target == c.reg {
		p, ok := target.game.MarkerPos(m.GetMarkerId())
		if !ok {
			return fmt.Errorf("%w: marker %d in region %q", ErrNoTarget, m.GetMarkerId(), target.name)
		}
		return target.game.Teleport(c.avatar, p)
	}
	return s.handoff(c, m.GetRegionId(), m.GetMarkerId())
}

// regionList is the deity's DEBUG_OP_REGIONS: every region with its players.
func (s *Server) regionList() *pb.NetMessageRegionList {
	m := &pb.NetMessageRegionList{ServerFrame: s.frameNumber()}
	for _, r := range s.regions {
		info := &pb.NetStructRegionInfo{RegionId: r.id, Name: r.name, Node: s.regionNode(r)}
		if !r.live {
			m.Regions = append(m.Regions, info) // another node's: only its node is known here
			continue
		}
		info.Entities, info.StateHash = uint32(len(r.game.Entities())), r.game.StateHash()
		for _, c := range s.sessions {
			if c.reg == r && c.joined && !c.closed() {
				info.PlayerNames = append(info.PlayerNames, c.name)
			}
		}
		m.Regions = append(m.Regions, info)
	}
	return m
}
