package cluster

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/twinframe/twinframe/internal/natstest"
)

// TestMain checks, after all tests, that no node left a goroutine behind.
func TestMain(m *testing.M) {
	code := natstest.Run(m)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutines left behind:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// testLease is short so that expiry and takeover happen within a test; the tests
// wait for conditions, never for a fixed time.
const testLease = time.Second

// waitTimeout bounds every wait for a condition: a hung test fails, a slow one
// does not.
const waitTimeout = time.Minute

// events records a node's events.
type events struct {
	mu  sync.Mutex
	all []Event
}

func (e *events) add(ev Event) { e.mu.Lock(); e.all = append(e.all, ev); e.mu.Unlock() }

// find returns the first event of kind for region ("" for any region).
func (e *events) find(kind EventKind, region string) (Event, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, ev := range e.all {
		if ev.Kind == kind && (region == "" || ev.Region == region) {
			return ev, true
		}
	}
	return Event{}, false
}

// observer samples the nodes' leases and checks that no two nodes ever owned a
// region at the same instant: each lease is a span [Since, latest Until seen], and
// spans of one region held by different nodes must not overlap.
type observer struct {
	nodes []*Node
	mu    sync.Mutex
	spans map[spanKey]time.Time // → latest Until seen
	stop  chan struct{}
	done  chan struct{}
}

type spanKey struct {
	node, region string
	since        time.Time
}

func observe(nodes ...*Node) *observer {
	o := &observer{nodes: nodes, spans: map[spanKey]time.Time{}, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(o.done)
		for {
			o.sample()
			select {
			case <-o.stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return o
}

func (o *observer) sample() {
	for _, n := range o.nodes {
		for _, l := range n.Owned() {
			k := spanKey{n.Name(), l.Region, l.Since}
			o.mu.Lock()
			if l.Until.After(o.spans[k]) {
				o.spans[k] = l.Until
			}
			o.mu.Unlock()
		}
	}
}

// check stops the sampling and fails t for every pair of overlapping spans.
func (o *observer) check(t *testing.T) {
	t.Helper()
	close(o.stop)
	<-o.done
	var ks []spanKey
	for k := range o.spans {
		ks = append(ks, k)
	}
	for i, a := range ks {
		for _, b := range ks[i+1:] {
			if a.region != b.region || a.node == b.node {
				continue
			}
			if a.since.Before(o.spans[b]) && b.since.Before(o.spans[a]) {
				t.Errorf("region %s owned by %s [%v, %v] and %s [%v, %v] at once", a.region,
					a.node, a.since.Format(time.StampMicro), o.spans[a].Format(time.StampMicro),
					b.node, b.since.Format(time.StampMicro), o.spans[b].Format(time.StampMicro))
			}
		}
	}
	if len(ks) == 0 {
		t.Error("the observer saw no lease")
	}
}

// waitFor waits until cond holds, failing t with what after waitTimeout.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// join starts a node and closes it at the test's end.
func join(t *testing.T, url, name string, regions []string, preferred map[string]string) (*Node, *events) {
	t.Helper()
	ev := &events{}
	n, err := Join(context.Background(), Config{URL: url, Node: name, Regions: regions, Preferred: preferred, Lease: testLease, Notify: ev.add})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close(context.Background()) })
	return n, ev
}

// soleOwners reports whether every region is owned by exactly one node, and that
// node is the one the regions bucket names.
func soleOwners(regions []string, nodes ...*Node) bool {
	for _, r := range regions {
		var owners []string
		for _, n := range nodes {
			if _, ok := n.Owns(r); ok {
				owners = append(owners, n.Name())
			}
		}
		if len(owners) != 1 {
			return false
		}
		owner, _, err := nodes[0].Owner(context.Background(), r)
		if err != nil || owner != owners[0] {
			return false
		}
	}
	return true
}

// TestRace: nodes started together race for the same regions; each region ends up
// with exactly one owner, no region ever has two, and the owners keep renewing.
func TestRace(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		nodes   int
		regions []string
	}{
		{"two nodes, three regions", 2, []string{"downtown", "wilds", "vault"}},
		{"three nodes, five regions", 3, []string{"r1", "r2", "r3", "r4", "r5"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := natstest.Start(t)
			nodes := make([]*Node, tc.nodes)
			var wg sync.WaitGroup
			for i := range nodes {
				wg.Go(func() { nodes[i], _ = join(t, srv.URL(), "node"+strconv.Itoa(i), tc.regions, nil) })
			}
			wg.Wait()
			o := observe(nodes...)
			waitFor(t, "every region has one owner", func() bool { return soleOwners(tc.regions, nodes...) })
			// Let every lease be renewed a few times (its revision moves on with each
			// renewal of any key, so wait for the regions' revisions to pass a mark).
			_, mark, _ := nodes[0].Owner(context.Background(), tc.regions[len(tc.regions)-1])
			waitFor(t, "the leases are renewed", func() bool {
				for _, r := range tc.regions {
					if _, rev, err := nodes[0].Owner(context.Background(), r); err != nil || rev < mark+uint64(3*len(tc.regions)) {
						return false
					}
				}
				return true
			})
			o.check(t)
			if !soleOwners(tc.regions, nodes...) {
				t.Error("a region lost its owner while nothing failed")
			}
		})
	}
}

// TestTakeover: a node whose lease is not renewed, or whose record someone else
// overwrote, is told it lost the region, and the other node takes it over.
func TestTakeover(t *testing.T) {
	t.Parallel()
	regions := []string{"downtown", "wilds", "vault"}
	for _, tc := range []struct {
		name string
		act  func(t *testing.T, a *Node)
		why  error
	}{
		{"stops renewing", func(t *testing.T, a *Node) { a.setPaused(true) }, ErrLeaseExpired},
		{"record overwritten", func(t *testing.T, a *Node) {
			// Another writer puts its name on the record: a's next renewal finds a
			// revision it did not write.
			if _, err := a.regions.Put(context.Background(), "wilds", []byte("intruder")); err != nil {
				t.Fatal(err)
			}
		}, ErrLeaseTaken},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := natstest.Start(t)
			a, aev := join(t, srv.URL(), "a", regions, nil)
			waitFor(t, "a owns every region", func() bool { return soleOwners(regions, a) })
			b, _ := join(t, srv.URL(), "b", regions, nil)
			o := observe(a, b)
			tc.act(t, a)
			waitFor(t, "a is told it lost wilds", func() bool { _, ok := aev.find(Lost, "wilds"); return ok })
			if ev, _ := aev.find(Lost, "wilds"); !errors.Is(ev.Err, tc.why) {
				t.Errorf("a lost wilds because %v, want %v", ev.Err, tc.why)
			}
			if _, ok := a.Owns("wilds"); ok {
				t.Error("a still owns wilds after being told it lost it")
			}
			// Nobody renews the intruder's record: it expires, and a or b claims wilds.
			waitFor(t, "wilds has one owner again", func() bool { return soleOwners(regions, a, b) })
			o.check(t)
		})
	}
}

// TestPreferred: each node claims the regions preferred to it; a region's
// preferred node leaving hands it to the other.
func TestPreferred(t *testing.T) {
	t.Parallel()
	srv := natstest.Start(t)
	regions := []string{"downtown", "wilds", "vault"}
	pref := map[string]string{"downtown": "a", "wilds": "b", "vault": "b"}
	// b joins first: without preferences it would take everything first-come. The
	// grace for an absent preferred node (two leases) is far longer than a's join.
	b, _ := join(t, srv.URL(), "b", regions, pref)
	a, _ := join(t, srv.URL(), "a", regions, pref)
	o := observe(a, b)
	waitFor(t, "each node owns its preferred regions", func() bool {
		_, ad := a.Owns("downtown")
		_, bw := b.Owns("wilds")
		_, bv := b.Owns("vault")
		return ad && bw && bv && soleOwners(regions, a, b)
	})
	if got, _ := b.Members(context.Background()); strings.Join(got, ",") != "a,b" {
		t.Errorf("members %v, want [a b]", got)
	}
	want := map[string]string{"a": a.Incarnation(), "b": b.Incarnation()}
	if got, err := a.Incarnations(context.Background()); err != nil || !maps.Equal(got, want) || want["a"] == want["b"] || len(want["a"]) != 16 {
		t.Errorf("incarnations %v, %v; want %v, two different 16-digit ids", got, err, want)
	}
	if err := b.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a owns every region after b left", func() bool { return soleOwners(regions, a) })
	o.check(t)
	if got, _ := a.Members(context.Background()); strings.Join(got, ",") != "a" {
		t.Errorf("members %v after b left, want [a]", got)
	}
}

// TestPlayerCAS: two nodes take the same player at once; exactly one wins, each
// time, for the claim, the move and the release.
func TestPlayerCAS(t *testing.T) {
	t.Parallel()
	srv := natstest.Start(t)
	a, _ := join(t, srv.URL(), "a", nil, nil)
	b, _ := join(t, srv.URL(), "b", nil, nil)
	ctx := context.Background()
	nodes := []*Node{a, b}
	for round := range 20 {
		player := "p" + strconv.Itoa(round)
		var revs [2]uint64
		var errs [2]error
		race := func(f func(i int, n *Node) (uint64, error)) (winner int) {
			var wg sync.WaitGroup
			for i, n := range nodes {
				wg.Go(func() { revs[i], errs[i] = f(i, n) })
			}
			wg.Wait()
			winner = -1
			for i, err := range errs {
				if err == nil {
					if winner >= 0 {
						t.Fatalf("%s: both nodes won", player)
					}
					winner = i
				}
			}
			if winner < 0 {
				t.Fatalf("%s: no node won: %v", player, errs)
			}
			return winner
		}
		w := race(func(_ int, n *Node) (uint64, error) { return n.ClaimPlayer(ctx, player) })
		if !errors.Is(errs[1-w], ErrTaken) {
			t.Errorf("%s: loser's claim: %v, want ErrTaken", player, errs[1-w])
		}
		owner, rev, err := a.PlayerOwner(ctx, player)
		if err != nil || owner != nodes[w].Name() || rev != revs[w] {
			t.Fatalf("%s: owner %q@%d %v, want %s@%d", player, owner, rev, err, nodes[w].Name(), revs[w])
		}
		// Both try to move the player to themselves from the revision they read.
		w = race(func(_ int, n *Node) (uint64, error) { return n.MovePlayer(ctx, player, n.Name(), rev) })
		if !errors.Is(errs[1-w], ErrConflict) {
			t.Errorf("%s: loser's move: %v, want ErrConflict", player, errs[1-w])
		}
		if owner, _, _ := b.PlayerOwner(ctx, player); owner != nodes[w].Name() {
			t.Errorf("%s: owner %q after the move, want %s", player, owner, nodes[w].Name())
		}
		if err := a.ReleasePlayer(ctx, player, rev); !errors.Is(err, ErrConflict) {
			t.Errorf("%s: release at a stale revision: %v, want ErrConflict", player, err)
		}
		if err := a.ReleasePlayer(ctx, player, revs[w]); err != nil {
			t.Errorf("%s: release: %v", player, err)
		}
		if _, _, err := a.PlayerOwner(ctx, player); !errors.Is(err, ErrNoOwner) {
			t.Errorf("%s: owner after release: %v, want ErrNoOwner", player, err)
		}
	}
}

// TestNATSKilled: kill -9 of the NATS server while leases are held; the nodes
// report failed renewals, stop owning their regions when the leases run out, and
// after a restart reconnect and own every region once again.
func TestNATSKilled(t *testing.T) {
	t.Parallel()
	srv := natstest.Start(t)
	regions := []string{"downtown", "wilds", "vault"}
	a, aev := join(t, srv.URL(), "a", regions, nil)
	b, bev := join(t, srv.URL(), "b", regions, nil)
	o := observe(a, b)
	waitFor(t, "every region has one owner", func() bool { return soleOwners(regions, a, b) })
	srv.Kill()
	waitFor(t, "a renewal fails", func() bool {
		_, af := aev.find(RenewFailed, "")
		_, bf := bev.find(RenewFailed, "")
		return af || bf
	})
	ev, ok := aev.find(RenewFailed, "")
	if !ok {
		ev, _ = bev.find(RenewFailed, "")
	}
	if !strings.Contains(ev.Err.Error(), srv.URL()) {
		t.Errorf("renewal failure %q does not name the server %s", ev.Err, srv.URL())
	}
	waitFor(t, "no node owns a region while NATS is down", func() bool { return len(a.Owned())+len(b.Owned()) == 0 })
	srv.Restart()
	waitFor(t, "every region has one owner after the restart", func() bool { return soleOwners(regions, a, b) })
	waitFor(t, "both nodes are members again", func() bool {
		m, err := a.Members(context.Background())
		return err == nil && strings.Join(m, ",") == "a,b"
	})
	o.check(t)
}

// TestJoinErrors: a node that cannot join says what and where.
func TestJoinErrors(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	nobody := "nats://" + l.Addr().String()
	l.Close()
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"unreachable", Config{URL: nobody, Node: "a"}, "cluster: " + nobody + ": connect: "},
		{"no url", Config{Node: "a"}, "cluster: no NATS URL"},
		{"bad node name", Config{URL: nobody, Node: "a.b"}, `cluster: node name "a.b"`},
		{"bad region name", Config{URL: nobody, Node: "a", Regions: []string{"wilds", "*"}}, `cluster: region name "*"`},
		{"short lease", Config{URL: nobody, Node: "a", Lease: time.Millisecond}, "cluster: lease 1ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			n, err := Join(context.Background(), tc.cfg)
			if err == nil {
				n.Close(context.Background())
				t.Fatal("joined")
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %q, want it to start with %q", err, tc.want)
			}
		})
	}
}

// TestJoinRefusals: a taken node name and a lease period other than the cluster's
// are refused, with the reason.
func TestJoinRefusals(t *testing.T) {
	t.Parallel()
	srv := natstest.Start(t)
	join(t, srv.URL(), "a", nil, nil)
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"name taken", Config{URL: srv.URL(), Node: "a", Lease: testLease}, "already owned by a live member"},
		{"other lease", Config{URL: srv.URL(), Node: "b", Lease: 2 * testLease}, "bucket members exists with TTL 1s, this node wants 2s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := Join(context.Background(), tc.cfg)
			if err == nil {
				n.Close(context.Background())
				t.Fatal("joined")
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), srv.URL()) {
				t.Errorf("error %q, want it to name %s and say %q", err, srv.URL(), tc.want)
			}
		})
	}
}

// BenchmarkClaimRenew measures a claim (Create) and one renewal (Update) of a
// region lease on loopback: the round trips a node pays per region.
func BenchmarkClaimRenew(b *testing.B) {
	srv := natstest.Start(b)
	n, err := Join(context.Background(), Config{URL: srv.URL(), Node: "bench", Lease: 10 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer n.Close(context.Background())
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		key := "r" + strconv.Itoa(i)
		i++
		rev, err := n.regions.Create(ctx, key, []byte("bench"))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := n.regions.Update(ctx, key, []byte("bench"), rev); err != nil {
			b.Fatal(err)
		}
	}
}

// TestReleaseStalePlayers: a node that joins again under the same name releases
// the player records its earlier process left, and only those.
func TestReleaseStalePlayers(t *testing.T) {
	t.Parallel()
	srv := natstest.Start(t)
	ctx := context.Background()
	a, _ := join(t, srv.URL(), "a", nil, nil)
	b, _ := join(t, srv.URL(), "b", nil, nil)
	for _, p := range []string{"p1", "p2"} {
		if _, err := a.ClaimPlayer(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.ClaimPlayer(ctx, "p3"); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(ctx); err != nil { // its records stay, as after a crash
		t.Fatal(err)
	}
	again, _ := join(t, srv.URL(), "a", nil, nil)
	if k, err := again.ReleaseStalePlayers(ctx); err != nil || k != 2 {
		t.Fatalf("ReleaseStalePlayers: %d, %v; want 2", k, err)
	}
	for p, want := range map[string]string{"p1": "", "p2": "", "p3": "b"} {
		owner, _, err := b.PlayerOwner(ctx, p)
		if want == "" && !errors.Is(err, ErrNoOwner) || want != "" && owner != want {
			t.Errorf("%s: owner %q (%v), want %q", p, owner, err, want)
		}
	}
	if k, err := again.ReleaseStalePlayers(ctx); err != nil || k != 0 {
		t.Errorf("ReleaseStalePlayers again: %d, %v; want 0", k, err)
	}
}
