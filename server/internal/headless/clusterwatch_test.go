package headless

import (
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/server/internal/gameserver"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
)

// clusterGames returns a game of every region of the default world, as each node
// holds them, and the arrival marker of a transition into region to.
func clusterGames(t *testing.T) (gs []*sim.Game, arrival func(to int32) int32) {
	t.Helper()
	w, err := world.LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range w.Regions {
		g, err := sim.New(w, &sim.Options{Region: r.ID, NoPopulation: true})
		if err != nil {
			t.Fatal(err)
		}
		gs = append(gs, g)
	}
	return gs, func(to int32) int32 {
		for _, tr := range w.Transitions {
			if tr.Region == to {
				return tr.Marker
			}
		}
		t.Fatalf("no transition to region %d", to)
		return 0
	}
}

// spawnAvatar spawns a player's avatar owned by owner in g.
func spawnAvatar(t *testing.T, g *sim.Game, owner int32) sim.EntityID {
	t.Helper()
	id, err := g.Spawn(gameserver.AvatarPrototype, g.Home().ID(), g.Home().SpawnPoints()[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.SetOwner(id, owner); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestNodeWatchArrival: an avatar one node sends away (Handoff.Away) and another
// node's game takes in is compared, on its arrival, with what the source packed:
// the check passes a faithful arrival and fails one that changed a saved field.
func TestNodeWatchArrival(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		arrive   func(t *testing.T, g *sim.Game, id sim.EntityID) // after the target's Immigrate
		away     bool                                             // the source reported the departure
		compared int
		want     string // the checks violated
	}{
		{"faithful", func(*testing.T, *sim.Game, sim.EntityID) {}, true, 1, ""},
		{"owner changed", func(t *testing.T, g *sim.Game, id sim.EntityID) {
			if err := g.SetOwner(id, 9); err != nil {
				t.Fatal(err)
			}
		}, true, 1, "handoff"},
		{"turned", func(t *testing.T, g *sim.Game, id sim.EntityID) {
			if err := g.LookAt(id, g.Entity(id).Pos().Add(mgl32.Vec2{0, -5})); err != nil {
				t.Fatal(err)
			}
		}, true, 1, "handoff"},
		// Without a departure, an avatar that appears is a login: nothing to compare.
		{"login", func(*testing.T, *sim.Game, sim.EntityID) {}, false, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src, arrival := clusterGames(t)
			dst, _ := clusterGames(t)
			id := spawnAvatar(t, src[0], 7)
			cw := newClusterWatch(nil, 0)
			a, b := cw.node("a"), cw.node("b")
			onA := []liveGame{{src[0].Home().ID(), src[0]}}
			onB := []liveGame{{dst[1].Home().ID(), dst[1]}}
			a.travel(gameserver.FrameView{Frame: 1, Games: src}, onA)
			b.travel(gameserver.FrameView{Frame: 1, Games: dst}, onB)
			packed, err := src[0].Emigrate(id)
			if err != nil {
				t.Fatal(err)
			}
			var hs []gameserver.Handoff
			if tc.away {
				hs = []gameserver.Handoff{{Entity: id, From: 0, To: 1, Emigrated: packed, Away: true}}
			}
			bad := a.travel(gameserver.FrameView{Frame: 2, Games: src, Handoffs: hs}, onA)
			if _, err := dst[1].Immigrate(packed, arrival(1)); err != nil {
				t.Fatal(err)
			}
			tc.arrive(t, dst[1], id)
			bad = append(bad, b.travel(gameserver.FrameView{Frame: 2, Games: dst}, onB)...)
			var got []string
			for _, v := range bad {
				got = append(got, v.Check)
			}
			c := cw.take()
			if strings.Join(got, ",") != tc.want || c.compared != tc.compared || c.crossNode != len(hs) {
				t.Errorf("violations %+v, %d compared, %d cross-node; want %q, %d, %d", bad, c.compared, c.crossNode, tc.want, tc.compared, len(hs))
			}
		})
	}
}

// TestMeetingViolations: at a rendezvous, an id in the games of two nodes and a
// player with an avatar on two nodes are violations; the same entities each on
// one node are not.
func TestMeetingViolations(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		copy func(t *testing.T, a, b *sim.Game, id sim.EntityID, arrival func(int32) int32)
		want string
	}{
		{"handed over", func(t *testing.T, a, b *sim.Game, id sim.EntityID, arrival func(int32) int32) {
			packed, err := a.Emigrate(id)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := b.Immigrate(packed, arrival(b.Home().ID())); err != nil {
				t.Fatal(err)
			}
		}, ""},
		{"kept a copy", func(t *testing.T, a, b *sim.Game, id sim.EntityID, arrival func(int32) int32) {
			packed, err := a.Emigrate(id)
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range []*sim.Game{a, b} {
				if _, err := g.Immigrate(packed, arrival(g.Home().ID())); err != nil {
					t.Fatal(err)
				}
			}
		}, "ids,region"},
		{"a second avatar", func(t *testing.T, a, b *sim.Game, id sim.EntityID, arrival func(int32) int32) {
			spawnAvatar(t, b, 7)
		}, "region"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			onA, arrival := clusterGames(t)
			onB, _ := clusterGames(t)
			id := spawnAvatar(t, onA[0], 7)
			tc.copy(t, onA[0], onB[1], id, arrival)
			cw := newClusterWatch(nil, 0)
			nodes := []*nodeWatch{cw.node("a"), cw.node("b")}
			m := &meeting{games: map[string][]liveGame{
				"a": {{onA[0].Home().ID(), onA[0]}},
				"b": {{onB[1].Home().ID(), onB[1]}},
			}}
			var got []string
			for _, v := range meetingViolations(nodes, m) {
				got = append(got, v.Check)
			}
			if strings.Join(got, ",") != tc.want {
				t.Errorf("violations %v, want %q", got, tc.want)
			}
		})
	}
}

// TestClusterChecksRan: a cluster run whose checks checked nothing fails: with
// travel, a run without a handoff to another node proves nothing about them.
func TestClusterChecksRan(t *testing.T) {
	t.Parallel()
	ran := func() clusterReport {
		r := clusterReport{OK: true}
		c := &r.Checks
		c.OwnerChecks, c.NodeFrames, c.Rendezvous, c.AOIChecks, c.AOIRegionChecks = 1, 1, 1, 1, 1
		r.Handoffs.Compared, r.Handoffs.Measured, r.Handoffs.CrossNode = 1, 1, 1
		return r
	}
	tests := []struct {
		name   string
		edit   func(r *clusterReport)
		travel bool
		nodes  int
		want   int // not-run violations
	}{
		{"all ran", func(*clusterReport) {}, true, 3, 0},
		{"no owner check", func(r *clusterReport) { r.Checks.OwnerChecks = 0 }, true, 3, 1},
		{"no rendezvous", func(r *clusterReport) { r.Checks.Rendezvous = 0 }, true, 3, 1},
		{"no cross-node handoff", func(r *clusterReport) { r.Handoffs.CrossNode = 0 }, true, 3, 1},
		{"no cross-node handoff on one node", func(r *clusterReport) { r.Handoffs.CrossNode = 0 }, true, 1, 0},
		{"no handoff without travel", func(r *clusterReport) { r.Handoffs = ran().Handoffs; r.Handoffs.Compared, r.Handoffs.Measured = 0, 0 }, false, 3, 0},
		{"no handoff with travel", func(r *clusterReport) { r.Handoffs.Compared, r.Handoffs.Measured = 0, 0 }, true, 3, 2},
	}
	for _, tc := range tests {
		r := ran()
		tc.edit(&r)
		r.checksRan(tc.travel, tc.nodes)
		if r.Violations != tc.want || r.OK != (tc.want == 0) {
			t.Errorf("%s: %d violations (ok %v), want %d: %+v", tc.name, r.Violations, r.OK, tc.want, r.Listed)
		}
	}
}

// TestNodeWatchCheckClient: a client is checked against its node's games when its
// region's game was at the client's frame. A node's regions count frames of their
// own (a region gained later starts where it was gained), so the frame is the
// region's, not the node's first region's.
func TestNodeWatchCheckClient(t *testing.T) {
	t.Parallel()
	gs, _ := clusterGames(t)
	hub, wilds := gs[0], gs[1]
	for range 5 { // the hub is ahead: the node has stepped it longer
		if err := hub.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if err := wilds.Step(); err != nil {
		t.Fatal(err)
	}
	avatar := spawnAvatar(t, wilds, 7)
	other := spawnAvatar(t, hub, 8)
	n := newClusterWatch(nil, 0).node("a")
	n.mu.Lock()
	n.record(hub.Frame(), []liveGame{{hub.Home().ID(), hub}, {wilds.Home().ID(), wilds}})
	n.mu.Unlock()
	tests := []struct {
		name    string
		region  int32
		frame   uint64
		held    []uint64
		checked bool
		want    int // violations
	}{
		{"in its region", wilds.Home().ID(), wilds.Frame(), []uint64{uint64(avatar)}, true, 0},
		{"holds the hub's entity", wilds.Home().ID(), wilds.Frame(), []uint64{uint64(avatar), uint64(other)}, true, 1},
		{"in the hub, its avatar in the wilds", hub.Home().ID(), hub.Frame(), nil, true, 1},
		{"a frame the node never had", wilds.Home().ID(), wilds.Frame() + 1, nil, false, 0},
	}
	for _, tc := range tests {
		checked, bad := n.checkClient(0, uint64(avatar), tc.region, tc.frame, tc.held)
		if checked != tc.checked || len(bad) != tc.want {
			t.Errorf("%s: checked %v, violations %+v; want %v, %d", tc.name, checked, bad, tc.checked, tc.want)
		}
	}
}
