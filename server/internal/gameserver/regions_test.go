package gameserver

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	dto "github.com/prometheus/client_model/go"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/replication"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
)

// joinPlayer is joinLocal for a player with an account, so that the server saves
// its avatar.
func joinPlayer(t *testing.T, s *Server, name string) *localClient {
	t.Helper()
	p, _, err := s.cfg.Store.Login(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	lc := &localClient{c: &session{id: s.nextID.Add(1), srv: s, ctx: ctx, cancel: cancel, out: make(chan []byte, 8),
		name: name, playerID: p.ID}, rep: replica.New(nil)}
	s.join(lc.c, nil)
	lc.receive(t)
	return lc
}

// transitionNamed returns the default world's transition called name.
func transitionNamed(t testing.TB, w *world.World, name string) world.Transition {
	t.Helper()
	for _, tr := range w.Transitions {
		if tr.Name == name {
			return tr
		}
	}
	t.Fatalf("no transition %q", name)
	return world.Transition{}
}

// regionsHolding returns the names of the regions whose game holds id.
func (s *Server) regionsHolding(id sim.EntityID) []string {
	var in []string
	for _, r := range s.regions {
		if r.game.Entity(id) != nil {
			in = append(in, r.name)
		}
	}
	return in
}

func counterValue(t *testing.T, c interface{ Write(*dto.Metric) error }) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

// TestTravelThroughPortal walks a player into the hub's gate to the wilds: at the
// end of that frame its avatar leaves the hub and is in the wilds' game, the same
// entity; its client gets the region change then its new view, without a resync;
// the avatar is in exactly one region at every frame boundary, is not recorded as
// lost, and its save names the new region.
func TestTravelThroughPortal(t *testing.T) {
	t.Parallel()
	s := benchServer(t, nil)
	gate := transitionNamed(t, s.world, "park-gate")
	target := s.regionByID(gate.Region)
	if target == nil || target == s.regions[0] {
		t.Fatalf("the park gate leads to region %d", gate.Region)
	}
	lc := joinPlayer(t, s, "ana")
	id := lc.c.avatar
	owner := s.hub().Entity(id).Owner()
	near := gate.Pos.Sub(mgl32.Vec2{0, gate.Radius + 4})
	must(t, s.hub().Teleport(id, near))
	lc.c.inbox = append(lc.c.inbox, replication.MoveTo(1, 0, gate.Pos))
	travelledAt, predictedAt := uint64(0), uint64(0)
	for f := uint64(1); f <= 200 && predictedAt == 0; f++ {
		must(t, s.frame(f))
		lc.receive(t)
		in := s.regionsHolding(id)
		if len(in) != 1 {
			t.Fatalf("frame %d: the avatar is in %v; want exactly one region", s.frameNumber(), in)
		}
		if in[0] == target.name && travelledAt == 0 {
			travelledAt = s.frameNumber()
		}
		if travelledAt != 0 && lc.rep.RegionID() == target.id && lc.rep.Ready() {
			predictedAt = s.frameNumber()
		}
	}
	if travelledAt == 0 || predictedAt == 0 {
		t.Fatalf("the avatar went through the gate at frame %d, the client predicts there from %d", travelledAt, predictedAt)
	}
	// The portal is entered in frame travelledAt; the client's prediction runs in
	// the new region from the packet of that frame on: its next predicted frame is
	// the first after the entry.
	if predictedAt-travelledAt > 1 {
		t.Errorf("the client predicts in the new region %d frames after the portal entry; want at most 2", predictedAt-travelledAt+1)
	}
	t.Logf("portal entered at frame %d; the client predicts in %s from its packet (frame %d): first predicted frame %d",
		travelledAt, target.name, predictedAt, predictedAt+1)
	e := target.game.Entity(id)
	if e.Owner() != owner || e.Region() != target.id || lc.c.reg != target || lc.c.avatar != id {
		t.Fatalf("after travel: owner %d region %d, session in %s as %d; want owner %d in %s as %d",
			e.Owner(), e.Region(), lc.c.reg.name, lc.c.avatar, owner, target.name, id)
	}
	if p, ok := target.game.MarkerPos(gate.Marker); !ok || e.Pos() != p {
		t.Errorf("arrived at %v, want the arrival marker %d at %v", e.Pos(), gate.Marker, p)
	}
	// The client: the new region, its avatar under the same id, its neighbours.
	for range 3 {
		must(t, s.frame(travelledAt+1))
		travelledAt++
		lc.receive(t)
	}
	if lc.rep.RegionID() != target.id || lc.rep.Player() != uint64(id) {
		t.Errorf("the replica is in region %d as %d; want %d as %d", lc.rep.RegionID(), lc.rep.Player(), target.id, id)
	}
	if _, ok := lc.rep.State(uint64(id)); !ok {
		t.Error("the replica does not hold its avatar after travel")
	}
	for _, held := range lc.rep.IDs(nil) {
		if target.game.Entity(sim.EntityID(held)) == nil {
			t.Errorf("the client holds %d, which is not in %s", held, target.name)
		}
	}
	for _, l := range s.lost {
		if l.ID == int64(id) {
			t.Errorf("the traveller is recorded as lost: %+v", l)
		}
	}
	sv, ok := s.saver.latest(lc.c.playerID)
	if !ok {
		t.Fatal("no save queued at the region change")
	}
	saved, err := unpackAvatar(sv)
	if err != nil || saved.Region() != target.id {
		t.Fatalf("the save is of region %d (%v); want %d", saved.Region(), err, target.id)
	}
	if n := counterValue(t, s.metrics.handoffs.WithLabelValues("ok")); n != 1 {
		t.Errorf("%v handoffs counted, want 1", n)
	}
}

// TestRegionsParallelEqualsSerial steps two servers of the same seed, one region at
// a time and on a pool of workers, with a traveller teleported between regions on
// the same frame: every region's state hash is the same in both at every frame.
func TestRegionsParallelEqualsSerial(t *testing.T) {
	t.Parallel()
	servers := []*Server{
		benchServer(t, func(c *Config) { c.NoPopulation, c.Workers = false, 1 }),
		benchServer(t, func(c *Config) { c.NoPopulation, c.Workers = false, 3 }),
	}
	var players []*localClient
	for _, s := range servers {
		players = append(players, joinPlayer(t, s, "bo"))
	}
	if servers[1].workers() != 3 || servers[0].workers() != 1 {
		t.Fatalf("workers %d and %d", servers[0].workers(), servers[1].workers())
	}
	wilds := servers[0].regions[1]
	arrival := transitionNamed(t, servers[0].world, "park-gate").Marker
	for f := uint64(1); f <= 120; f++ {
		for i, s := range servers {
			if f == 40 {
				must(t, s.teleport(&pb.NetMessageDebugCommand{PlayerName: "bo", RegionId: wilds.id, MarkerId: arrival}))
			}
			must(t, s.frame(f))
			players[i].receive(t)
		}
		for k := range servers[0].regions {
			a, b := servers[0].regions[k].game.StateHash(), servers[1].regions[k].game.StateHash()
			if a != b {
				t.Fatalf("frame %d, region %s: state hash %016x serial, %016x parallel", f, servers[0].regions[k].name, a, b)
			}
		}
	}
	if players[1].c.reg.id != wilds.id {
		t.Fatalf("the teleported player is in %s", players[1].c.reg.name)
	}
}

// TestTeleportRefusals: a deity's teleport that cannot be done is an error
// reply naming why, and nothing moves; one that can is the same handoff as a
// portal, or a move within the region.
func TestTeleportRefusals(t *testing.T) {
	t.Parallel()
	s := benchServer(t, nil)
	lc := joinPlayer(t, s, "cy")
	id := lc.c.avatar
	gate := transitionNamed(t, s.world, "park-gate")
	var hubMarker int32 = -1
	for _, m := range s.world.Markers {
		if _, ok := s.hub().MarkerPos(m.ID); ok {
			hubMarker = m.ID
			break
		}
	}
	for _, tc := range []struct {
		name   string
		m      *pb.NetMessageDebugCommand
		err    string
		region string
	}{
		{"unknown player", &pb.NetMessageDebugCommand{PlayerName: "nobody", RegionId: gate.Region, MarkerId: gate.Marker}, "no player", "downtown"},
		{"missing region", &pb.NetMessageDebugCommand{PlayerName: "cy", RegionId: 77, MarkerId: gate.Marker}, "region 77", "downtown"},
		{"marker of another region", &pb.NetMessageDebugCommand{PlayerName: "cy", RegionId: gate.Region, MarkerId: hubMarker}, "marker", "downtown"},
		{"missing marker", &pb.NetMessageDebugCommand{PlayerName: "cy", RegionId: gate.Region, MarkerId: 9999}, "marker 9999", "downtown"},
		{"within the region", &pb.NetMessageDebugCommand{PlayerName: "cy", RegionId: s.hubID(), MarkerId: hubMarker}, "", "downtown"},
		{"to the wilds", &pb.NetMessageDebugCommand{PlayerName: "cy", RegionId: gate.Region, MarkerId: gate.Marker}, "", "wilds"},
	} {
		err := s.teleport(tc.m)
		if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: %v; want an error containing %q", tc.name, err, tc.err)
		}
		if in := s.regionsHolding(id); !slices.Equal(in, []string{tc.region}) || lc.c.reg.name != tc.region {
			t.Errorf("%s: the avatar is in %v, the session in %s; want %s", tc.name, in, lc.c.reg.name, tc.region)
		}
	}
}

// TestRegionList: the deity's list names every region in world order with the
// players in it and its game's state hash.
func TestRegionList(t *testing.T) {
	t.Parallel()
	s := benchServer(t, nil)
	joinPlayer(t, s, "di")
	joinPlayer(t, s, "ed")
	gate := transitionNamed(t, s.world, "park-gate")
	must(t, s.teleport(&pb.NetMessageDebugCommand{PlayerName: "ed", RegionId: gate.Region, MarkerId: gate.Marker}))
	m := s.regionList()
	var got []string
	for _, r := range m.Regions {
		got = append(got, fmt.Sprintf("%d %s %v", r.RegionId, r.Name, r.PlayerNames))
		if reg := s.regionByID(r.RegionId); reg == nil || r.StateHash != reg.game.StateHash() || int(r.Entities) != len(reg.game.Entities()) {
			t.Errorf("region %s: hash %x, %d entities", r.Name, r.StateHash, r.Entities)
		}
	}
	want := []string{
		fmt.Sprintf("%d downtown [di]", s.regions[0].id),
		fmt.Sprintf("%d wilds [ed]", s.regions[1].id),
		fmt.Sprintf("%d vault []", s.regions[2].id),
	}
	if !slices.Equal(got, want) {
		t.Errorf("region list %q, want %q", got, want)
	}
}

// TestTeleportInAFrame: a deity's teleport runs in the frame's drain, before the
// step; the traveller is not recorded as lost, its client follows, and the
// OnFrame hook sees the handoff with what the source game packed.
func TestTeleportInAFrame(t *testing.T) {
	t.Parallel()
	var seen []Handoff
	s := benchServer(t, func(c *Config) {
		c.OnFrame = func(v FrameView) {
			for _, h := range v.Handoffs {
				seen = append(seen, Handoff{Entity: h.Entity, From: h.From, To: h.To, Emigrated: slices.Clone(h.Emigrated)})
			}
		}
	})
	lc := joinPlayer(t, s, "fay")
	deity := joinPlayer(t, s, "god")
	id := lc.c.avatar
	gate := transitionNamed(t, s.world, "park-gate")
	must(t, s.frame(1))
	deity.c.inbox = append(deity.c.inbox, &pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_TELEPORT, PlayerName: "fay", RegionId: gate.Region, MarkerId: gate.Marker})
	for f := uint64(2); f <= 4; f++ {
		must(t, s.frame(f))
		lc.receive(t)
		deity.receive(t)
	}
	if in := s.regionsHolding(id); !slices.Equal(in, []string{"wilds"}) || lc.rep.RegionID() != gate.Region {
		t.Fatalf("after the teleport the avatar is in %v, its client in region %d", in, lc.rep.RegionID())
	}
	for _, l := range s.lost {
		if l.ID == int64(id) {
			t.Errorf("the teleported avatar is recorded as lost: %+v", l)
		}
	}
	if len(seen) != 1 || seen[0].Entity != id || seen[0].From != s.hubID() || seen[0].To != gate.Region || len(seen[0].Emigrated) == 0 {
		t.Fatalf("the hook saw handoffs %+v", seen)
	}
}
