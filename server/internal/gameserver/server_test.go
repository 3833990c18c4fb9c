package gameserver

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/navi"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/replication"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
	"google.golang.org/protobuf/proto"
)

const wait = 15 * time.Second // deadline for anything a test waits on

// session counts what a client received, through a replica that decodes it.
type received struct {
	rep                         *replica.Replica
	frames                      int
	lastFrame                   uint64
	gaps                        int
	ack                         uint32
	creates, destroys, updates  int
	createsAfter, destroysAfter int // after mark
	mark                        bool
	loginResult                 *pb.NetMessageLoginResult
	regionChange                *pb.NetMessageRegionChange
}

func newReceived() *received { return &received{rep: replica.New(nil)} }

func (r *received) apply(t *testing.T, msgs []proto.Message) {
	t.Helper()
	for _, m := range msgs {
		switch m := m.(type) {
		case *pb.NetMessageServerFrame:
			if r.frames > 0 && m.Frame != r.lastFrame+1 && m.Frame != r.lastFrame {
				r.gaps++
			}
			r.frames++
			r.lastFrame, r.ack = m.Frame, m.LastInputSeq
		case *pb.NetMessageLoginResult:
			r.loginResult = m
		case *pb.NetMessageRegionChange:
			r.regionChange = m
		case *pb.NetMessageEntityCreate:
			r.creates++
			if r.mark {
				r.createsAfter++
			}
		case *pb.NetMessageEntityDestroy:
			r.destroys++
			if r.mark {
				r.destroysAfter++
			}
		case *pb.NetMessageLocomotionStateUpdate:
			r.updates++
		}
	}
	before := r.rep.Stats().Errors
	r.rep.Receive(0, msgs...)
	if r.rep.Stats().Errors != before {
		t.Fatalf("replica rejected server data: %v", r.rep.ResyncReason())
	}
}

// TestJoinMoveRestore is the server's end-to-end check: a client logs in over a real
// websocket, receives the region, creates, updates and destroys as it moves, and
// finds its avatar where it left it after a server restart.
func TestJoinMoveRestore(t *testing.T) {
	checkLeaks(t)
	fast := func(c *Config) { c.Period = 5 * time.Millisecond; c.NoPopulation = true }
	s := startServer(t, "", fast)
	c := dial(t, s.url, dialOpt{})
	c.login("alice", nil)
	r := newReceived()
	for r.frames < 3 {
		r.apply(t, c.next(wait))
	}
	if r.loginResult == nil || r.regionChange == nil {
		t.Fatal("no login result or region change before the first frames")
	}
	if r.loginResult.Role != pb.Role_ROLE_PLAYER || r.loginResult.PlayerEntityId == 0 {
		t.Fatalf("login result %v", r.loginResult)
	}
	avatar := r.loginResult.PlayerEntityId
	if !r.rep.Ready() || r.rep.Player() != avatar {
		t.Fatalf("replica not ready: player %d, avatar %d", r.rep.Player(), avatar)
	}
	if r.creates < 2 {
		t.Fatalf("%d creates in the first frames; want the avatar and the props near it", r.creates)
	}
	// Walk to the far corner of the region.
	var start, target mgl32.Vec2
	s.inLoop(t, func() {
		start = s.hub().Entity(sim.EntityID(avatar)).Pos()
		target = farthestWalkable(s.Server, start)
	})
	if target.Sub(start).Len() < 2*s.cfg.AOI.Remove {
		t.Fatalf("target %v only %.1f m from %v", target, target.Sub(start).Len(), start)
	}
	r.mark = true
	if err := c.send(&pb.NetMessageMoveTo{InputSeq: c.nextSeq(), Target: &pb.NetStructPoint3{X: target[0], Y: target[1]}}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(wait)
	var pos mgl32.Vec2
	for {
		r.apply(t, c.next(wait))
		st, ok := r.rep.State(avatar)
		if !ok {
			t.Fatal("the replica lost the avatar")
		}
		pos = mgl32.Vec2{st.Position[0], st.Position[1]}
		// AOI: nothing held beyond the remove radius (plus the AOIMove the avatar
		// may walk before its view is recomputed).
		var held []replication.Candidate
		for _, id := range r.rep.IDs(nil) {
			if hs, ok := r.rep.State(id); ok {
				held = append(held, replication.Candidate{ID: id, Pos: mgl32.Vec2{hs.Position[0], hs.Position[1]}})
			}
		}
		if leaks := s.cfg.AOI.Leaks(pos, avatar, held, s.cfg.AOIMove+replication.WireSlack, nil); len(leaks) > 0 {
			t.Fatalf("frame %d: held beyond the AOI: %v", r.lastFrame, leaks)
		}
		if st.Fields&locomotion.Moving == 0 && r.ack == c.seq && pos.Sub(target).Len() > 1 {
			// The locomotor gives up at some tight corners; walk on from there.
			if err := c.send(&pb.NetMessageMoveTo{InputSeq: c.nextSeq(), Target: &pb.NetStructPoint3{X: target[0], Y: target[1]}}); err != nil {
				t.Fatal(err)
			}
		}
		if r.ack >= 1 && r.createsAfter > 0 && r.destroysAfter > 0 && pos.Sub(start).Len() > s.cfg.AOI.Remove {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %d frames: ack %d, %d creates and %d destroys since the move, %.1f m walked",
				r.frames, r.ack, r.createsAfter, r.destroysAfter, pos.Sub(start).Len())
		}
	}
	if r.updates == 0 || r.gaps != 0 {
		t.Fatalf("%d updates, %d frame gaps", r.updates, r.gaps)
	}
	t.Logf("%d frames: %d creates, %d destroys, %d updates", r.frames, r.creates, r.destroys, r.updates)
	// Stop, leave, restart: the avatar comes back where it was.
	if err := c.send(&pb.NetMessageStop{InputSeq: c.nextSeq()}); err != nil {
		t.Fatal(err)
	}
	for r.ack != c.seq {
		r.apply(t, c.next(wait))
	}
	var left mgl32.Vec2
	s.inLoop(t, func() { left = s.hub().Entity(sim.EntityID(avatar)).Pos() })
	c.close()
	s.stop(t)

	s2 := startServer(t, s.db, fast)
	c2 := dial(t, s2.url, dialOpt{})
	c2.loginSecret("alice", r.loginResult.IssuedToken, nil)
	r2 := newReceived()
	for r2.frames < 2 {
		r2.apply(t, c2.next(wait))
	}
	st, ok := r2.rep.State(r2.loginResult.PlayerEntityId)
	if !ok {
		t.Fatal("no own avatar after the restart")
	}
	got := mgl32.Vec2{st.Position[0], st.Position[1]}
	if got.Sub(left).Len() > 0.25 {
		t.Fatalf("avatar restored at %v, left at %v (started at %v)", got, left, start)
	}
}

// farthestWalkable returns the spawn point or walkable prop-free point farthest
// from p (in the loop).
func farthestWalkable(s *Server, p mgl32.Vec2) mgl32.Vec2 {
	r := s.hub().Region(s.hubID())
	best := p
	for _, q := range r.SpawnPoints() {
		if q.Sub(p).Len() > best.Sub(p).Len() {
			best = q
		}
	}
	m := r.Mesh()
	for x := float32(4); x < 192; x += 4 {
		for y := float32(4); y < 192; y += 4 {
			q := mgl32.Vec2{x, y}
			if q.Sub(p).Len() > best.Sub(p).Len() && m.Contains(q, 1, navi.Walk) {
				best = q
			}
		}
	}
	return best
}

// TestDoAbandoned: a request whose caller gave up before the loop reached it never
// runs. A handoff's target answers no when its loop is late, and gives the
// player's record back: an arrival run afterwards would make the player exist on
// two nodes.
func TestDoAbandoned(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", nil)
	<-s.started
	unblock := make(chan struct{})
	blocked := make(chan struct{})
	go func() {
		_ = s.do(context.Background(), func() { close(blocked); <-unblock })
	}()
	<-blocked
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	var ran atomic.Bool
	if err := s.do(ctx, func() { ran.Store(true) }); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("do with a stalled loop: %v, want the deadline", err)
	}
	close(unblock)
	s.inLoop(t, func() {}) // the queue before it has run
	if ran.Load() {
		t.Error("a request given up on ran after its caller returned the error")
	}
}
