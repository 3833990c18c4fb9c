package replica_test

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/replica/replicatest"
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
	l := newLink(t, &replicatest.Options{Seed: 1}, nil, 0, 0)
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
	l := newLink(t, &replicatest.Options{Seed: 2}, nil, 12, 12)
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
	l := newLink(t, &replicatest.Options{Seed: 3, IgnoreClientFrame: true, NoPopulation: true}, nil, 8, 8)
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
