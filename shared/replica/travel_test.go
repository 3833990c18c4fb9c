package replica_test

import (
	"fmt"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/replication/replicationtest"
	"github.com/twinframe/twinframe/shared/world"
)

// gate returns the default world's transition named name.
func gate(t testing.TB, w *world.World, name string) world.Transition {
	t.Helper()
	for _, tr := range w.Transitions {
		if tr.Name == name {
			return tr
		}
	}
	t.Fatalf("no transition %q", name)
	return world.Transition{}
}

func markerPos(t testing.TB, w *world.World, id int32) mgl32.Vec2 {
	t.Helper()
	for _, m := range w.Markers {
		if m.ID == id {
			return m.Pos
		}
	}
	t.Fatalf("no marker %d", id)
	return mgl32.Vec2{}
}

// walkThrough walks the avatar into the park gate and runs until the replica is in
// the wilds (at most 60 s of frames); each runs every tick.
func walkThrough(t *testing.T, l *link, each func(l *link)) world.Transition {
	t.Helper()
	g := gate(t, l.srv.World, "park-gate")
	l.moveTo(t, g.Pos)
	for f := 0; f < 1200 && l.r.RegionID() != g.Region; f++ {
		l.run(t, ticksPerFrame, each)
	}
	if l.r.RegionID() != g.Region {
		t.Fatalf("not in region %d after a minute: in %d (server: %v)", g.Region, l.r.RegionID(), l.c.Travels)
	}
	return g
}

// TestTravel: walking through a portal is travel, not a resync: the replica is in the
// target region with the same avatar id, asked for nothing, reused the world it
// loaded, keeps numbering inputs where it was, and predicts exactly in the new region
// (an input sent while the server was handing the avatar off is predicted there,
// where the server applies it).
func TestTravel(t *testing.T) {
	t.Parallel()
	for _, lat := range []int64{0, 6} {
		t.Run(fmt.Sprintf("latency=%d", lat), func(t *testing.T) {
			t.Parallel()
			l := newLink(t, &replicationtest.Options{Seed: 9, NoPopulation: true}, nil, lat, lat)
			l.run(t, 40*ticksPerFrame, nil)
			id := l.r.Player()
			world := l.r.World()
			if got := l.r.TakeRegionChanges(nil); len(got) != 1 || got[0].Travel || got[0].To != 0 {
				t.Fatalf("login: region changes %+v, want one to region 0, not travel", got)
			}
			g := gate(t, l.srv.World, "park-gate")
			dest := markerPos(t, l.srv.World, g.Marker).Add(mgl32.Vec2{6, 3})
			var inFlight uint32
			walkThrough(t, l, func(l *link) {
				// The server has handed the avatar off; the client does not know yet.
				if inFlight == 0 && l.c.Region().ID == g.Region && l.r.RegionID() == 0 && l.r.Ready() {
					l.up = 3 * ticksPerFrame // it reaches the server after the handoff
					l.moveTo(t, dest)
					inFlight = l.r.LastInputSeq()
				}
			})
			l.up = lat
			if inFlight == 0 && lat > 0 {
				t.Fatal("no input was sent during the handoff")
			}
			before := l.r.LastInputSeq()
			l.run(t, 10*ticksPerFrame, nil)
			l.moveTo(t, dest.Add(mgl32.Vec2{-4, 2}))
			if got := l.r.LastInputSeq(); got != before+1 {
				t.Errorf("first input after travel has number %d, want %d", got, before+1)
			}
			l.run(t, 200*ticksPerFrame, nil)

			st := l.r.Stats()
			if l.r.Player() != id || uint64(l.c.Avatar) != id {
				t.Errorf("avatar %d (server %d) after travel, want %d", l.r.Player(), l.c.Avatar, id)
			}
			if st.ResyncRequests != 0 || st.Errors != 0 || l.c.Resyncs != 0 {
				t.Errorf("travel asked for a resync: %+v", st)
			}
			if st.RegionChanges != 1 || st.WorldLoads != 1 || l.r.World() != world {
				t.Errorf("%d region changes, %d world loads (world reused: %v); want 1, 1, true", st.RegionChanges, st.WorldLoads, l.r.World() == world)
			}
			ch := l.r.TakeRegionChanges(nil)
			if len(ch) != 1 || ch[0] != (replica.RegionChange{From: 0, To: g.Region, Frame: l.c.Travels[0].Frame, Travel: true}) {
				t.Errorf("region changes %+v, want one travel 0 → %d at frame %d", ch, g.Region, l.c.Travels[0].Frame)
			}
			applied := inFlight == 0 // no latency: nothing was in flight
			for _, a := range l.c.Applied {
				applied = applied || a.Seq == inFlight
			}
			if !applied {
				t.Errorf("the input sent during the handoff (%d) was not applied in the new region", inFlight)
			}
			srv := l.c.Region().Game.Entity(l.c.Avatar)
			if p, ok := predictedPos(l); !ok || p != srv.Pos() {
				t.Errorf("at rest in the new region: predicted %v, server %v (exact)", p, srv.Pos())
			}
			d := l.r.Drift()
			if d.Corrections != 0 || d.CorrectionsAfterTravel != 0 {
				t.Errorf("%d corrections, %d after travel; want none", d.Corrections, d.CorrectionsAfterTravel)
			}
			t.Logf("travel at frame %d; %d frames compared, %d mismatched", ch[0].Frame, d.Compared, d.Mismatched)
		})
	}
}

// TestCorrectionsAfterTravel: a correction within replica.TravelWindow frames of a
// travel counts in CorrectionsAfterTravel and not in Corrections; the same
// disagreement later counts in Corrections.
func TestCorrectionsAfterTravel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		after       int // frames after arrival when the server slows the avatar
		steady, dur int // corrections expected in Corrections, CorrectionsAfterTravel
	}{
		{"within the window", 3, 0, 1},
		{"after the window", replica.TravelWindow + 10, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := newLink(t, &replicationtest.Options{Seed: 9, NoPopulation: true}, nil, 0, 0)
			l.run(t, 40*ticksPerFrame, nil)
			g := walkThrough(t, l, nil)
			dest := markerPos(t, l.srv.World, g.Marker).Add(mgl32.Vec2{12, 0})
			l.run(t, ticksPerFrame, nil)
			l.moveTo(t, dest)
			l.run(t, (tc.after-1)*ticksPerFrame, nil)
			// The server changes what the client cannot foresee.
			if err := l.c.Region().Game.SetSpeed(l.c.Avatar, 1); err != nil {
				t.Fatal(err)
			}
			l.run(t, 4*ticksPerFrame, nil)
			d := l.r.Drift()
			if d.Corrections != tc.steady || d.CorrectionsAfterTravel != tc.dur {
				t.Errorf("%d corrections, %d after travel; want %d, %d", d.Corrections, d.CorrectionsAfterTravel, tc.steady, tc.dur)
			}
		})
	}
}

// TestTeleportTravel: the deity's teleport to another region is the same travel.
func TestTeleportTravel(t *testing.T) {
	t.Parallel()
	l := newLink(t, &replicationtest.Options{Seed: 2, NoPopulation: true}, nil, 2, 2)
	l.run(t, 40*ticksPerFrame, nil)
	id := l.r.Player()
	vault := gate(t, l.srv.World, "vault-door")
	if err := l.srv.Teleport(l.c, vault.Region, vault.Marker); err != nil {
		t.Fatal(err)
	}
	l.run(t, 20*ticksPerFrame, nil)
	st := l.r.Stats()
	if l.r.RegionID() != vault.Region || l.r.Player() != id || !l.r.Ready() {
		t.Fatalf("in region %d, avatar %d, ready %v; want %d, %d, true", l.r.RegionID(), l.r.Player(), l.r.Ready(), vault.Region, id)
	}
	if st.RegionChanges != 1 || st.ResyncRequests != 0 || st.Errors != 0 {
		t.Errorf("stats %+v: want one region change, no resync, no error", st)
	}
	if own, ok := l.r.State(id); !ok || own.Position.Vec2().Sub(markerPos(t, l.srv.World, vault.Marker)).Len() > 0.2 {
		t.Errorf("avatar at %v, want the arrival marker", own.Position)
	}
}

// TestTravelToAnotherFrameCount: a region whose frames count from elsewhere (one
// run by another node, here 5,000 frames ahead or behind the hub) is travel like
// any other: the replica takes the new count (no packet of the new region is
// stale, the clock follows at once), asks for no resync, and its next input is
// applied there and predicted exactly.
func TestTravelToAnotherFrameCount(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		ahead map[int32]int
		lat   int64
	}{
		{"ahead", map[int32]int{1: 5000}, 0},
		{"ahead-latency", map[int32]int{1: 5000}, 6},
		{"behind", map[int32]int{0: 5000}, 6},
		{"just-behind", map[int32]int{0: 2}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := newLink(t, &replicationtest.Options{Seed: 9, NoPopulation: true, AheadFrames: tc.ahead}, nil, tc.lat, tc.lat)
			l.run(t, 40*ticksPerFrame, nil)
			g := walkThrough(t, l, nil)
			l.run(t, 10*ticksPerFrame, nil)
			if got, want := l.r.ServerFrame(), l.c.Region().Game.Frame(); got+3 < want || got > want {
				t.Fatalf("replica at frame %d after travel, the new region at %d", got, want)
			}
			st := l.r.Stats()
			before := st.StalePackets
			dest := markerPos(t, l.srv.World, g.Marker).Add(mgl32.Vec2{6, 3})
			l.moveTo(t, dest)
			seq := l.r.LastInputSeq()
			l.run(t, 200*ticksPerFrame, nil)
			st = l.r.Stats()
			if st.ResyncRequests != 0 || st.Errors != 0 || l.c.Resyncs != 0 {
				t.Errorf("travel asked for a resync: %+v", st)
			}
			if st.StalePackets != before {
				t.Errorf("%d stale packets after travel", st.StalePackets-before)
			}
			applied := false
			for _, a := range l.c.Applied {
				applied = applied || a.Seq == seq
			}
			if !applied {
				t.Fatalf("input %d sent after travel was not applied", seq)
			}
			srv := l.c.Region().Game.Entity(l.c.Avatar)
			if p, ok := predictedPos(l); !ok || p != srv.Pos() {
				t.Errorf("at rest in the new region: predicted %v, server %v (exact)", p, srv.Pos())
			}
			if srv.Pos().Sub(dest).Len() > 0.5 {
				t.Errorf("avatar at %v, walked to %v", srv.Pos(), dest)
			}
			if d := l.r.Drift(); d.Corrections != 0 {
				t.Errorf("%d corrections after travel to another frame count (%d just after it)", d.Corrections, d.CorrectionsAfterTravel)
			}
		})
	}
}
