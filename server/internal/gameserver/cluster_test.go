package gameserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	tfclient "github.com/twinframe/twinframe/client"
	"github.com/twinframe/twinframe/internal/natstest"
	"github.com/twinframe/twinframe/internal/pgtest"
	"github.com/twinframe/twinframe/server/internal/cluster"
	"github.com/twinframe/twinframe/server/internal/store"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/sim"
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
func startCluster(t *testing.T, layout map[string]string, names ...string) *testCluster {
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
			c.Cluster = &ClusterConfig{URL: tc.nats.URL(), Node: n, Lease: time.Second, Preferred: layout}
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
func (tc *testCluster) runs(t *testing.T, s *testServer, region string) bool {
	var live bool
	s.inLoop(t, func() { live = s.regionByName(region).live })
	return live
}

// sessionOf returns the loop's session of name on s, or nil.
func sessionOf(t *testing.T, s *testServer, name string) (c *session, region string, avatar sim.EntityID) {
	s.inLoop(t, func() {
		if x := s.byName[name]; x != nil && x.joined && x.reg != nil {
			c, region, avatar = x, x.reg.name, x.avatar
		}
	})
	return
}

func waitFor(t *testing.T, what string, d time.Duration, ok func() bool) {
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
	c, err := tfclient.Dial(ctx, a.url, &tfclient.Options{Name: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	sa, region, id := sessionOf(t, a, "ana")
	if sa == nil || region != "downtown" {
		t.Fatalf("ana runs on a in %q; want downtown", region)
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
	sb, region, idb := sessionOf(t, b, "ana")
	if sb == nil || region != "wilds" || idb != id {
		t.Fatalf("on b: ana in %q as %d; want wilds as %d", region, idb, id)
	}
	if x, _, _ := sessionOf(t, a, "ana"); x != nil {
		t.Fatal("a still runs ana after the handoff")
	}
	var player uint64
	c.With(func(r *replica.Replica) { player = r.Player() })
	if player != uint64(id) {
		t.Errorf("the client's avatar is %d after travel, want %d", player, id)
	}
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
	c2, err := tfclient.Dial(ctx, a.url, &tfclient.Options{Name: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if err := c2.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
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
