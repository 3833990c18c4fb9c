package replica_test

import (
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/replication/replicationtest"
)

// stall holds the packets of one direction for n ticks starting now.
func (l *link) stallDown(n int64) {
	for i := range l.toCli {
		l.toCli[i].at = max(l.toCli[i].at, l.tick+n)
	}
	l.down += n
}

// A 1 s stall of the server's packets: the client keeps predicting (up to its
// history), its inputs still reach the server in time, and when the late packets
// arrive all at once the prediction holds: no corrections.
func TestLatePacketsAfterStall(t *testing.T) {
	t.Parallel()
	l := newLink(t, &replicationtest.Options{Seed: 4, NoPopulation: true}, nil, 4, 4)
	walk(t, l, 10, 100)
	before := l.r.Drift()
	l.stallDown(20 * ticksPerFrame)
	walk(t, l, 11, 20)
	l.down -= 20 * ticksPerFrame
	walk(t, l, 12, 200)
	d := l.r.Drift()
	st := l.r.Stats()
	t.Logf("before stall %d corrections; after %d; compared %d; rebases %d", before.Corrections, d.Corrections, d.Compared, st.Rebases)
	if d.Corrections != before.Corrections {
		t.Errorf("late packets caused %d corrections", d.Corrections-before.Corrections)
	}
	if err := l.r.ResyncReason(); err != nil {
		t.Error(err)
	}
}

// A stall of the client's inputs: they reach the server after the frames they are
// stamped with, the server applies them late, the client corrects, and once the
// avatar rests the prediction is exact again.
func TestLateInputs(t *testing.T) {
	t.Parallel()
	l := newLink(t, &replicationtest.Options{Seed: 5, NoPopulation: true}, nil, 4, 4)
	l.run(t, 20*ticksPerFrame, nil)
	l.up = 20 * ticksPerFrame // inputs now arrive 1 s late
	l.moveTo(t, l.srv.Game.Region(0).SpawnPoints()[2])
	l.run(t, 10*ticksPerFrame, nil)
	l.up = 4
	l.run(t, 16*20*ticksPerFrame, nil) // 16 s: the 80 m walk ends and the avatar rests
	d := l.r.Drift()
	st := l.r.Stats()
	if d.Corrections == 0 || st.LateInputs != 1 {
		t.Errorf("corrections %d, late inputs %d; want some and 1", d.Corrections, st.LateInputs)
	}
	log := l.r.DriftLog(nil)
	if s := log[len(log)-1]; s.Fields != 0 {
		t.Errorf("still drifting: %v", s)
	}
	for _, s := range log {
		if s.Corrected {
			t.Logf("%v", s)
			break
		}
	}
	if since := d.SinceCorrection(l.now()); since <= 0 {
		t.Errorf("time since correction %v", since)
	}
	if l.r.PendingInputs() != 0 {
		t.Errorf("%d inputs pending", l.r.PendingInputs())
	}
	_ = replica.FieldPath
}

// Corrections are smoothed in what is drawn: the own avatar's drawn position never
// jumps by more than a fraction of the correction, while the simulated state takes
// the whole correction at once.
func TestSmoothedCorrections(t *testing.T) {
	t.Parallel()
	l := newLink(t, &replicationtest.Options{Seed: 6, IgnoreClientFrame: true, NoPopulation: true}, nil, 8, 8)
	var prev mgl32.Vec2
	var have bool
	var maxJump float32
	rng := rand.New(rand.NewPCG(6, 6))
	l.run(t, 300*ticksPerFrame, func(l *link) {
		if l.r.Ready() && l.tick%(25*ticksPerFrame) == 3 {
			l.moveTo(t, randomPoint(rng, l.r.Game()))
		}
		for _, v := range l.r.View(l.now(), nil) {
			if !v.Own {
				continue
			}
			if have {
				maxJump = max(maxJump, v.Pos.Sub(prev).Len())
			}
			prev, have = v.Pos, true
		}
	})
	d := l.r.Drift()
	t.Logf("corrections %d, largest %.3f m; largest drawn step %.3f m", d.Corrections, d.MaxCorrection, maxJump)
	if d.MaxCorrection < 0.5 {
		t.Fatalf("largest correction only %.3f m: nothing to smooth", d.MaxCorrection)
	}
	// A tick walks 7.5 cm at 6 m/s; a correction shows a fifth of itself per frame.
	if limit := 0.075 + 0.25*d.MaxCorrection; maxJump > limit {
		t.Errorf("drawn avatar jumped %.3f m (limit %.3f)", maxJump, limit)
	}
}
