package gameserver

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/server/internal/store"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/sim"
)

// TestIncrementalDump: "?timestamp>T" lists only the entities that changed after
// frame T, and the lost table the ones destroyed after it.
func TestIncrementalDump(t *testing.T) {
	checkLeaks(t)
	s := startServer(t, "", func(c *Config) { c.Period = 5 * time.Millisecond; c.NoPopulation = true })
	var mover, doomed sim.EntityID
	var t0 uint64
	s.inLoop(t, func() {
		var err error
		if mover, err = s.game.Spawn(1, s.region, mgl32.Vec2{90, 136}, 0); err != nil {
			t.Fatal(err)
		}
		if doomed, err = s.game.Spawn(3, s.region, mgl32.Vec2{100, 150}, 0); err != nil {
			t.Fatal(err)
		}
	})
	s.inLoop(t, func() { t0 = s.game.Frame() })
	s.waitFrame(t, t0+1)
	s.inLoop(t, func() {
		if _, err := s.game.MoveAlongPath(mover, mgl32.Vec2{110, 140}); err != nil {
			t.Fatal(err)
		}
		if err := s.game.Destroy(doomed); err != nil {
			t.Fatal(err)
		}
	})
	var t1 uint64
	s.inLoop(t, func() { t1 = s.game.Frame() })
	s.waitFrame(t, t1+2) // the mover has moved; replication has seen the destroy
	q := "?timestamp>" + strconv.FormatUint(t0, 10)
	_, ents := get(t, s.ts.URL+"/xdump?q=entity+*"+q, "")
	_, lost := get(t, s.ts.URL+"/xdump?q=lost+*"+q, "")
	rows := func(dump string) []string {
		var ids []string
		for _, l := range strings.Split(strings.TrimSpace(dump), "\n")[1:] {
			if !strings.HasPrefix(l, "/") {
				ids = append(ids, strings.Fields(l)[0])
			}
		}
		return ids
	}
	if got := rows(ents); len(got) != 1 || got[0] != strconv.Itoa(int(mover)) {
		t.Errorf("entities changed after %d: %v; want [%d]\n%s", t0, got, mover, ents)
	}
	if got := rows(lost); len(got) != 1 || got[0] != strconv.Itoa(int(doomed)) {
		t.Errorf("lost after %d: %v; want [%d]\n%s", t0, got, doomed, lost)
	}
	if !regexp.MustCompile(`^XDUMP entity \d+\n`).MatchString(ents) {
		t.Errorf("dump header: %q", ents)
	}
}

// TestPeriodicSave: with SaveEvery, a connected player's avatar is saved without
// logging out.
func TestPeriodicSave(t *testing.T) {
	checkLeaks(t)
	s := startServer(t, "", func(c *Config) {
		c.Period = 5 * time.Millisecond
		c.NoPopulation = true
		c.SaveEvery = 20 * time.Millisecond
	})
	c := dial(t, s.url, dialOpt{})
	c.login("frank", nil)
	r := newReceived()
	deadline := time.Now().Add(wait)
	for {
		r.apply(t, c.next(wait))
		p, err := s.cfg.Store.Player(context.Background(), "frank")
		if err != nil && err != store.ErrNotFound {
			t.Fatal(err)
		}
		if err == nil && p.Saves >= 2 && len(p.Avatar) > 0 {
			if _, err := unpackAvatar(p.Avatar); err != nil {
				t.Fatalf("saved avatar does not unpack: %v", err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no periodic saves: %+v", p)
		}
	}
}

// TestSparseUpdates: with SparseUpdates the replica decodes everything, and
// remote entities get fewer updates than frames they moved in.
func TestSparseUpdates(t *testing.T) {
	checkLeaks(t)
	s := startServer(t, "", func(c *Config) {
		c.Period = 5 * time.Millisecond
		c.NoPopulation = true
		c.SparseUpdates = true
	})
	c := dial(t, s.url, dialOpt{})
	c.login("gina", nil)
	r := newReceived()
	for r.frames < 2 {
		r.apply(t, c.next(wait))
	}
	var ghost sim.EntityID
	s.inLoop(t, func() {
		at := s.game.Entity(sim.EntityID(r.loginResult.PlayerEntityId)).Pos().Add(mgl32.Vec2{5, 0})
		var err error
		if ghost, err = s.game.Spawn(2, s.region, at, 0); err != nil {
			t.Fatal(err)
		}
		if _, err := s.game.MoveAlongPath(ghost, at.Add(mgl32.Vec2{20, -20})); err != nil {
			t.Fatal(err)
		}
	})
	// Count from the ghost's create on (older frames may still be queued).
	for _, ok := r.rep.State(uint64(ghost)); !ok; _, ok = r.rep.State(uint64(ghost)) {
		r.apply(t, c.next(wait))
	}
	updates, frames, moving := 0, 0, 0
	for frames < 60 {
		s.inLoop(t, func() {
			if e := s.game.Entity(ghost); e != nil {
				if e.Mode() == sim.Idle {
					_, _ = s.game.MoveAlongPath(ghost, e.Pos().Add(mgl32.Vec2{float32(frames%7) - 3, 4 - float32(frames%9)}))
				} else {
					moving++
				}
			}
		})
		p := c.next(wait)
		r.apply(t, p)
		frames++
		for _, m := range p {
			if _, ok := m.(*pb.NetMessageLocomotionStateUpdate); ok {
				updates++
			}
		}
	}
	if moving < 20 || updates == 0 || updates > frames/3 {
		t.Errorf("%d updates in %d frames; the ghost moved in %d", updates, frames, moving)
	}
}
