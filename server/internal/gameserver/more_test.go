package gameserver

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/server/internal/store"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/replication"
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
		if mover, err = s.hub().Spawn(1, s.hubID(), mgl32.Vec2{90, 136}, 0); err != nil {
			t.Fatal(err)
		}
		if doomed, err = s.hub().Spawn(3, s.hubID(), mgl32.Vec2{100, 150}, 0); err != nil {
			t.Fatal(err)
		}
	})
	s.inLoop(t, func() { t0 = s.hub().Frame() })
	s.waitFrame(t, t0+1)
	s.inLoop(t, func() {
		if _, err := s.hub().MoveAlongPath(mover, mgl32.Vec2{110, 140}); err != nil {
			t.Fatal(err)
		}
		if err := s.hub().Destroy(doomed); err != nil {
			t.Fatal(err)
		}
	})
	var t1 uint64
	s.inLoop(t, func() { t1 = s.hub().Frame() })
	s.waitFrame(t, t1+2) // the mover has moved; replication has seen the destroy
	q := "?timestamp>" + strconv.FormatUint(t0, 10)
	_, ents := get(t, s.ts.URL+"/xdump?q=entity+*"+q, testToken)
	_, lost := get(t, s.ts.URL+"/xdump?q=lost+*"+q, testToken)
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
		if err == nil && p.Saves >= 1 && len(p.Avatar) > 0 {
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

// TestSparseUpdates: by default the replica decodes everything, and remote
// entities get fewer updates than frames they moved in.
func TestSparseUpdates(t *testing.T) {
	checkLeaks(t)
	s := startServer(t, "", func(c *Config) {
		c.Period = 5 * time.Millisecond
		c.NoPopulation = true
	})
	c := dial(t, s.url, dialOpt{})
	c.login("gina", nil)
	r := newReceived()
	for r.frames < 2 {
		r.apply(t, c.next(wait))
	}
	var ghost sim.EntityID
	s.inLoop(t, func() {
		at := s.hub().Entity(sim.EntityID(r.loginResult.PlayerEntityId)).Pos().Add(mgl32.Vec2{5, 0})
		var err error
		if ghost, err = s.hub().Spawn(2, s.hubID(), at, 0); err != nil {
			t.Fatal(err)
		}
		if _, err := s.hub().MoveAlongPath(ghost, at.Add(mgl32.Vec2{20, -20})); err != nil {
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
			if e := s.hub().Entity(ghost); e != nil {
				if e.Mode() == sim.Idle {
					_, _ = s.hub().MoveAlongPath(ghost, e.Pos().Add(mgl32.Vec2{float32(frames%7) - 3, 4 - float32(frames%9)}))
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

// TestRemoteEntitiesWalk: frame by frame (the server paused and stepped one frame
// at a time), every remote entity the replica holds is within
// replication.WalkTolerance of the server's entity, while a crowd walks through itself
// (blocking wanderers bump and slide) and a ghost walks a long path; and the crowd
// costs far fewer updates than frames moved.
func TestRemoteEntitiesWalk(t *testing.T) {
	checkLeaks(t)
	s := startServer(t, "", func(c *Config) { c.Period = 5 * time.Millisecond; c.NoPopulation = true })
	c := dial(t, s.url, dialOpt{})
	c.login("hal", nil)
	r := newReceived()
	for r.frames < 2 {
		r.apply(t, c.next(wait))
	}
	avatar := sim.EntityID(r.loginResult.PlayerEntityId)
	var walkers []sim.EntityID
	s.inLoop(t, func() {
		s.paused = true
		at := s.hub().Entity(avatar).Pos()
		// Two files of wanderers walking into each other, and a ghost crossing them.
		for i := range 4 {
			y := float32(i)*1.5 - 2
			for _, side := range []float32{-1, 1} {
				id, err := s.hub().Spawn(1, s.hubID(), at.Add(mgl32.Vec2{8 * side, y}), 0)
				if err != nil {
					continue
				}
				if _, err := s.hub().MoveAlongPath(id, at.Add(mgl32.Vec2{-14 * side, y + side})); err == nil {
					walkers = append(walkers, id)
				}
			}
		}
		if id, err := s.hub().Spawn(2, s.hubID(), at.Add(mgl32.Vec2{0, -12}), 0); err == nil {
			if _, err := s.hub().MoveAlongPath(id, at.Add(mgl32.Vec2{3, 25})); err == nil {
				walkers = append(walkers, id)
			}
		}
	})
	if len(walkers) < 6 {
		t.Fatalf("only %d walkers", len(walkers))
	}
	var worst float32
	updates, moved := 0, 0
	for range 150 {
		var target uint64
		s.inLoop(t, func() { s.stepLeft, target = 1, s.hub().Frame()+1 })
		for r.lastFrame < target {
			p := c.next(wait)
			r.apply(t, p)
			for _, m := range p {
				if _, ok := m.(*pb.NetMessageLocomotionStateUpdate); ok {
					updates++
				}
			}
		}
		var bad string // found in the loop; reported here, on the test's goroutine
		s.inLoop(t, func() {
			if f := s.hub().Frame(); f != target {
				bad = fmt.Sprintf("the paused game is at frame %d, want %d", f, target)
				return
			}
			for _, id := range walkers {
				e := s.hub().Entity(id)
				if e == nil {
					continue
				}
				st, ok := r.rep.State(uint64(id))
				if !ok {
					bad = fmt.Sprintf("frame %d: the replica does not hold walker %d", target, id)
					return
				}
				if e.Mode() != sim.Idle {
					moved++
				}
				d := mgl32.Vec2{st.Position[0], st.Position[1]}.Sub(e.Pos()).Len()
				worst = max(worst, d)
				if d > replication.WalkTolerance+1e-3 {
					bad = fmt.Sprintf("frame %d: walker %d held at %v, %.3f m from the server's %v", target, id, st.Position, d, e.Pos())
					return
				}
			}
		})
		if bad != "" {
			t.Fatal(bad)
		}
	}
	t.Logf("%d locomotion updates for %d walker-frames of motion; worst distance %.3f m", updates, moved, worst)
	if moved < 300 || updates*4 > moved {
		t.Errorf("%d updates for %d walker-frames of motion", updates, moved)
	}
}

// localClient is a socket-free session and its replica: packets go straight from
// the session's queue into the replica.
type localClient struct {
	c   *session
	rep *replica.Replica
	rd  protocol.Reader
}

func joinLocal(t *testing.T, s *Server, name string) *localClient {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	lc := &localClient{c: &session{id: s.nextID.Add(1), srv: s, ctx: ctx, cancel: cancel, out: make(chan []byte, 4), name: name},
		rep: replica.New(nil)}
	s.join(lc.c, nil)
	lc.receive(t)
	return lc
}

func (lc *localClient) receive(t *testing.T) {
	t.Helper()
	for {
		select {
		case b := <-lc.c.out:
			_, msgs, err := lc.rd.ReadAll(b)
			if err != nil {
				t.Fatal(err)
			}
			lc.rep.Receive(0, msgs...)
			if err := lc.rep.ResyncReason(); err != nil {
				t.Fatal(err)
			}
		default:
			return
		}
	}
}

// check fails the test if the replica holds an entity other than its avatar
// farther than replication.WalkTolerance from the server's; it returns how many it
// checked, and how many of them are ghosts.
func (lc *localClient) check(t *testing.T, s *Server) (n, ghosts int) {
	t.Helper()
	for _, id := range lc.rep.IDs(nil) {
		e := s.hub().Entity(sim.EntityID(id))
		if e == nil || sim.EntityID(id) == lc.c.avatar {
			continue
		}
		n++
		if e.Prototype() == 2 {
			ghosts++
		}
		st, _ := lc.rep.State(id)
		if d := st.Position.Vec2().Sub(e.Pos()).Len(); d > replication.WalkTolerance+1e-3 {
			t.Fatalf("frame %d: %s holds %d (prototype %d) at %v, %.3f m from the server's %v",
				s.hub().Frame(), lc.c.name, id, e.Prototype(), st.Position, d, e.Pos())
		}
	}
	return n, ghosts
}

// blockedWanderer places a dummy 6 m from home and a wanderer 2 m from home walking
// straight through it, in the first of four directions where both spawns find room
// (the test's walkers may stand in the way), and returns their ids.
func blockedWanderer(t *testing.T, s *Server, home mgl32.Vec2) []sim.EntityID {
	t.Helper()
	for _, d := range []mgl32.Vec2{{0, 1}, {1, 0}, {0, -1}, {-1, 0}} {
		dummy, err := s.hub().Spawn(3, s.hubID(), home.Add(d.Mul(6)), 0)
		if err != nil {
			continue
		}
		w, err := s.hub().Spawn(1, s.hubID(), home.Add(d.Mul(2)), 0)
		if err != nil {
			must(t, s.hub().Destroy(dummy))
			continue
		}
		must(t, s.hub().MoveTo(w, home.Add(d.Mul(10))))
		return []sim.EntityID{dummy, w}
	}
	t.Fatalf("no room round %v for a dummy and a wanderer", home)
	return nil
}

// teleportNear teleports id 3 m from home, in the first of four directions with room.
func teleportNear(t *testing.T, s *Server, id sim.EntityID, home mgl32.Vec2) {
	t.Helper()
	var err error
	for _, d := range []mgl32.Vec2{{3, 0}, {-3, 0}, {0, 3}, {0, -3}} {
		if err = s.hub().Teleport(id, home.Add(d)); err == nil {
			return
		}
	}
	t.Fatal(err)
}

// TestWalkedCopiesOfEveryClient: socket-free, frame by frame. Walking entities
// leave one client's view (its avatar teleports away), walk on while nobody holds
// them (the server keeps no walked copy then) and come back into view, while a
// second client joins late (its creates come long after the first's, while an
// entity is blocked): every
// client holds every entity within replication.WalkTolerance of the server's entity in
// every frame.
func TestWalkedCopiesOfEveryClient(t *testing.T) {
	s := benchServer(t, nil)
	a := joinLocal(t, s, "ivy")
	home := s.hub().Entity(a.c.avatar).Pos()
	// Places to go far away to: the spawn points and the corners of the region.
	reg := s.hub().Region(s.hubID())
	bb := reg.Mesh().Bounds()
	far := append(slices.Clone(reg.SpawnPoints()), bb.Min.Add(mgl32.Vec2{5, 5}), bb.Max.Sub(mgl32.Vec2{5, 5}),
		mgl32.Vec2{bb.Min[0] + 5, bb.Max[1] - 5}, mgl32.Vec2{bb.Max[0] - 5, bb.Min[1] + 5})
	goAway := func() {
		for _, p := range far {
			if p.Sub(home).Len() > s.cfg.AOI.Remove+30 && s.hub().Teleport(a.c.avatar, p) == nil {
				return
			}
		}
		t.Fatalf("nowhere to go far from %v", home)
	}
	// Ghosts walk through each other; blocking wanderers bump and stall.
	keepWalking := walkers(t, s.hub(), s.hubID(), home, 2, 12, 5)
	keepBumping := walkers(t, s.hub(), s.hubID(), home, 1, 16, 6)
	clients := []*localClient{a}
	held, checked := 0, 0
	var bumped []sim.EntityID
	for frame := range 300 {
		switch frame {
		case 50:
			// A wanderer walks straight into a dummy and stays blocked for a while
			// (in the first direction from home where both have room).
			bumped = blockedWanderer(t, s, home)
		case 80:
			if e := s.hub().Entity(bumped[1]); e == nil || e.Pos().Sub(home).Len() > 7 || e.Mode() == sim.Idle {
				t.Fatalf("the wanderer is not blocked by the dummy: %v", e)
			}
			jay := joinLocal(t, s, "jay")
			teleportNear(t, s, jay.c.avatar, home)
			clients = append(clients, jay)
		case 100:
			goAway()
		case 180:
			must(t, s.hub().Teleport(a.c.avatar, home))
		}
		keepWalking()
		keepBumping()
		must(t, s.hub().Step())
		s.prepareRegions(true, s.cfg.Clock.Now())
		s.replicate()
		for _, lc := range clients {
			lc.receive(t)
			n, ghosts := lc.check(t, s)
			checked += n
			if lc == a {
				switch frame {
				case 99, 299:
					held += ghosts
				case 179:
					if ghosts > 0 {
						t.Errorf("frame %d: ivy holds %d ghosts far away", s.hub().Frame(), ghosts)
					}
				}
			}
		}
	}
	if held < 20 || checked < 3000 {
		t.Errorf("ivy held %d ghosts before leaving and after coming back; %d checks", held, checked)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestNewHolderJoinsTheWalkedCopy: a client that starts holding an entity other
// clients already hold, while it walks, gets the walked copy in its create at the
// wire's precision; from the next frame on its copy is the other holders' bit for
// bit (before, it kept the create's rounding until the next correction, and its
// error could pass the walk tolerance while the server's own copy was within it).
func TestNewHolderJoinsTheWalkedCopy(t *testing.T) {
	s := benchServer(t, nil)
	ivy := joinLocal(t, s, "ivy")
	home := s.hub().Entity(ivy.c.avatar).Pos()
	keepWalking := walkers(t, s.hub(), s.hubID(), home, 2, 12, 5) // ghosts: no collision corrects them
	var jay *localClient
	since := map[uint64]uint64{} // the frame jay's current hold of each id began
	compared := 0
	for frame := range 120 {
		if frame == 30 {
			jay = joinLocal(t, s, "jay")
			teleportNear(t, s, jay.c.avatar, home)
		}
		keepWalking()
		must(t, s.hub().Step())
		s.prepareRegions(true, s.cfg.Clock.Now())
		s.replicate()
		ivy.receive(t)
		if jay == nil {
			continue
		}
		jay.receive(t)
		f := s.hub().Frame()
		held := jay.rep.IDs(nil)
		for id := range since {
			if !slices.Contains(held, id) {
				delete(since, id)
			}
		}
		for _, id := range held {
			if _, ok := since[id]; !ok {
				since[id] = f
			}
			if f == since[id] || id == uint64(ivy.c.avatar) || id == uint64(jay.c.avatar) {
				continue // created this frame, or an avatar (predicted by its owner)
			}
			want, ok := ivy.rep.State(id)
			if !ok {
				continue
			}
			got, _ := jay.rep.State(id)
			compared++
			if got.Position != want.Position || got.Yaw != want.Yaw || got.Speed != want.Speed ||
				got.Goal != want.Goal || got.Fields != want.Fields || !slices.Equal(got.Path, want.Path) {
				t.Fatalf("frame %d (jay holds %d since %d): jay's copy %+v, ivy's %+v", f, id, since[id], got, want)
			}
		}
	}
	if compared < 200 {
		t.Fatalf("only %d comparisons of copies both clients hold", compared)
	}
}
