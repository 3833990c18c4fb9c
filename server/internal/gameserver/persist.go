package gameserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"

	"slices"
	"sync"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/server/internal/store"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/replication"
	"github.com/twinframe/twinframe/shared/sim"
)

// packAvatar returns the save of c's avatar: the entity's Database archive.
func (s *Server) packAvatar(c *session) (store.Save, bool) {
	if c.reg == nil {
		return store.Save{}, false
	}
	e := c.reg.game.Entity(c.avatar)
	if e == nil || c.playerID == 0 {
		return store.Save{}, false
	}
	a := archive.NewPacker(archive.Database, 0)
	a.TransferObject(e)
	if err := a.Err(); err != nil {
		s.log.Error("pack avatar", "name", c.name, "err", err)
		return store.Save{}, false
	}
	return store.Save{PlayerID: c.playerID, Avatar: a.Bytes(), Frame: c.reg.game.Frame()}, true
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
// in the region it was saved in, with its position, yaw, speed and move, or a new one
// at a spawn point of the first region when there is no save or it does not
// restore. Either way the player owns it.
func (s *Server) spawnAvatar(saved []byte, player int64) (*region, sim.EntityID, error) {
	owner := ownerOf(player)
	if len(saved) > 0 {
		r, id, err := s.restoreAvatar(saved)
		if err == nil {
			return r, id, r.game.SetOwner(id, owner)
		}
		s.log.Warn("saved avatar not restored; spawning a new one", "player", player, "err", err)
	}
	r := s.regions[0]
	id, err := s.spawnAtPoints(r, int(s.nextID.Load()))
	if err != nil {
		return nil, 0, err
	}
	return r, id, r.game.SetOwner(id, owner)
}

// spawnAtPoints spawns a new avatar near r's spawn points, from the first-th (round
// robin over sessions) on: a point whose neighbourhood is full (a crowd standing at
// it) passes the avatar to the next one rather than refusing the login.
func (s *Server) spawnAtPoints(r *region, first int) (sim.EntityID, error) {
	pts := r.game.Home().SpawnPoints()
	if len(pts) == 0 {
		return r.game.Spawn(AvatarPrototype, r.id, mgl32.Vec2{}, 0)
	}
	var err error
	for k := range pts {
		var id sim.EntityID
		if id, err = r.game.Spawn(AvatarPrototype, r.id, pts[(first+k)%len(pts)], 0); err == nil {
			return id, nil
		}
	}
	return 0, err
}

// restoreAvatar restores a saved avatar into the game of the region it was saved
// in.
func (s *Server) restoreAvatar(saved []byte) (*region, sim.EntityID, error) {
	e, err := unpackAvatar(saved)
	if err != nil {
		return nil, 0, err
	}
	r := s.regionByID(e.Region())
	if r == nil {
		return nil, 0, fmt.Errorf("%w: the save's region %d is not in the world", ErrNoTarget, e.Region())
	}
	id, err := r.game.Restore(e)
	return r, id, err
}

// ownerOf returns the sim owner of a player's entities (replication.PlayerOwner:
// the store's player id, or -1 when it does not fit an int32).
func ownerOf(player int64) int32 { return replication.PlayerOwner(player) }

// saver writes avatars to the store off the frame loop. Saves are coalesced per
// player (the newest wins) and written in one transaction per batch. A batch
// that fails is kept and retried with exponential backoff for as long as it
// takes (a full disk, a locked file): the store is reported degraded meanwhile,
// and newer saves of the same players supersede the waiting ones. Only a save
// the store refuses for good (no such player, too large) is dropped, alone.
type saver struct {
	st  store.Store
	log *slog.Logger
	m   *metrics

	mu                     sync.Mutex
	minBackoff, maxBackoff time.Duration // between failed attempts (100 ms doubling to 10 s)
	flushFor               time.Duration // how long shutdown keeps retrying (10 s)
	pending                map[int64]waiting
	order                  []int64 // players in the order their first pending save came
	inflight               map[int64]waiting
	wake                   chan struct{}
	stopc                  chan struct{} // closed by stop
	stopped                bool
	degraded               error   // the last attempt's error; nil once a write succeeds
	dropped                []error // saves given up on, reported by err
}

// waiting is a save not yet committed, with when the oldest progress it holds
// was queued (a save that supersedes an unwritten one inherits its time).
type waiting struct {
	sv    store.Save
	since time.Time
	then  []func() // run once the save (or a newer one of the player) is written or dropped
}

func newSaver(st store.Store, log *slog.Logger, m *metrics) *saver {
	v := &saver{st: st, log: log, m: m, minBackoff: 100 * time.Millisecond, maxBackoff: 10 * time.Second,
		flushFor: 10 * time.Second, pending: map[int64]waiting{}, inflight: map[int64]waiting{},
		wake: make(chan struct{}, 1), stopc: make(chan struct{})}
	m.registerStore(v)
	return v
}

// queue schedules a save; it never blocks.
func (v *saver) queue(sv store.Save) { v.queueThen(sv, nil) }

// queueThen schedules a save and then, if not nil, runs on the saver's goroutine
// once that save (or a newer one of the same player) is written or dropped: a
// player's ownership in a cluster ends only after its last save is committed.
func (v *saver) queueThen(sv store.Save, then func()) {
	now := time.Now()
	v.mu.Lock()
	w := waiting{sv: sv, since: now}
	if then != nil {
		w.then = []func(){then}
	}
	if old, ok := v.pending[sv.PlayerID]; ok {
		w.since = old.since
		w.then = append(old.then, w.then...)
	} else {
		v.order = append(v.order, sv.PlayerID)
	}
	v.pending[sv.PlayerID] = w
	v.mu.Unlock()
	v.poke()
}

func (v *saver) poke() {
	select {
	case v.wake <- struct{}{}:
	default:
	}
}

// latest returns the newest save of a player not yet committed.
func (v *saver) latest(player int64) ([]byte, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if w, ok := v.pending[player]; ok {
		return w.sv.Avatar, true
	}
	if w, ok := v.inflight[player]; ok {
		return w.sv.Avatar, true
	}
	return nil, false
}

// stop queues the final saves and makes run return once everything is written,
// or once flushFor has passed with the store still failing.
func (v *saver) stop(final []store.Save) {
	for _, sv := range final {
		v.queue(sv)
	}
	v.mu.Lock()
	if !v.stopped {
		v.stopped = true
		close(v.stopc)
	}
	v.mu.Unlock()
}

// err reports the saves that were never written, nil when there are none.
func (v *saver) err() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	return errors.Join(v.dropped...)
}

// storeHealth is the saver's state for /healthz and /metrics.
type storeHealth struct {
	degraded error         // why the last write failed; nil when healthy
	waiting  int           // saves not yet committed
	oldest   time.Duration // age of the oldest progress not yet committed
}

func (v *saver) health() storeHealth {
	now := time.Now()
	v.mu.Lock()
	defer v.mu.Unlock()
	h := storeHealth{degraded: v.degraded, waiting: len(v.pending) + len(v.inflight)}
	for _, m := range []map[int64]waiting{v.pending, v.inflight} {
		for _, w := range m {
			h.oldest = max(h.oldest, now.Sub(w.since))
		}
	}
	return h
}

func (v *saver) run() {
	stopping := v.stopc
	var giveUp time.Time // once stopping: when shutdown stops retrying
	var backoff time.Duration
	for {
		select {
		case <-v.wake:
		case <-stopping:
		}
		if stopping != nil && v.isStopped() {
			stopping, giveUp = nil, time.Now().Add(v.tuning().flushFor)
		}
		for {
			batch := v.take()
			if len(batch) == 0 {
				if stopping == nil {
					return
				}
				break
			}
			err := v.write(batch)
			if err == nil {
				backoff = 0
				continue
			}
			if !giveUp.IsZero() && time.Now().After(giveUp) {
				v.abandon(err)
				return
			}
			tn := v.tuning()
			backoff = min(max(2*backoff, tn.minBackoff), tn.maxBackoff)
			if stopping == nil {
				backoff = min(backoff, time.Until(giveUp))
			}
			t := time.NewTimer(backoff)
			select {
			case <-t.C:
			case <-stopping:
				t.Stop()
				stopping, giveUp = nil, time.Now().Add(tn.flushFor)
			}
		}
	}
}

type saverTuning struct{ minBackoff, maxBackoff, flushFor time.Duration }

func (v *saver) tuning() saverTuning {
	v.mu.Lock()
	defer v.mu.Unlock()
	return saverTuning{v.minBackoff, v.maxBackoff, v.flushFor}
}

func (v *saver) isStopped() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.stopped
}

// take moves every pending save in flight, in the order they came.
func (v *saver) take() []store.Save {
	v.mu.Lock()
	defer v.mu.Unlock()
	batch := make([]store.Save, 0, len(v.order))
	for _, p := range v.order {
		w := v.pending[p]
		batch = append(batch, w.sv)
		v.inflight[p] = w
		delete(v.pending, p)
	}
	v.order = v.order[:0]
	return batch
}

// write makes one attempt at a batch. On success the saves are done; a save the
// store refuses for good is dropped and the rest go back to wait, at once; any
// other failure puts the batch back behind nothing (newer saves of the same
// players win) and marks the store degraded.
func (v *saver) write(batch []store.Save) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	err := v.st.SaveAll(ctx, batch)
	cancel()
	var then []func()
	defer func() {
		for _, fn := range then {
			fn()
		}
	}()
	v.mu.Lock()
	defer v.mu.Unlock()
	if err == nil {
		for _, w := range v.inflight {
			then = append(then, w.then...)
		}
		clear(v.inflight)
		if v.degraded != nil {
			v.log.Info("store recovered", "avatars", len(batch))
		}
		v.degraded = nil
		v.m.storeSaves.Add(float64(len(batch)))
		v.log.Debug("saved", "avatars", len(batch))
		return nil
	}
	var bad *store.SaveError
	if errors.As(err, &bad) {
		v.log.Error("save dropped", "player", bad.PlayerID, "err", err)
		v.dropped = append(v.dropped, err)
		then = v.inflight[bad.PlayerID].then
		delete(v.inflight, bad.PlayerID)
		v.requeueLocked()
		v.poke()
		return nil
	}
	v.m.storeFailures.Inc()
	if v.degraded == nil {
		v.log.Error("store degraded: save failed, retrying", "avatars", len(batch), "err", err)
	} else {
		v.log.Warn("save failed again", "avatars", len(batch), "err", err)
	}
	v.degraded = err
	v.requeueLocked()
	return err
}

// requeueLocked puts the saves in flight back in front of the pending ones,
// unless a newer save of the same player is pending.
func (v *saver) requeueLocked() {
	var order []int64
	for p, w := range v.inflight {
		if newer, ok := v.pending[p]; ok {
			newer.since = w.since
			newer.then = append(w.then, newer.then...)
			v.pending[p] = newer
			continue
		}
		v.pending[p] = w
		order = append(order, p)
	}
	clear(v.inflight)
	slices.Sort(order) // map order is random; players by id is as good as any
	v.order = append(order, v.order...)
}

// abandon gives up the saves still waiting at the end of a shutdown.
func (v *saver) abandon(err error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	n := len(v.pending) + len(v.inflight)
	v.log.Error("store: avatar saves not written at shutdown", "avatars", n, "err", err)
	v.dropped = append(v.dropped, fmt.Errorf("store: %d avatar saves not written at shutdown: %w", n, err))
}

// autosave saves the online avatars in the background of the frame loop: every
// session is visited once per SaveEvery, a few per frame (the sessions over the
// frames of a period), so no frame packs everyone; an avatar whose archive is
// unchanged since its last save is not saved again. A kill loses at most about
// SaveEvery of a player's progress, plus the time the write takes.
type autosave struct {
	ring   []*session          // joined sessions, the next one to visit first
	credit float64             // visits owed, accrued with time
	last   map[*session][]byte // archive last queued for each session
	packed int                 // avatars packed by the last step
}

// add puts a session that joined at the end of the ring: it is visited within
// SaveEvery, after the ones already there.
func (a *autosave) add(c *session) {
	if a.last == nil {
		a.last = map[*session][]byte{}
	}
	a.ring = append(a.ring, c)
}

// autosaveStep runs in the frame loop, dt after the previous step: it visits the
// sessions that dt's share of SaveEvery owes, packing each avatar and saving it if
// it changed. After a stall the visits owed are capped at one round.
func (s *Server) autosaveStep(dt time.Duration) {
	a := &s.autosave
	a.packed = 0
	if len(a.ring) == 0 {
		a.credit = 0
		return
	}
	a.credit = min(a.credit+float64(len(a.ring))*float64(dt)/float64(s.cfg.SaveEvery), float64(len(a.ring)))
	n := int(a.credit)
	a.credit -= float64(n)
	for ; n > 0 && len(a.ring) > 0; n-- {
		c := a.ring[0]
		a.ring[0] = nil
		a.ring = a.ring[1:]
		if !c.joined || c.avatar == 0 {
			delete(a.last, c) // left (saved by leave) or replaced by a newer session
			continue
		}
		a.ring = append(a.ring, c)
		sv, ok := s.packAvatar(c)
		a.packed++
		if !ok || bytes.Equal(sv.Avatar, a.last[c]) {
			continue
		}
		a.last[c] = sv.Avatar
		s.saver.queue(sv)
	}
}
