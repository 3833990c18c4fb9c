package gameserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/server/internal/store"
	"github.com/twinframe/twinframe/shared/sim"
)

// fastClock is a frame clock on which time passes only when the loop sleeps: the
// loop runs frames back to back, as fast as the machine allows, and tests pause it
// (inLoop) at any virtual moment.
type fastClock struct{ now atomic.Int64 }

func (c *fastClock) Now() time.Duration { return time.Duration(c.now.Load()) }
func (c *fastClock) Sleep(d time.Duration) {
	c.now.Add(int64(max(d, 100*time.Microsecond)))
	runtime.Gosched()
}

// setTuning sets the saver's backoff and shutdown flush time.
func (v *saver) setTuning(minB, maxB, flush time.Duration) {
	v.mu.Lock()
	v.minBackoff, v.maxBackoff, v.flushFor = minB, maxB, flush
	v.mu.Unlock()
}

// waitIdle waits until the saver holds nothing: every save queued so far is
// committed (or dropped). It may run in the loop (no testing.T calls there).
func (v *saver) waitIdle() error {
	deadline := time.Now().Add(wait)
	for v.health().waiting > 0 {
		if time.Now().After(deadline) {
			return fmt.Errorf("saves still waiting: %+v", v.health())
		}
		time.Sleep(time.Millisecond)
	}
	return nil
}

// loopSession joins a socket-free session for player name through the loop's own
// join, with a goroutine that drains what the loop sends it.
func (s *testServer) loopSession(t *testing.T, name string) *session {
	t.Helper()
	p, _, err := s.cfg.Store.Login(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &session{id: s.nextID.Add(1), srv: s.Server, ctx: ctx, cancel: cancel, out: make(chan []byte, 1<<14),
		free: make(chan []byte, 8), name: name, playerID: p.ID}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-c.out:
			case <-ctx.Done():
				return
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	s.inLoop(t, func() { s.join(c, p.Avatar) })
	if !c.joined {
		t.Fatalf("%s did not join", name)
	}
	return c
}

// TestKillLosesAtMostSaveEvery: an avatar that never stops walking is, at every
// moment, saved as it was at most SaveEvery ago (the default, 30 s of game
// time), so a kill -9 at that moment loses at most that much. What a kill
// leaves is what is committed: synchronous=FULL commits are on disk, and the
// store's own kill test checks that. Once the avatar stands still it is not
// saved again.
func TestKillLosesAtMostSaveEvery(t *testing.T) {
	checkLeaks(t)
	clk := &fastClock{}
	var walking atomic.Bool
	walking.Store(true)
	var avatar atomic.Uint64
	var goals [2]mgl32.Vec2
	positions := map[uint64]mgl32.Vec2{} // game frame → avatar position, loop-owned
	var srv atomic.Pointer[Server]
	var moveErr error // loop-owned
	s := startServer(t, "", func(c *Config) {
		c.Clock = clk
		c.NoPopulation = true
		c.FrameWork = func(uint64) {
			s := srv.Load()
			if s == nil {
				return
			}
			e := s.hub().Entity(sim.EntityID(avatar.Load()))
			if e == nil {
				return
			}
			positions[s.hub().Frame()] = e.Pos()
			if walking.Load() && e.Mode() == sim.Idle {
				goal := goals[0]
				if e.Pos().Sub(goal).Len() < 1 {
					goal = goals[1]
				}
				if _, err := s.hub().MoveAlongPath(e.ID(), goal); err != nil {
					moveErr = err
				}
			}
		}
	})
	if s.cfg.SaveEvery > 30*time.Second {
		t.Fatalf("default SaveEvery %v, want at most 30 s", s.cfg.SaveEvery)
	}
	srv.Store(s.Server)
	c := s.loopSession(t, "kim")
	var joined uint64
	s.inLoop(t, func() {
		e := s.hub().Entity(c.avatar)
		goals = [2]mgl32.Vec2{e.Pos(), farthestWalkable(s.Server, e.Pos())}
		avatar.Store(uint64(c.avatar))
		joined = s.hub().Frame()
	})
	maxLag := uint64(s.cfg.SaveEvery/s.cfg.Period) + 1
	var checked int
	var saves int64
	for virtual := 5 * time.Second; virtual <= 3*time.Minute; virtual += 7 * time.Second {
		for clk.Now() < virtual {
			s.inLoop(t, func() {})
		}
		var (
			now, at  uint64
			p        store.Player
			err      error
			atFrames bool
		)
		s.inLoop(t, func() {
			// Killed now: what survives is what is committed once the writes
			// already queued land.
			if err = s.saver.waitIdle(); err != nil {
				return
			}
			now = s.hub().Frame()
			p, err = s.cfg.Store.Player(context.Background(), "kim")
			var want mgl32.Vec2
			if want, atFrames = positions[p.SavedFrame]; atFrames && p.Avatar != nil {
				var e *sim.Entity
				if e, err = unpackAvatar(p.Avatar); err == nil && e.Pos() != want {
					err = fmt.Errorf("save of frame %d holds %v; the avatar was at %v", p.SavedFrame, e.Pos(), want)
				}
			}
			err = errors.Join(err, moveErr)
		})
		if err != nil {
			t.Fatal(err)
		}
		// A kill loses the progress since the last save, or since the login when
		// there is none yet.
		at = max(p.SavedFrame, joined)
		if now-at > maxLag {
			t.Fatalf("at %v (frame %d) the store holds frame %d of kim (%d saves): %d frames lost, more than SaveEvery %v (%d frames)",
				virtual, now, p.SavedFrame, p.Saves, now-at, s.cfg.SaveEvery, maxLag)
		}
		if p.Avatar != nil && !atFrames {
			t.Fatalf("saved frame %d is not one the avatar was seen at", p.SavedFrame)
		}
		saves = p.Saves
		checked++
	}
	// Standing still: one more save at most (the stop), then none.
	walking.Store(false)
	s.inLoop(t, func() { _ = s.hub().Stop(c.avatar) })
	for end := clk.Now() + 3*s.cfg.SaveEvery; clk.Now() < end; {
		s.inLoop(t, func() {})
	}
	if err := s.saver.waitIdle(); err != nil {
		t.Fatal(err)
	}
	p, err := s.cfg.Store.Player(context.Background(), "kim")
	if err != nil {
		t.Fatal(err)
	}
	if p.Saves > saves+2 {
		t.Errorf("an idle avatar was saved %d more times over %v", p.Saves-saves, 3*s.cfg.SaveEvery)
	}
	t.Logf("%d checks over %v of game time, %d saves while walking, %d after", checked, clk.Now(), saves, p.Saves-saves)
}

// TestAutosaveSpreadsPacking: with many sessions no frame packs more than its
// share (sessions × Period / SaveEvery, rounded up), and every session is visited.
func TestAutosaveSpreadsPacking(t *testing.T) {
	checkLeaks(t)
	clk := &fastClock{}
	var srv atomic.Pointer[Server]
	var most atomic.Int64
	s := startServer(t, "", func(c *Config) {
		c.Clock = clk
		c.NoPopulation = true
		c.SaveEvery = time.Second // 20 frames
		c.FrameWork = func(uint64) {
			if s := srv.Load(); s != nil {
				most.Store(max(most.Load(), int64(s.autosave.packed)))
			}
		}
	})
	srv.Store(s.Server)
	const n = 50
	for i := range n {
		s.loopSession(t, fmt.Sprintf("p%02d", i))
	}
	start := clk.Now()
	for clk.Now() < start+3*s.cfg.SaveEvery {
		s.inLoop(t, func() {})
	}
	share := int64((n*s.cfg.Period + s.cfg.SaveEvery - 1) / s.cfg.SaveEvery)
	if got := most.Load(); got > share+1 || got == 0 {
		t.Errorf("a frame packed %d avatars; the share is %d", got, share)
	}
	if err := s.saver.waitIdle(); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		p, err := s.cfg.Store.Player(context.Background(), fmt.Sprintf("p%02d", i))
		if err != nil || p.Saves == 0 {
			t.Errorf("p%02d never saved: %+v %v", i, p, err)
		}
	}
}

func getHealth(t *testing.T, s *testServer) (int, string) {
	t.Helper()
	resp, err := http.Get(s.ts.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func gauge(t *testing.T, s *testServer, name string) float64 {
	t.Helper()
	mfs, err := s.metrics.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			m := mf.GetMetric()[0]
			if g := m.GetGauge(); g != nil {
				return g.GetValue()
			}
			return m.GetCounter().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

// fillStore caps the store at its size and logs in filler players until it is
// full for real (SQLITE_FULL).
func fillStore(t *testing.T, st store.Store) {
	t.Helper()
	ctx := context.Background()
	if _, err := st.(*store.SQLite).LimitPages(ctx, 1); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		_, _, err := st.Login(ctx, fmt.Sprintf("filler%05d", i))
		if err == nil {
			continue
		}
		if !strings.Contains(err.Error(), "database or disk is full") {
			t.Fatalf("filling the store: %v", err)
		}
		return
	}
}

// TestStoreFullDegradesAndRecovers: with the database full for real, saves fail,
// are kept and retried, /healthz says 503 "store degraded" and the metrics say so;
// once space returns the newest save lands and health is ok again.
func TestStoreFullDegradesAndRecovers(t *testing.T) {
	checkLeaks(t)
	clk := &fastClock{}
	// The fast clock runs the loop's time far ahead of the wall's (tens of
	// thousands of frames a second), so neither the idle logout nor the periodic
	// save may act on their own here: lena, who sends no input, must stay, and her
	// first save must come after the store is full. A first save grows her row
	// (no avatar yet) and so needs a page the full store does not have; a save
	// made before the fill would make every later one an in-place update that
	// fits, and the store would never look full.
	s := startServer(t, "", func(c *Config) {
		c.Clock = clk
		c.NoPopulation = true
		c.IdleTimeout = -1
		c.SaveEvery = 1000 * time.Hour
	})
	s.saver.setTuning(time.Millisecond, 20*time.Millisecond, time.Second)
	c := s.loopSession(t, "lena")
	if code, body := getHealth(t, s); code != http.StatusOK || !strings.HasPrefix(body, "ok frame") {
		t.Fatalf("health before: %d %q", code, body)
	}
	fillStore(t, s.cfg.Store)
	var target mgl32.Vec2
	s.inLoop(t, func() {
		target = farthestWalkable(s.Server, s.hub().Entity(c.avatar).Pos())
		if _, err := s.hub().MoveAlongPath(c.avatar, target); err != nil {
			t.Fatal(err)
		}
		sv, _ := s.packAvatar(c)
		s.saver.queue(sv)
	})
	deadline := time.Now().Add(wait)
	for {
		code, body := getHealth(t, s)
		if code == http.StatusServiceUnavailable && strings.HasPrefix(body, "store degraded: ") {
			if !strings.Contains(body, "database or disk is full") {
				t.Errorf("degraded health does not say why: %q", body)
			}
			t.Logf("health: %d %q", code, body)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("health while the store is full: %d %q", code, body)
		}
		s.inLoop(t, func() {})
	}
	for gauge(t, s, "twinframe_store_save_failures_total") < 3 {
		if time.Now().After(deadline) {
			t.Fatal("saves not retried")
		}
		time.Sleep(time.Millisecond)
	}
	if d, w := gauge(t, s, "twinframe_store_degraded"), gauge(t, s, "twinframe_store_unsaved_avatars"); d != 1 || w != 1 {
		t.Errorf("metrics while full: degraded %v, unsaved %v", d, w)
	}
	if age := gauge(t, s, "twinframe_store_oldest_unsaved_seconds"); age <= 0 {
		t.Errorf("oldest unsaved age %v while full", age)
	}
	// The walk goes on; the last state the loop queued must be the one that lands.
	var want []byte
	s.inLoop(t, func() {
		sv, _ := s.packAvatar(c)
		s.saver.queue(sv)
		want = sv.Avatar
		_ = s.hub().Stop(c.avatar)
	})
	if _, err := s.cfg.Store.(*store.SQLite).LimitPages(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	if err := s.saver.waitIdle(); err != nil {
		t.Fatal(err)
	}
	for {
		code, body := getHealth(t, s)
		if code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("health after space returned: %d %q", code, body)
		}
		time.Sleep(time.Millisecond)
	}
	if d := gauge(t, s, "twinframe_store_degraded"); d != 0 {
		t.Errorf("degraded gauge %v after recovery", d)
	}
	p, err := s.cfg.Store.Player(context.Background(), "lena")
	if err != nil || string(p.Avatar) != string(want) {
		t.Fatalf("after recovery the store holds another save of lena (%d saves, %v)", p.Saves, err)
	}
}

// TestShutdownReportsUnwrittenSaves: a store that stays full makes Run keep
// trying for its flush time, then return an error that counts the saves lost.
func TestShutdownReportsUnwrittenSaves(t *testing.T) {
	checkLeaks(t)
	s := startServer(t, "", func(c *Config) { c.Period = 5 * time.Millisecond; c.NoPopulation = true })
	s.saver.setTuning(time.Millisecond, 10*time.Millisecond, 200*time.Millisecond)
	c := s.loopSession(t, "mia")
	fillStore(t, s.cfg.Store)
	s.inLoop(t, func() {
		if _, err := s.hub().MoveAlongPath(c.avatar, farthestWalkable(s.Server, s.hub().Entity(c.avatar).Pos())); err != nil {
			t.Fatal(err)
		}
	})
	s.cancel()
	s.cancel = nil
	var err error
	select {
	case err = <-s.ran:
	case <-time.After(wait):
		t.Fatal("Run did not return")
	}
	s.ts.Close()
	if err == nil || !strings.Contains(err.Error(), "1 avatar saves not written at shutdown") ||
		!strings.Contains(err.Error(), "database or disk is full") || errors.Is(err, context.Canceled) {
		t.Fatalf("Run after a shutdown with the store full: %v", err)
	}
	t.Logf("Run: %v", err)
}
