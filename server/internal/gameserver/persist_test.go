package gameserver

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
)

// TestRestoredAvatarWalksOn: a player leaves in the middle of a walk; after a restart on
// the same store, logging in again gives back an avatar the player owns, where the save
// put it, facing the same way, still walking to the same goal, and it gets there.
func TestRestoredAvatarWalksOn(t *testing.T) {
	checkLeaks(t)
	fast := func(c *Config) { c.Period = 5 * time.Millisecond; c.NoPopulation = true }
	s := startServer(t, "", fast)
	c := dial(t, s.url, dialOpt{})
	c.login("carol", nil)
	r := newReceived()
	for r.frames < 2 {
		r.apply(t, c.next(wait))
	}
	avatar := sim.EntityID(r.loginResult.PlayerEntityId)
	var player int64
	var start, target mgl32.Vec2
	s.inLoop(t, func() {
		player = s.byName["carol"].playerID
		e := s.hub().Entity(avatar)
		start = e.Pos()
		target = farthestWalkable(s.Server, start)
		if e.Owner() != ownerOf(player) || e.Owner() < 0 {
			t.Errorf("new avatar owned by %d, want player %d", e.Owner(), player)
		}
	})
	if err := c.send(&pb.NetMessageMoveTo{InputSeq: c.nextSeq(), Target: &pb.NetStructPoint3{X: target[0], Y: target[1]}}); err != nil {
		t.Fatal(err)
	}
	// Leave after a few metres of the walk.
	for {
		r.apply(t, c.next(wait))
		st, ok := r.rep.State(uint64(avatar))
		if ok && st.Fields&locomotion.Moving != 0 && (mgl32.Vec2{st.Position[0], st.Position[1]}).Sub(start).Len() > 3 {
			break
		}
	}
	c.close()
	s.stop(t)
	p, err := s.cfg.Store.Player(context.Background(), "carol")
	if err != nil {
		t.Fatal(err)
	}
	saved, err := unpackAvatar(p.Avatar)
	if err != nil {
		t.Fatal(err)
	}
	savedPath, savedNext := saved.Path()
	if saved.Mode() == sim.Idle || len(savedPath) < 2 {
		t.Fatalf("the save holds no walk: %v, path %v", saved.Mode(), savedPath)
	}
	goal := savedPath[len(savedPath)-1]

	s2 := startServer(t, s.db, fast)
	c2 := dial(t, s2.url, dialOpt{})
	c2.loginSecret("carol", r.loginResult.IssuedToken, nil)
	r2 := newReceived()
	for r2.frames < 1 {
		r2.apply(t, c2.next(wait))
	}
	restored := sim.EntityID(r2.loginResult.PlayerEntityId)
	var first mgl32.Vec2
	s2.inLoop(t, func() {
		e := s2.hub().Entity(restored)
		if e == nil {
			t.Fatal("no restored avatar in the game")
		}
		path, next := e.Path()
		// Frames ran between the login and this check: once the avatar walked on it
		// faces its motion (round an arc, or along the next leg), not the saved yaw.
		walked := e.Pos() != saved.Pos()
		if e.Owner() != ownerOf(player) || e.Mode() != saved.Mode() || !walked && math.Abs(float64(e.Yaw()-saved.Yaw())) > 1e-3 ||
			e.Speed() != saved.Speed() || next < savedNext || !slices.Equal(path[savedNext:], savedPath[savedNext:]) {
			t.Errorf("restored: owner %d, %v, yaw %v, speed %v, corner %d of %v; saved: player %d, %v, yaw %v, speed %v, corner %d of %v",
				e.Owner(), e.Mode(), e.Yaw(), e.Speed(), next, path, player, saved.Mode(), saved.Yaw(), saved.Speed(), savedNext, savedPath)
		}
		// Frames ran between the login and this check: the avatar walked on (facing its
		// motion, which rounds a little differently from the saved yaw).
		first = e.Pos()
		if d := first.Sub(saved.Pos()).Len(); d > float32(s2.hub().Frame())*e.Speed()*sim.FrameSeconds+0.01 {
			t.Errorf("restored at %v, %.2f m from the saved %v", first, d, saved.Pos())
		}
	})
	// The owner's client sees it moving, and it arrives at the saved goal.
	deadline := time.Now().Add(wait)
	for {
		r2.apply(t, c2.next(wait))
		st, ok := r2.rep.State(uint64(restored))
		if !ok {
			t.Fatal("the client holds no restored avatar")
		}
		pos := mgl32.Vec2{st.Position[0], st.Position[1]}
		if st.Fields&locomotion.Moving == 0 {
			if d := pos.Sub(goal).Len(); d > 0.05 {
				t.Fatalf("restored avatar stopped at %v, %.2f m from the saved goal %v", pos, d, goal)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("restored avatar still walking at %v (goal %v)", pos, goal)
		}
	}
}
