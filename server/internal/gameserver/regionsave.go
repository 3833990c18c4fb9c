package gameserver

import (
	"context"
	"errors"
	"time"

	"github.com/twinframe/twinframe/server/internal/cluster"
	"github.com/twinframe/twinframe/server/internal/store"
	"github.com/twinframe/twinframe/shared/sim"
)

// Region saves (docs/ARCHITECTURE.md §10). In a cluster a region outlives the node
// that runs it: its state is saved to the shared store every RegionSaveEvery and
// when the node leaves, each save fenced by the lease revision the node holds, and a
// node that gains a region restores it from its last save. The saves leave the
// players' entities out (their avatars are saved with the players and come back
// when they log in again), so a region restored after a crash holds no player twice.

// regionSaver is the loop's schedule of region saves.
type regionSaver struct {
	next  int           // index in live of the next region to save
	since time.Duration // loop time since the last save
}

// regionSaveStep runs in the loop after each frame: one live region is saved
// every RegionSaveEvery / len(live), so a node's saves spread over the period.
func (s *Server) regionSaveStep(dt time.Duration) {
	if s.cl == nil || len(s.live) == 0 {
		return
	}
	rs := &s.regionSaves
	rs.since += dt
	if rs.since < s.cl.cfg.RegionSaveEvery/time.Duration(len(s.live)) {
		return
	}
	rs.since = 0
	rs.next %= len(s.live)
	r := s.live[rs.next]
	rs.next++
	sv, ok := s.packRegion(r)
	if !ok {
		return
	}
	go s.writeRegion(sv)
}

// packRegion snapshots r with the fence of this node's lease on it; false when
// the node no longer holds the lease or the snapshot fails.
func (s *Server) packRegion(r *region) (store.RegionSave, bool) {
	fence, ok := s.cl.node.Owns(r.name)
	if !ok {
		return store.RegionSave{}, false
	}
	b, err := r.game.Snapshot()
	if err != nil {
		s.log.Error("region snapshot", "region", r.name, "err", err)
		return store.RegionSave{}, false
	}
	return store.RegionSave{Name: r.name, State: b, Frame: r.game.Frame(), Fence: fence}, true
}

// writeRegion stores a region save, off the loop.
func (s *Server) writeRegion(sv store.RegionSave) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := s.cfg.Store.SaveRegion(ctx, sv)
	switch {
	case err == nil:
		s.metrics.regionSaves.WithLabelValues("ok").Inc()
	case errors.Is(err, store.ErrFenced):
		s.metrics.regionSaves.WithLabelValues("fenced").Inc()
		s.log.Warn("region save fenced: another node holds it now", "region", sv.Name, "fence", sv.Fence)
	default:
		s.metrics.regionSaves.WithLabelValues("failed").Inc()
		s.log.Warn("region save failed", "region", sv.Name, "err", err)
	}
}

// saveRegions saves every live region at once: the node is leaving, and the next
// node continues them from exactly here. The loop has stopped.
func (s *Server) saveRegions() {
	for _, r := range s.live {
		if sv, ok := s.packRegion(r); ok {
			s.writeRegion(sv)
		}
	}
}

// gainRegion loads the last save of a region this node now holds, off the loop
// (the store may be slow), then hands it to the loop to run.
func (s *Server) gainRegion(e cluster.Event) {
	var sv store.RegionSave
	for attempt := 0; ; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		var err error
		sv, err = s.cfg.Store.Region(ctx, e.Region)
		cancel()
		if err == nil || errors.Is(err, store.ErrNoRegion) {
			break
		}
		// Running it from scratch would throw its last save away: wait for the
		// store, as long as the lease is this node's.
		s.log.Warn("region save not loaded; retrying", "region", e.Region, "err", err)
		if _, ok := s.cl.node.Owns(e.Region); !ok {
			return
		}
		select {
		case <-time.After(min(time.Duration(attempt+1)*200*time.Millisecond, 2*time.Second)):
		case <-s.done:
			return
		}
	}
	s.toLoop(func() { s.runRegion(e, sv) })
}

// runRegion runs in the loop: the region's game becomes its save (when there is
// one, and the lease is still this node's), without the players' entities, and
// this server steps it from now on.
func (s *Server) runRegion(e cluster.Event, sv store.RegionSave) {
	r := s.regionByName(e.Region)
	if r == nil || r.live {
		return
	}
	if _, ok := s.cl.node.Owns(r.name); !ok {
		return
	}
	if len(sv.State) > 0 {
		g, err := sim.Restore(s.world, sv.State, &sim.Options{Region: r.id, Seed: sim.RegionSeed(s.cfg.Seed, r.id), NoPopulation: s.cfg.NoPopulation})
		if err == nil {
			err = dropPlayers(g)
		}
		if err == nil {
			repl, rerr := s.newReplicator(g)
			if err = rerr; err == nil {
				r.game, r.repl = g, repl
			}
		}
		if err != nil {
			s.log.Error("region save not restored; running it as it is here", "region", r.name, "frame", sv.Frame, "err", err)
		} else {
			s.log.Info("region restored", "region", r.name, "frame", sv.Frame, "fence", sv.Fence, "saves", sv.Saves)
		}
	}
	// This run continues an earlier one (from its save, or from scratch if it left
	// none): ids that run handed out after its save may live on in travellers.
	// Skip them, and save at once, so that a run after this one skips past this
	// run's ids too.
	if err := r.game.SkipIDs(); err != nil {
		s.log.Error("region run without skipping its earlier run's ids: a traveller may meet its id twice", "region", r.name, "err", err)
	}
	if sv, ok := s.packRegion(r); ok {
		go s.writeRegion(sv)
	}
	r.live = true
	s.setLive()
	s.log.Info("region gained", "region", r.name, "node", s.nodeName(), "frame", r.game.Frame())
}

// dropPlayers removes the entities players own from a restored game.
func dropPlayers(g *sim.Game) error {
	var ids []sim.EntityID
	for _, e := range g.Entities() {
		if e.Owner() > 0 {
			ids = append(ids, e.ID())
		}
	}
	for _, id := range ids {
		if err := g.Destroy(id); err != nil {
			return err
		}
	}
	return nil
}
