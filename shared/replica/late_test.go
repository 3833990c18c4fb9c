package replica_test

import (
	"testing"

	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/replica/replicatest"
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
	l := newLink(t, &replicatest.Options{Seed: 4, NoPopulation: true}, nil, 4, 4)
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
	l := newLink(t, &replicatest.Options{Seed: 5, NoPopulation: true}, nil, 4, 4)
	l.run(t, 20*ticksPerFrame, nil)
	l.up = 20 * ticksPerFrame // inputs now arrive 1 s late
	l.moveTo(t, l.srv.Game.Region(0).SpawnPoints()[2])
	l.run(t, 10*ticksPerFrame, nil)
	l.up = 4
	l.run(t, 60*20*ticksPerFrame/10, nil) // 6 s
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
