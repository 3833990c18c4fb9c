package gameserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	tfclient "github.com/twinframe/twinframe/client"
	"github.com/twinframe/twinframe/internal/natstest"
	"github.com/twinframe/twinframe/internal/pgtest"
	"github.com/twinframe/twinframe/server/internal/cluster"
	"github.com/twinframe/twinframe/server/internal/store"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
)

// TestMain removes the nats-server binary built for the cluster tests and stops
// their PostgreSQL.
func TestMain(m *testing.M) {
	code := natstest.Run(m)
	if err := pgtest.StopShared(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// testCluster is nodes of one cluster over a real nats-server and a real
// PostgreSQL, each node a server on its own loopback listener.
type testCluster struct {
	nats  *natstest.Server
	store store.Store
	nodes map[string]*testServer
}

// startCluster starts the nodes named in layout (region → node: each node
// claims its regions first), on one NATS server and one PostgreSQL database.
func startCluster(t testing.TB, layout map[string]string, names ...string) *testCluster {
	return startClusterWith(t, layout, nil, names...)
}

// startClusterWith is startCluster with each node's configuration adjusted by mod.
func startClusterWith(t testing.TB, layout map[string]string, mod func(node string, c *Config), names ...string) *testCluster {
	t.Helper()
	tc := &testCluster{nats: natstest.Start(t), nodes: map[string]*testServer{}}
	st, err := store.OpenPostgres(context.Background(), pgtest.DB(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	tc.store = st
	for _, n := range names {
		tc.nodes[n] = startServer(t, "", func(c *Config) {
			c.Store = st
			c.OpenLogin = true
			// The default lease: a shorter one loses leases on a loaded machine
			// (renewals time out at a quarter lease), which is not what these test.
			c.Cluster = &ClusterConfig{URL: tc.nats.URL(), Node: n, Preferred: layout}
			if mod != nil {
				mod(n, c)
			}
		})
	}
	// Every region runs where the layout says before the test starts.
	deadline := time.Now().Add(20 * time.Second)
	for region, node := range layout {
		s := tc.nodes[node]
		for !tc.runs(t, s, region) {
			if time.Now().After(deadline) {
				t.Fatalf("node %s does not run region %s after 20 s", node, region)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return tc
}

// runs reports whether s steps region.
func (tc *testCluster) runs(t testing.TB, s *testServer, region string) bool {
	var live bool
	s.inLoop(t, func() { live = s.regionByName(region).live })
	return live
}

// sessionOf returns the loop's session of name on s, or nil.
func sessionOf(t testing.TB, s *testServer, name string) (c *session, region string, avatar sim.EntityID) {
	s.inLoop(t, func() {
		if x := s.byName[name]; x != nil && x.joined && x.reg != nil {
			c, region, avatar = x, x.reg.name, x.avatar
		}
	})
	return
}

func waitFor(t testing.TB, what string, d time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", d, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestClusterTravel: a client of node a walks through the park gate into the
// wilds, which node b runs. The client notices only the region change: the same
// avatar, its inputs applied on b through a's front door. The player's record
// moves to b, a logout saves it there and releases it, and a new login at a is
// run by b, where the player was saved.
func TestClusterTravel(t *testing.T) {
	layout := map[string]string{"downtown": "a", "wilds": "b", "vault": "b"}
	tc := startCluster(t, layout, "a", "b")
	a, b := tc.nodes["a"], tc.nodes["b"]
	gate := transitionNamed(t, a.world, "park-gate")

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := loginAt(ctx, t, a, "ana")
	id := walkIntoWilds(t, a, c, "ana", gate)
	var region string
	sb, region, idb := sessionOf(t, b, "ana")
	if sb == nil || region != "wilds" || idb != id {
		t.Fatalf("on b: ana in %q as %d; want wilds as %d", region, idb, id)
	}
	if x, _, _ := sessionOf(t, a, "ana"); x != nil {
		t.Fatal("a still runs ana after the handoff")
	}
	var player uint64
	var node string
	c.With(func(r *replica.Replica) { player, node = r.Player(), r.RegionNode() })
	if player != uint64(id) || node != "b" {
		t.Errorf("the client's avatar is %d on node %q after travel, want %d on b", player, node, id)
	}
	// The deity's region list, asked at a: every region with its node (read from
	// the control plane every lease period).
	waitFor(t, "a's region list does not name every region's node", 10*time.Second, func() bool {
		var list *pb.NetMessageRegionList
		a.inLoop(t, func() { list = a.regionList() })
		for _, r := range list.GetRegions() {
			if r.GetNode() != layout[r.GetName()] {
				return false
			}
		}
		return len(list.GetRegions()) == len(layout)
	})
	owner, _, err := b.cl.node.PlayerOwner(ctx, playerKey(sb.playerID))
	if err != nil || owner != "b" {
		t.Fatalf("the player's record says %q (%v); want b", owner, err)
	}

	// Inputs reach b through a's front door.
	dest := mustMarker(t, b.regionByName("wilds").game, gate.Marker).Add(mgl32.Vec2{5, 2})
	if err := c.MoveTo(dest); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the avatar did not walk in the wilds", 20*time.Second, func() bool {
		_ = c.Update()
		var at mgl32.Vec2
		b.inLoop(t, func() {
			if e := b.regionByName("wilds").game.Entity(id); e != nil {
				at = e.Pos()
			}
		})
		return at.Sub(dest).Len() < 0.5
	})

	// A logout saves the player on b, then releases it.
	pid := sb.playerID
	c.Close()
	waitFor(t, "the player's record was not released", 20*time.Second, func() bool {
		_, _, err := b.cl.node.PlayerOwner(ctx, playerKey(pid))
		return errors.Is(err, cluster.ErrNoOwner)
	})
	p, err := tc.store.Player(ctx, "ana")
	if err != nil {
		t.Fatal(err)
	}
	e, err := unpackAvatar(p.Avatar)
	if err != nil || e.Region() != b.regionByName("wilds").id {
		t.Fatalf("saved avatar: region %d (%v); want the wilds", e.Region(), err)
	}

	// The next login at a runs on b, in the wilds.
	c2 := loginAt(ctx, t, a, "ana")
	if _, name := c2.Region(); name != "wilds" {
		t.Errorf("logged in again at a: in %q, want the wilds", name)
	}
	if x, region, _ := sessionOf(t, b, "ana"); x == nil || region != "wilds" {
		t.Errorf("on b after the new login: %q", region)
	}
}

func mustMarker(t *testing.T, g *sim.Game, marker int32) mgl32.Vec2 {
	t.Helper()
	p, ok := g.MarkerPos(marker)
	if !ok {
		t.Fatalf("no marker %d", marker)
	}
	return p
}

// walkIntoWilds walks name's avatar, logged in at door a in downtown, through the
// park gate until its client c is in the wilds and ready; it returns the avatar.
func walkIntoWilds(t *testing.T, a *testServer, c *tfclient.Client, name string, gate world.Transition) sim.EntityID {
	t.Helper()
	sa, region, id := sessionOf(t, a, name)
	if sa == nil || region != "downtown" {
		t.Fatalf("%s runs on a in %q; want downtown", name, region)
	}
	a.inLoop(t, func() { must(t, a.hub().Teleport(id, gate.Pos.Sub(mgl32.Vec2{0, gate.Radius + 4}))) })
	if err := c.MoveTo(gate.Pos); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the client is not in the wilds", 30*time.Second, func() bool {
		_ = c.Update()
		_, name := c.Region()
		return name == "wilds" && c.Ready()
	})
	return id
}

// TestClusterTakeover: node b, which runs the wilds with a player in it, is cut
// off from NATS. Its lease runs out, node a takes the wilds over and restores
// them from b's last region save (their frame goes on from it, with no copy of
// the player in them), a's front door ends the client's session, and the player
// logs in again at a and continues in the wilds, run by a, once.
func TestClusterTakeover(t *testing.T) {
	layout := map[string]string{"downtown": "a", "wilds": "b", "vault": "b"}
	tc := startClusterWith(t, layout, func(_ string, c *Config) {
		c.Cluster.RegionSaveEvery, c.Cluster.Lease = 200*time.Millisecond, 2*time.Second
	}, "a", "b")
	a, b := tc.nodes["a"], tc.nodes["b"]
	gate := transitionNamed(t, a.world, "park-gate")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	c := loginAt(ctx, t, a, "ana")
	walkIntoWilds(t, a, c, "ana", gate)
	sb, _, _ := sessionOf(t, b, "ana")
	if sb == nil {
		t.Fatal("ana does not run on b")
	}
	owner := ownerOf(sb.playerID)
	// A save of the wilds holding the player, by b.
	var saved store.RegionSave
	waitFor(t, "b saved no wilds with the player in them", 20*time.Second, func() bool {
		sv, err := tc.store.Region(ctx, "wilds")
		if err != nil {
			return false
		}
		g, err := sim.Restore(a.world, sv.State, &sim.Options{Region: b.regionByName("wilds").id})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range g.Entities() {
			if e.Owner() == owner {
				saved = sv
				return true
			}
		}
		return false
	})

	// b saves no more, as if it crashed now: its last save holds the player.
	b.inLoop(t, func() { b.cl.cfg.RegionSaveEvery = time.Hour })
	if sv, err := tc.store.Region(ctx, "wilds"); err != nil || sv.Fence < saved.Fence || sv.Frame < saved.Frame {
		t.Fatalf("wilds save %+v %v", sv, err)
	} else {
		saved = sv
	}
	b.cl.nc.Close() // cut off: no heartbeat, no renewal, no messages

	waitFor(t, "a did not take the wilds over", 30*time.Second, func() bool { return tc.runs(t, a, "wilds") })
	var frame uint64
	var copies int
	a.inLoop(t, func() {
		g := a.regionByName("wilds").game
		frame = g.Frame()
		for _, e := range g.Entities() {
			if e.Owner() == owner {
				copies++
			}
		}
	})
	if frame < saved.Frame {
		t.Errorf("the wilds restored on a at frame %d, before b's save at %d", frame, saved.Frame)
	}
	if copies != 0 {
		t.Errorf("the restored wilds hold %d entities of the player before it logs in again", copies)
	}
	select {
	case <-c.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("a's front door did not end the session of a player whose node is gone")
	}

	c2 := loginAt(ctx, t, a, "ana")
	if _, name := c2.Region(); name != "wilds" {
		t.Fatalf("logged in again: in %q, want the wilds", name)
	}
	sa, region, _ := sessionOf(t, a, "ana")
	if sa == nil || region != "wilds" {
		t.Fatalf("on a: ana in %q, want the wilds", region)
	}
	copies = 0
	a.inLoop(t, func() {
		for _, e := range a.regionByName("wilds").game.Entities() {
			if e.Owner() == owner {
				copies++
			}
		}
	})
	if copies != 1 {
		t.Errorf("the player has %d entities in the wilds, want 1", copies)
	}
	if o, _, err := a.cl.node.PlayerOwner(ctx, playerKey(sa.playerID)); err != nil || o != "a" {
		t.Errorf("the player's record: %q %v, want a", o, err)
	}
}

// TestClusterHandoffRefused: the node that owns the target region refuses the
// player (here: it does not step the region it holds). The player's record comes
// back to the source, its avatar is put back where it left, once, and the client
// stays, still walking; with the target running again, the next try succeeds.
func TestClusterHandoffRefused(t *testing.T) {
	layout := map[string]string{"downtown": "a", "wilds": "b", "vault": "b"}
	tc := startCluster(t, layout, "a", "b")
	a, b := tc.nodes["a"], tc.nodes["b"]
	gate := transitionNamed(t, a.world, "park-gate")
	setLive := func(live bool) {
		b.inLoop(t, func() {
			b.regionByName("wilds").live = live
			b.setLive()
		})
	}
	setLive(false)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := loginAt(ctx, t, a, "ana")
	sa, _, id := sessionOf(t, a, "ana")
	a.inLoop(t, func() { must(t, a.hub().Teleport(id, gate.Pos.Sub(mgl32.Vec2{0, gate.Radius + 4}))) })
	if err := c.MoveTo(gate.Pos); err != nil {
		t.Fatal(err)
	}
	refused := func() float64 { return counterValue(t, a.metrics.handoffs.WithLabelValues("refused")) }
	waitFor(t, "no handoff was refused", 20*time.Second, func() bool { return refused() > 0 })
	waitFor(t, "the avatar is not back downtown", 10*time.Second, func() bool {
		x, region, back := sessionOf(t, a, "ana")
		if x == sa && region == "downtown" {
			id = back
			return true
		}
		return false
	})
	if owner, _, err := a.cl.node.PlayerOwner(ctx, playerKey(sa.playerID)); err != nil || owner != "a" {
		t.Fatalf("after the refusal the record says %q (%v), want a", owner, err)
	}
	if x, _, _ := sessionOf(t, b, "ana"); x != nil {
		t.Fatal("b runs the player it refused")
	}
	var n int
	a.inLoop(t, func() {
		for _, e := range a.hub().Entities() {
			if e.ID() == id {
				n++
			}
		}
	})
	if n != 1 {
		t.Fatalf("the avatar is %d times downtown", n)
	}
	var st replica.Stats
	waitFor(t, "the client has no avatar after the refusal", 10*time.Second, func() bool {
		_ = c.Update()
		c.With(func(r *replica.Replica) { st = r.Stats() })
		return c.Ready()
	})
	if st.ResyncRequests != 0 || st.Errors != 0 {
		t.Errorf("the refusal made the client resync: %+v", st)
	}
	if got := refused(); got != 1 {
		t.Errorf("%v handoffs refused; want 1 (an avatar put back in the portal stays until it walks out and in)", got)
	}
	setLive(true)
	// Out of the portal and in again.
	out := gate.Pos.Sub(mgl32.Vec2{0, gate.Radius + 4})
	a.inLoop(t, func() { must(t, a.hub().Teleport(id, out)) })
	a.inLoop(t, func() {}) // a frame later
	if err := c.MoveTo(gate.Pos); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the client is not in the wilds", 30*time.Second, func() bool {
		_ = c.Update()
		_, name := c.Region()
		return name == "wilds" && c.Ready()
	})
}

// loginAt logs name in at node s's front door and waits until its client is
// ready; the client closes at the test's end.
func loginAt(ctx context.Context, t testing.TB, s *testServer, name string) *tfclient.Client {
	t.Helper()
	c, err := tfclient.Dial(ctx, s.url, &tfclient.Options{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestClusterNodeStops: node b, which runs a player whose client is connected to
// node a, stops gracefully. The player is saved and its record released, and a's
// front door closes the client with the shutdown code, so that it logs in again.
func TestClusterNodeStops(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	a, b, c, sb := relayedToB(ctx, t, "ana")
	pid := sb.playerID
	b.stop(t)
	select {
	case <-c.Done():
	case <-time.After(15 * time.Second):
		t.Fatal("the client of a player whose node stopped is still open 15 s later")
	}
	if err := c.Err(); err == nil || !strings.Contains(err.Error(), "shutting down") {
		t.Errorf("client ended with %v, want the server's shutdown", err)
	}
	if _, _, err := a.cl.node.PlayerOwner(ctx, playerKey(pid)); !errors.Is(err, cluster.ErrNoOwner) {
		t.Errorf("the player's record after b stopped: %v, want released", err)
	}
}

// TestClusterDoorEndsStrayedSession: a front door relaying a client to a node
// that no longer owns its player (the node ended the session and its close was
// lost; here the record is released behind the node's back) ends the client at
// its second look at the record, rather than relay to nothing for ever.
func TestClusterDoorEndsStrayedSession(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	a, _, c, sb := relayedToB(ctx, t, "sol")
	key := playerKey(sb.playerID)
	_, rev, err := a.cl.node.PlayerOwner(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.cl.node.ReleasePlayer(ctx, key, rev); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Done():
	case <-time.After(4 * cluster.DefaultLease):
		t.Fatal("the client is still open four lease periods after its player's record was released")
	}
	if err := c.Err(); err == nil || !strings.Contains(err.Error(), "no longer runs on node b") {
		t.Errorf("client ended with %v, want the front door's reason", err)
	}
}

// TestClusterNodeEndsUnheldSession: a node running a player for a front door
// that no longer relays its client (the door's close was lost; here the door
// forgets the session behind the node's back) ends the session at its second
// look at the door, saving and releasing the player, rather than keep it in the
// game until it logs in again.
func TestClusterNodeEndsUnheldSession(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	a, _, _, sb := relayedToB(ctx, t, "kai")
	a.cl.mu.Lock()
	forgotten := 0
	for id, x := range a.cl.doors {
		if x.name == "kai" {
			delete(a.cl.doors, id)
			forgotten++
		}
	}
	a.cl.mu.Unlock()
	if forgotten != 1 {
		t.Fatalf("%d door sessions of kai at a, want 1", forgotten)
	}
	select {
	case <-sb.ctx.Done():
	case <-time.After(4 * cluster.DefaultLease):
		t.Fatal("b still runs kai four lease periods after its front door forgot the client")
	}
	waitFor(t, "kai's record released", 2*cluster.DefaultLease, func() bool {
		_, _, err := a.cl.node.PlayerOwner(ctx, playerKey(sb.playerID))
		return errors.Is(err, cluster.ErrNoOwner)
	})
}

// relayedToB starts nodes a (downtown) and b (the wilds, the vault), logs name in
// at a and walks it into the wilds: its client stays on a's front door, its
// session runs on b (sb).
func relayedToB(ctx context.Context, t *testing.T, name string) (a, b *testServer, c *tfclient.Client, sb *session) {
	t.Helper()
	layout := map[string]string{"downtown": "a", "wilds": "b", "vault": "b"}
	tc := startCluster(t, layout, "a", "b")
	a, b = tc.nodes["a"], tc.nodes["b"]
	c = loginAt(ctx, t, a, name)
	walkIntoWilds(t, a, c, name, transitionNamed(t, a.world, "park-gate"))
	if sb, _, _ = sessionOf(t, b, name); sb == nil {
		t.Fatalf("%s does not run on b", name)
	}
	return a, b, c, sb
}
