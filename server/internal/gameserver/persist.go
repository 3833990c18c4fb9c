package gameserver

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/server/internal/store"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/sim"
)

// packAvatar returns the save of c's avatar: the entity's Database archive.
func (s *Server) packAvatar(c *session) (store.Save, bool) {
	e := s.game.Entity(c.avatar)
	if e == nil || c.playerID == 0 {
		return store.Save{}, false
	}
	a := archive.NewPacker(archive.Database, 0)
	a.TransferObject(e)
	if err := a.Err(); err != nil {
		s.log.Error("pack avatar", "name", c.name, "err", err)
		return store.Save{}, false
	}
	return store.Save{PlayerID: c.playerID, Avatar: a.Bytes(), Frame: s.game.Frame()}, true
}

// unpackAvatar reads a saved avatar (a sim.Entity Database archive).
func unpackAvatar(b []byte) (*sim.Entity, error) {
	a, err := archive.NewUnpacker(archive.Database, b)
	if err != nil {
		return nil, err
	}
	var e sim.Entity
	a.TransferObject(&e)
	if err := a.Done(); err != nil {
		return nil, err
	}
	return &e, nil
}

// spawnAvatar gives player its avatar: the saved one (a Database archive) restored
// with its position, yaw, speed and move, or a new one at a spawn point of the region
// when there is no save or it does not restore. Either way the player owns it.
func (s *Server) spawnAvatar(saved []byte, player int64) (sim.EntityID, error) {
	owner := ownerOf(player)
	if len(saved) > 0 {
		id, err := s.restoreAvatar(saved)
		if err == nil {
			return id, s.game.SetOwner(id, owner)
		}
		s.log.Warn("saved avatar not restored; spawning a new one", "player", player, "err", err)
	}
	id, err := s.spawnAtPoints(int(s.nextID.Load()))
	if err != nil {
		return 0, err
	}
	return id, s.game.SetOwner(id, owner)
}

// spawnAtPoints spawns a new avatar near the region's spawn points, from the first-th
// (round robin over sessions) on: a point whose neighbourhood is full (a crowd
// standing at it) passes the avatar to the next one rather than refusing the login.
func (s *Server) spawnAtPoints(first int) (sim.EntityID, error) {
	pts := s.game.Region(s.region).SpawnPoints()
	if len(pts) == 0 {
		return s.game.Spawn(AvatarPrototype, s.region, mgl32.Vec2{}, 0)
	}
	var err error
	for k := range pts {
		var id sim.EntityID
		if id, err = s.game.Spawn(AvatarPrototype, s.region, pts[(first+k)%len(pts)], 0); err == nil {
			return id, nil
		}
	}
	return 0, err
}

func (s *Server) restoreAvatar(saved []byte) (sim.EntityID, error) {
	e, err := unpackAvatar(saved)
	if err != nil {
		return 0, err
	}
	return s.game.Restore(e)
}

// ownerOf returns the sim owner of a player's entities: the store's player id, or -1
// when it does not fit an int32.
func ownerOf(player int64) int32 {
	if player <= 0 || player > math.MaxInt32 {
		return -1
	}
	return int32(player)
}

// saver writes avatars to the store off the frame loop. Saves are coalesced per
// player (the newest wins) and written in one transaction per batch.
type saver struct {
	st  *store.Store
	log *slog.Logger

	mu       sync.Mutex
	pending  map[int64]store.Save
	order    []int64 // players in the order their first pending save came
	inflight map[int64]store.Save
	wake     chan struct{}
	stopped  bool
	lastErr  error
}

func newSaver(st *store.Store, log *slog.Logger) *saver {
	return &saver{st: st, log: log, pending: map[int64]store.Save{}, inflight: map[int64]store.Save{},
		wake: make(chan struct{}, 1)}
}

// queue schedules a save; it never blocks.
func (v *saver) queue(sv store.Save) {
	v.mu.Lock()
	if _, ok := v.pending[sv.PlayerID]; !ok {
		v.order = append(v.order, sv.PlayerID)
	}
	v.pending[sv.PlayerID] = sv
	v.mu.Unlock()
	select {
	case v.wake <- struct{}{}:
	default:
	}
}

// latest returns the newest save of a player not yet committed.
func (v *saver) latest(player int64) ([]byte, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if sv, ok := v.pending[player]; ok {
		return sv.Avatar, true
	}
	if sv, ok := v.inflight[player]; ok {
		return sv.Avatar, true
	}
	return nil, false
}

// stop queues the final saves and makes run return once everything is written.
func (v *saver) stop(final []store.Save) {
	for _, sv := range final {
		v.queue(sv)
	}
	v.mu.Lock()
	v.stopped = true
	v.mu.Unlock()
	select {
	case v.wake <- struct{}{}:
	default:
	}
}

func (v *saver) err() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.lastErr
}

func (v *saver) run() {
	for {
		<-v.wake
		for {
			v.mu.Lock()
			if len(v.order) == 0 {
				stopped := v.stopped
				v.mu.Unlock()
				if stopped {
					return
				}
				break
			}
			batch := make([]store.Save, 0, len(v.order))
			for _, p := range v.order {
				sv := v.pending[p]
				batch = append(batch, sv)
				v.inflight[p] = sv
				delete(v.pending, p)
			}
			v.order = v.order[:0]
			v.mu.Unlock()
			err := v.write(batch)
			v.mu.Lock()
			for _, sv := range batch {
				delete(v.inflight, sv.PlayerID)
			}
			if err != nil {
				v.lastErr = err
			}
			v.mu.Unlock()
		}
	}
}

func (v *saver) write(batch []store.Save) error {
	var err error
	for attempt := range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err = v.st.SaveAll(ctx, batch)
		cancel()
		if err == nil {
			v.log.Debug("saved", "avatars", len(batch))
			return nil
		}
		v.log.Warn("save failed", "avatars", len(batch), "attempt", attempt+1, "err", err)
		if errors.Is(err, store.ErrTooLarge) || errors.Is(err, store.ErrNotFound) {
			break
		}
	}
	return err
}
