package replica_test

import (
	"testing"

	"github.com/twinframe/twinframe/shared/replication/replicationtest"
	"github.com/twinframe/twinframe/shared/sim"
)

// predictedPos returns where the replica's prediction game has the own avatar.
func predictedPos(l *link) ([2]float32, bool) {
	for _, e := range l.r.Game().Entities() {
		if e.Prototype() == replicationtest.AvatarPrototype {
			return e.Pos(), true
		}
	}
	return [2]float32{}, false
}

// After a correction the prediction becomes exact again, bit for bit, once the
// avatar comes to rest at its goal: a correction keeps every value the server's
// quantized state agrees with (here the path, which ends at the goal, off the
// grid) instead of rounding it to the wire's grid. From then on, without latency, nothing is
// mispredicted. Rounding left the avatar resting up to 1/8 m off the server, and
// every later walk disagreed whenever one of them crossed a grid line first.
func TestExactAgainAfterCorrection(t *testing.T) {
	t.Parallel()
	l := newLink(t, &replicationtest.Options{Seed: 5, NoPopulation: true}, nil, 0, 0)
	l.run(t, 20*ticksPerFrame, nil)
	spawns := l.srv.Game.Region(0).SpawnPoints()
	l.moveTo(t, spawns[1])
	l.run(t, 20*ticksPerFrame, nil)
	// Half-way, a new goal off the wire's 1/8 m grid (as a click or a bot's random
	// point is) arrives half a second late: the server walks on to the old goal
	// meanwhile, and the client is corrected while it walks.
	l.up = 10 * ticksPerFrame
	l.moveTo(t, spawns[3].Add([2]float32{0.3, 0.2}))
	l.run(t, 12*ticksPerFrame, nil)
	l.up = 0
	l.run(t, 20*20*ticksPerFrame, nil) // the walk ends
	before := l.r.Drift()
	if before.Corrections == 0 {
		t.Fatalf("the late input was not corrected: %+v", before)
	}
	srv := l.srv.Game.Entity(l.c.Avatar)
	if srv.Mode() != sim.Idle {
		t.Fatalf("the avatar is still walking (%v)", srv.Mode())
	}
	if p, ok := predictedPos(l); !ok || p != srv.Pos() {
		t.Errorf("resting: predicted %v, server %v (exact)", p, srv.Pos())
	}
	walk(t, l, 12, 400)
	d := l.r.Drift()
	t.Logf("before rest %d corrections, %d mismatched; after %d walks: %d mismatched", before.Corrections, before.Mismatched, 400/20, d.Mismatched-before.Mismatched)
	if d.Mismatched != before.Mismatched {
		for _, s := range l.r.DriftLog(nil) {
			if s.Fields != 0 && s.Frame > l.r.ServerFrame()-400 {
				t.Log(s)
				break
			}
		}
		t.Errorf("%d frames mispredicted without latency after the prediction was exact again", d.Mismatched-before.Mismatched)
	}
}

// A resting NPC in the avatar's way: the prediction game has it as a blocker where
// the server said it is, so the bump is predicted (exactly, for an NPC standing on
// the wire's grid) instead of the avatar walking through it and being corrected.
func TestBumpIntoRestingNPCPredicted(t *testing.T) {
	t.Parallel()
	l := newLink(t, &replicationtest.Options{Seed: 6, NoPopulation: true}, nil, 0, 0)
	l.run(t, 10*ticksPerFrame, nil)
	start := l.srv.Game.Entity(l.c.Avatar).Pos()
	// A dummy (blocking, does not wander) 3 m east, on the grid.
	const dummy = 3
	if _, err := l.srv.Game.Spawn(dummy, l.srv.Game.Region(0).ID(), start.Add([2]float32{3, 0}), 0); err != nil {
		t.Fatal(err)
	}
	l.run(t, 5*ticksPerFrame, nil)
	l.moveTo(t, start.Add([2]float32{6, 0}))
	var touched bool
	l.run(t, 3*20*ticksPerFrame, func(l *link) {
		for _, ev := range l.srv.Game.Events() {
			touched = touched || ev.Kind == sim.OnCollide && ev.A == l.c.Avatar && ev.B != 0
		}
	})
	d := l.r.Drift()
	t.Logf("compared %d, mismatched %d, corrections %d, max error %.3f m %.3f rad", d.Compared, d.Mismatched, d.Corrections, d.MaxPosError, d.MaxYawError)
	if !touched {
		t.Fatal("the avatar never touched the dummy")
	}
	if d.Mismatched != 0 {
		for _, s := range l.r.DriftLog(nil) {
			if s.Fields != 0 {
				t.Log(s)
				break
			}
		}
		t.Errorf("%d frames mispredicted", d.Mismatched)
	}
}
