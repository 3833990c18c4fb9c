package headless

import (
	"github.com/go-gl/mathgl/mgl32"
	"strings"
	"testing"

	"github.com/twinframe/twinframe/server/internal/gameserver"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
)

// TestRegionWatch: the hook's travel checks pass a handoff that keeps the avatar's
// saved fields, and each fails when its condition is broken.
func TestRegionWatch(t *testing.T) {
	t.Parallel()
	w, err := world.LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	games := func(t *testing.T) []*sim.Game {
		var gs []*sim.Game
		for _, r := range w.Regions {
			g, err := sim.New(w, &sim.Options{Region: r.ID, NoPopulation: true})
			if err != nil {
				t.Fatal(err)
			}
			gs = append(gs, g)
		}
		return gs
	}
	arrival := func(to int32) int32 {
		for _, tr := range w.Transitions {
			if tr.Region == to {
				return tr.Marker
			}
		}
		t.Fatalf("no transition to region %d", to)
		return 0
	}
	spawn := func(t *testing.T, g *sim.Game, owner int32) sim.EntityID {
		at, _ := g.MarkerPos(arrival(g.Home().ID()))
		if pts := g.Home().SpawnPoints(); len(pts) > 0 {
			at = pts[0]
		}
		id, err := g.Spawn(gameserver.AvatarPrototype, g.Home().ID(), at, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.SetOwner(id, owner); err != nil {
			t.Fatal(err)
		}
		return id
	}
	// hand moves id from gs[0] to gs[to], as the server does, and returns the
	// handoff the server's hook would see.
	hand := func(t *testing.T, gs []*sim.Game, id sim.EntityID, to int) []gameserver.Handoff {
		b, err := gs[0].Emigrate(id)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := gs[to].Immigrate(b, arrival(int32(to))); err != nil {
			t.Fatal(err)
		}
		return []gameserver.Handoff{{Entity: id, From: gs[0].Home().ID(), To: int32(to), Emigrated: b}}
	}
	tests := []struct {
		name     string
		between  func(t *testing.T, gs []*sim.Game, id sim.EntityID) []gameserver.Handoff // between the two frames
		handoffs int
		want     []string // the checks violated
	}{
		{"stays", func(*testing.T, []*sim.Game, sim.EntityID) []gameserver.Handoff { return nil }, 0, nil},
		{"handoff", func(t *testing.T, gs []*sim.Game, id sim.EntityID) []gameserver.Handoff { return hand(t, gs, id, 1) }, 1, nil},
		{"handoff changes a saved field", func(t *testing.T, gs []*sim.Game, id sim.EntityID) []gameserver.Handoff {
			h := hand(t, gs, id, 1)
			if err := gs[1].SetOwner(id, 9); err != nil {
				t.Fatal(err)
			}
			return h
		}, 1, []string{"handoff"}},
		{"handoff turns the avatar", func(t *testing.T, gs []*sim.Game, id sim.EntityID) []gameserver.Handoff {
			h := hand(t, gs, id, 1)
			e := gs[1].Entity(id)
			if err := gs[1].Teleport(id, e.Pos()); err != nil {
				t.Fatal(err)
			}
			if err := gs[1].LookAt(id, e.Pos().Add(mgl32.Vec2{0, -5})); err != nil {
				t.Fatal(err)
			}
			return h
		}, 1, []string{"handoff"}},
		{"moved without a handoff", func(t *testing.T, gs []*sim.Game, id sim.EntityID) []gameserver.Handoff {
			hand(t, gs, id, 1)
			return nil
		}, 0, []string{"handoff"}},
		{"a player in two regions", func(t *testing.T, gs []*sim.Game, _ sim.EntityID) []gameserver.Handoff {
			spawn(t, gs[2], 7)
			return nil
		}, 0, []string{"region"}},
		{"an id in two games", func(t *testing.T, gs []*sim.Game, id sim.EntityID) []gameserver.Handoff {
			b, err := gs[0].Emigrate(id)
			if err != nil {
				t.Fatal(err)
			}
			var hs []gameserver.Handoff
			for _, to := range []int32{1, 2} {
				if _, err := gs[to].Immigrate(b, arrival(to)); err != nil {
					t.Fatal(err)
				}
				hs = append(hs, gameserver.Handoff{Entity: id, From: 0, To: to, Emigrated: b})
			}
			return hs
		}, 2, []string{"ids", "region"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			gs := games(t)
			id := spawn(t, gs[0], 7)
			var rw regionWatch
			rw.onFrame(gameserver.FrameView{Frame: 1, Games: gs})
			hs := tc.between(t, gs, id)
			rw.onFrame(gameserver.FrameView{Frame: 2, Games: gs, Handoffs: hs})
			ids, handoffs, bad := rw.take()
			var got []string
			for _, v := range bad {
				if len(got) == 0 || got[len(got)-1] != v.Check {
					got = append(got, v.Check)
				}
			}
			if ids != 2 || handoffs != tc.handoffs || strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("%d frames, %d handoffs, violations %+v; want 2, %d, %v", ids, handoffs, bad, tc.handoffs, tc.want)
			}
		})
	}
}

// TestRegionOfClient: the driver's checks of one bot against a frame's games: its
// avatar in exactly one, and nothing of another region held by its client.
func TestRegionOfClient(t *testing.T) {
	t.Parallel()
	s := &regionSnap{frame: 5, regions: []int32{0, 1, 2}, ids: [][]sim.EntityID{{1, 3, 100}, {7, 9}, {100, 200}}}
	tests := []struct {
		name   string
		player uint64
		region int32
		held   []uint64
		want   string // the check violated, "" for none
	}{
		{"in one region", 3, 1, nil, ""},
		{"in none", 4, 0, nil, "region"},
		{"in two", 100, 0, nil, "region"},
		{"holds its region's", 7, 1, []uint64{7, 9, 55}, ""},
		{"holds another region's", 7, 1, []uint64{7, 9, 200}, "aoi-region"},
	}
	for _, tc := range tests {
		var got []headlessViolation
		region, bad := playerRegion(s, 1, tc.player)
		if bad != nil {
			got = append(got, *bad)
		} else {
			got = append(got, foreignHeld(s, 1, region, tc.held)...)
		}
		switch {
		case tc.want == "" && len(got) != 0:
			t.Errorf("%s: %+v", tc.name, got)
		case tc.want != "" && (len(got) != 1 || got[0].Check != tc.want || got[0].Frame != 5):
			t.Errorf("%s: %+v, want one %s violation", tc.name, got, tc.want)
		}
	}
}

// TestReadSaved: an avatar's save reads back field by field, and kept leaves out
// what a handoff changes only.
func TestReadSaved(t *testing.T) {
	t.Parallel()
	w, err := world.LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	g, err := sim.New(w, &sim.Options{NoPopulation: true})
	if err != nil {
		t.Fatal(err)
	}
	id, err := g.Spawn(gameserver.AvatarPrototype, 0, g.Home().SpawnPoints()[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	e := g.Entity(id)
	s, err := readSaved(e)
	if err != nil {
		t.Fatal(err)
	}
	if s.ID != uint64(id) || s.Proto != e.Prototype() || s.Owner != e.Owner() || s.Radius != e.Radius() || s.Pos != [2]float32(e.Pos()) {
		t.Fatalf("read %+v of entity %d", s, id)
	}
	moved := s
	moved.Region, moved.Pos, moved.Mode, moved.Changed = 2, [2]float32{1, 2}, 3, 99
	if !sameKept(s, moved) {
		t.Error("a change of place is not a kept field's change")
	}
	for _, change := range []func(*savedAvatar){
		func(s *savedAvatar) { s.Seed++ },
		func(s *savedAvatar) { s.Created++ },
		func(s *savedAvatar) { s.Radius = -s.Radius },
	} {
		c := s
		change(&c)
		if sameKept(s, c) {
			t.Errorf("a kept field changed unseen: %+v", c)
		}
	}
}
