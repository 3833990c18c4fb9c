package replica_test

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/replication"
	"github.com/twinframe/twinframe/shared/replication/replicationtest"
	"github.com/twinframe/twinframe/shared/sim"
)

// randomPoint returns a point of the default world's region bounds.
func randomPoint(rng *rand.Rand, g *sim.Game) mgl32.Vec2 {
	b := g.Regions()[0].Mesh().Bounds()
	return mgl32.Vec2{
		b.Min[0] + rng.Float32()*(b.Max[0]-b.Min[0]),
		b.Min[1] + rng.Float32()*(b.Max[1]-b.Min[1]),
	}
}

// walk makes random move-tos (and some stops and fires) every second for frames.
func walk(t *testing.T, l *link, seed uint64, frames int) {
	rng := rand.New(rand.NewPCG(seed, 1))
	l.run(t, frames*ticksPerFrame, func(l *link) {
		if !l.r.Ready() || l.tick%(20*ticksPerFrame) != 1 {
			return
		}
		switch rng.IntN(6) {
		case 0:
			m, err := l.r.Stop(l.now())
			if err != nil {
				t.Fatal(err)
			}
			l.send(m)
		case 1:
			m, err := l.r.Fire(l.now(), randomPoint(rng, l.r.Game()))
			if err != nil {
				t.Fatal(err)
			}
			l.send(m)
		default:
			l.moveTo(t, randomPoint(rng, l.r.Game()))
		}
	})
}

func TestPredictionExactWithoutLatency(t *testing.T) {
	t.Parallel()
	l := newLink(t, &replicationtest.Options{Seed: 1}, nil, 0, 0)
	walk(t, l, 7, 300)
	d := l.r.Drift()
	t.Logf("compared %d, mismatched %d, corrections %d, stats %+v", d.Compared, d.Mismatched, d.Corrections, l.r.Stats())
	if d.Compared < 290 {
		t.Errorf("only %d frames compared", d.Compared)
	}
	if d.Corrections != 0 || d.Mismatched != 0 || d.MaxPosError != 0 {
		var log []replica.DriftSample
		for _, s := range l.r.DriftLog(log) {
			if s.Fields != 0 {
				t.Log(s)
			}
		}
		t.Errorf("drift without latency: %+v", d)
	}
	if err := l.r.ResyncReason(); err != nil {
		t.Error(err)
	}
	if l.r.PendingInputs() > 1 {
		t.Errorf("%d inputs pending at the end", l.r.PendingInputs())
	}
	hits := l.r.TakePowerResults(nil)
	if len(hits) != l.r.Stats().PowerResults || len(hits) == 0 || len(l.r.TakePowerResults(nil)) != 0 {
		t.Errorf("took %d power results of %d", len(hits), l.r.Stats().PowerResults)
	}
	for _, h := range hits {
		if h.Source != sim.EntityID(l.r.Player()) || h.Power != sim.PowerBolt {
			t.Errorf("power result %+v", h)
		}
	}
}

func TestPredictionWithLatency(t *testing.T) {
	t.Parallel()
	// 150 ms each way (12 ticks of 12.5 ms).
	l := newLink(t, &replicationtest.Options{Seed: 2}, nil, 12, 12)
	walk(t, l, 8, 400)
	d := l.r.Drift()
	st := l.r.Stats()
	t.Logf("rtt %v, compared %d, mismatched %d, corrections %d (max %.3f m), late inputs %d, rebases %d",
		l.r.Clock().RTT(), d.Compared, d.Mismatched, d.Corrections, d.MaxCorrection, st.LateInputs, st.Rebases)
	if rtt := l.r.Clock().RTT(); rtt < 290*1e6 || rtt > 360*1e6 {
		t.Errorf("rtt %v, want about 300 ms", rtt)
	}
	// Inputs stamped ahead by half the RTT plus a frame reach the server in time:
	// after the clock settles, prediction is exact.
	if d.Corrections > 2 {
		t.Errorf("%d corrections with a steady 300 ms RTT", d.Corrections)
	}
	if err := l.r.ResyncReason(); err != nil {
		t.Error(err)
	}
}

func TestReconciliationAfterLateInputs(t *testing.T) {
	t.Parallel()
	// The server ignores the client frame: every input applies early (as soon as it
	// arrives), so every move is mispredicted and corrected.
	l := newLink(t, &replicationtest.Options{Seed: 3, IgnoreClientFrame: true, NoPopulation: true}, nil, 8, 8)
	walk(t, l, 9, 300)
	d := l.r.Drift()
	if d.Corrections == 0 {
		t.Fatalf("no corrections although inputs apply at other frames: %+v", d)
	}
	// Once it stops, the avatar converges on the server's state exactly.
	stop, err := l.r.Stop(l.now())
	if err != nil {
		t.Fatal(err)
	}
	l.send(stop)
	l.run(t, 3*20*ticksPerFrame, nil)
	own, _ := l.r.State(l.r.Player())
	srv := l.srv.Game.Entity(l.c.Avatar)
	if dd := srv.Pos().Sub(mgl32.Vec2{own.Position[0], own.Position[1]}); dd.Len() > 0.125*1.5 {
		t.Errorf("server %v, replica's authoritative %v", srv.Pos(), own.Position)
	}
	last := l.r.DriftLog(nil)
	if s := last[len(last)-1]; s.PosError != 0 || s.Fields != 0 {
		t.Errorf("still drifting after rest: %v", s)
	}
	t.Logf("corrections %d, max %.3f m, mean %.3f m", d.Corrections, d.MaxCorrection, d.SumCorrection/float64(d.Corrections))
}

func TestInputsBeforeReady(t *testing.T) {
	t.Parallel()
	r := replica.New(nil)
	if _, err := r.MoveTo(0, mgl32.Vec2{1, 1}); !errors.Is(err, replica.ErrNotReady) {
		t.Fatalf("MoveTo before login: %v", err)
	}
	if n := r.Advance(0); n != 0 {
		t.Fatalf("Advance without avatar stepped %d", n)
	}
}

// TestPausedFrameRepeats: a paused server's packets repeat its frame with what
// happened meanwhile; the replica takes them (a create), while an unpaused packet
// for a frame it has is stale. A remote entity walks once per new frame only.
func TestPausedFrameRepeats(t *testing.T) {
	t.Parallel()
	srv, _, r := loggedIn(t)
	f := r.ServerFrame()
	create := func(p mgl32.Vec2, to mgl32.Vec2) (uint64, *pb.NetMessageEntityCreate) {
		id, err := srv.Game.Spawn(2, 0, p, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := srv.Game.MoveAlongPath(id, to); err != nil {
			t.Fatal(err)
		}
		b, err := replication.PackEntity(srv.Game.Entity(id), false)
		if err != nil {
			t.Fatal(err)
		}
		return uint64(id), &pb.NetMessageEntityCreate{ArchiveData: b}
	}
	spawn := srv.Game.Region(0).SpawnPoints()[0]
	walker, m1 := create(spawn.Add(mgl32.Vec2{2, 0}), spawn.Add(mgl32.Vec2{12, 0}))
	r.Receive(2*replica.FrameDuration, &pb.NetMessageServerFrame{Frame: f, Paused: true}, m1)
	if _, ok := r.State(walker); !ok {
		t.Fatal("a create in a paused repeat of the frame was dropped")
	}
	start, _ := r.State(walker)
	r.Receive(3*replica.FrameDuration, &pb.NetMessageServerFrame{Frame: f, Paused: true})
	if st, _ := r.State(walker); st.Position != start.Position {
		t.Errorf("a paused repeat walked the entity from %v to %v", start.Position, st.Position)
	}
	other, m2 := create(spawn.Add(mgl32.Vec2{-2, 0}), spawn.Add(mgl32.Vec2{-12, 0}))
	r.Receive(4*replica.FrameDuration, &pb.NetMessageServerFrame{Frame: f}, m2)
	if _, ok := r.State(other); ok || r.Stats().StalePackets != 1 {
		t.Errorf("an unpaused repeat was taken (stale packets %d)", r.Stats().StalePackets)
	}
	r.Receive(5*replica.FrameDuration, &pb.NetMessageServerFrame{Frame: f + 1})
	st, _ := r.State(walker)
	if d := st.Position.Sub(start.Position).Len(); d < 0.14 || d > 0.16 || st.Frame != f+1 {
		t.Errorf("one frame walked the ghost %.3f m (want 3 m/s × 50 ms) to frame %d", d, st.Frame)
	}
	if err := r.ResyncReason(); err != nil {
		t.Error(err)
	}
}
