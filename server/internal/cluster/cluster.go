// Package cluster is the control plane of a world whose regions run on several
// server processes ("nodes"), over NATS JetStream key-value buckets (docs/ARCHITECTURE.md
// §7: one game per region, so a region is the unit a node owns). It answers three
// questions every node must agree on, and nothing else — no game state passes here:
//
//   - Who is alive: bucket "members", one key per node, its value (the process's
//     incarnation, so that a restart under the same name shows) kept fresh by a
//     heartbeat. The bucket has a TTL (JetStream's MaxAge on the bucket's stream), so
//     the key of a node that stops beating vanishes by itself. One TTL for the whole
//     bucket rather than a TTL per key: every node beats at the same cluster-wide
//     period, and the bucket-wide age needs no per-message TTL support and no
//     markers.
//   - Who runs each region: bucket "regions", key = region name, value = owner node.
//     A node claims a region with a compare-and-set Create (only when no live
//     record exists) and renews it as a lease with Update at the revision it last
//     wrote. The bucket's TTL is the lease period: a record not renewed in time
//     expires, and another node may then Create it. First-come with leases rather
//     than a static map, because a static map cannot move a dead node's regions;
//     Config.Preferred layers a static intent on top (the preferred node claims
//     at once, others only after it has been absent from the members for two lease
//     periods), so a planned layout and takeover after a failure are one mechanism.
//   - Who owns each player: bucket "players", key = player, value = node, with no
//     TTL (a player's ownership changes only by a compare-and-set that the handoff
//     makes, never by time).
//
// Safety of the lease: a node counts a region as its own only until the send time of
// its last confirmed renewal plus the lease period, less a margin (Lease.Until). The
// server stamps the record after that send, so the record expires no earlier; a
// node that cannot renew stops owning the region before anyone else can claim it.
// Owns is the authority; the Lost event is the notice, sent by the node's loop at
// its next tick. Renewal failures that are not a lost lease (NATS unreachable) are
// reported as RenewFailed and retried; the node recovers when the server returns.
// The buckets use file storage so that a restarted NATS server still holds the
// leases: with memory storage a restart would forget them while their holders still
// count them as theirs.
package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The buckets' names.
const (
	MembersBucket = "members"
	RegionsBucket = "regions"
	PlayersBucket = "players"
)

// DefaultLease is the lease period when Config.Lease is zero.
const DefaultLease = 3 * time.Second

var (
	// ErrTaken: the region, player or node name already has a live owner.
	ErrTaken = errors.New("already owned")
	// ErrConflict: a compare-and-set found another revision than the one given.
	ErrConflict = errors.New("revision changed")
	// ErrNoOwner: the region or player has no live owner.
	ErrNoOwner = errors.New("no owner")
	// ErrLeaseTaken: a renewal found the region's record changed by someone else.
	ErrLeaseTaken = errors.New("lease taken by another node")
	// ErrLeaseExpired: the lease ran out before a renewal got through.
	ErrLeaseExpired = errors.New("lease expired without renewal")
	// ErrClosed: the node left the cluster and gave up its regions.
	ErrClosed = errors.New("node closed")
)

// Config says how a node joins the cluster.
type Config struct {
	URL       string            // the NATS server, nats://HOST:PORT (several, comma-separated)
	Node      string            // this node's name, unique among live members
	Regions   []string          // the regions this node may run
	Preferred map[string]string // region → node that claims it first (optional)
	Lease     time.Duration     // the lease and heartbeat period; DefaultLease when zero
	Replicas  int               // the buckets' replicas (1 when zero; 3 on a NATS cluster of three)
	// Notify, when set, is told of every change of this node's regions and of
	// renewal failures. It runs on the node's loop: it must not block.
	Notify func(Event)
}

// EventKind says what an Event reports.
type EventKind int

const (
	Gained      EventKind = iota // the node now owns the region
	Lost                         // the node no longer owns the region; Err says why
	RenewFailed                  // a renewal did not get through; the lease runs until Until
)

func (k EventKind) String() string {
	switch k {
	case Gained:
		return "gained"
	case Lost:
		return "lost"
	case RenewFailed:
		return "renew failed"
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// Event is a change of one of the node's regions.
type Event struct {
	Kind   EventKind
	Region string
	Lease  Lease // the lease as it stood
	Err    error // why, for Lost and RenewFailed
}

// Lease is a region the node owns.
type Lease struct {
	Region   string
	Revision uint64    // the record's revision, the fencing token of this ownership
	Since    time.Time // when the claim got through
	Until    time.Time // the node owns the region until then unless a renewal extends it
}

// Node is one server process in the cluster.
type Node struct {
	cfg                     Config
	lease, margin, grace    time.Duration
	nc                      *nats.Conn
	members, regions, plays jetstream.KeyValue

	// incarnation tells this process from earlier and later ones of the same
	// name: a peer that sees it change knows the node restarted, and that the
	// sessions it had with the old process are gone with it.
	incarnation string

	mu        sync.Mutex
	leases    map[string]*Lease
	memberRev uint64
	paused    bool                 // tests: renewals stop as if the node were cut off
	absent    map[string]time.Time // preferred nodes seen absent, since when

	stop chan struct{}
	done chan struct{}
}

// Join connects to NATS, opens (or creates) the buckets, registers cfg.Node as a
// member and starts the loop that beats, renews and claims. A node name already
// held by a live member is refused (ErrTaken).
func Join(ctx context.Context, cfg Config) (*Node, error) {
	if cfg.Lease == 0 {
		cfg.Lease = DefaultLease
	}
	if cfg.Replicas == 0 {
		cfg.Replicas = 1
	}
	if err := checkConfig(&cfg); err != nil {
		return nil, err
	}
	var inc [8]byte
	if _, err := rand.Read(inc[:]); err != nil {
		return nil, fmt.Errorf("cluster: incarnation: %w", err)
	}
	n := &Node{cfg: cfg, lease: cfg.Lease, margin: cfg.Lease / 8, grace: 2 * cfg.Lease,
		incarnation: hex.EncodeToString(inc[:]), leases: map[string]*Lease{}, absent: map[string]time.Time{},
		stop: make(chan struct{}), done: make(chan struct{})}
	nc, err := nats.Connect(cfg.URL, nats.Name("twinframe node "+cfg.Node),
		nats.MaxReconnects(-1), nats.ReconnectWait(cfg.Lease/8), nats.Timeout(cfg.Lease))
	if err != nil {
		return nil, fmt.Errorf("cluster: %s: connect: %w", cfg.URL, err)
	}
	n.nc = nc
	if err := n.open(ctx); err != nil {
		nc.Close()
		return nil, fmt.Errorf("cluster: %s: %w", cfg.URL, err)
	}
	rev, err := n.members.Create(ctx, cfg.Node, []byte(n.incarnation))
	if err != nil {
		nc.Close()
		if errors.Is(err, jetstream.ErrKeyExists) {
			return nil, fmt.Errorf("cluster: %s: node %q: %w by a live member", cfg.URL, cfg.Node, ErrTaken)
		}
		return nil, fmt.Errorf("cluster: %s: join as %q: %w", cfg.URL, cfg.Node, err)
	}
	n.memberRev = rev
	go n.loop()
	return n, nil
}

// checkConfig refuses what the buckets would refuse later, with the field named.
func checkConfig(cfg *Config) error {
	if cfg.URL == "" {
		return errors.New("cluster: no NATS URL")
	}
	if !validKey(cfg.Node) {
		return fmt.Errorf("cluster: node name %q: want letters, digits, '-', '_', '='", cfg.Node)
	}
	for _, r := range cfg.Regions {
		if !validKey(r) {
			return fmt.Errorf("cluster: region name %q: want letters, digits, '-', '_', '='", r)
		}
	}
	if cfg.Lease < 100*time.Millisecond {
		return fmt.Errorf("cluster: lease %v: want at least 100ms", cfg.Lease)
	}
	return nil
}

// validKey reports whether s is a single-token KV key (no dots: a dot would make it
// a subject hierarchy, and wildcards would match across names).
func validKey(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '=') {
			return false
		}
	}
	return true
}

// open creates the buckets, or opens them when another node did; a bucket that
// exists with another lease period is refused, since nodes disagreeing on the
// lease would break its safety.
func (n *Node) open(ctx context.Context) error {
	js, err := jetstream.New(n.nc)
	if err != nil {
		return err
	}
	bucket := func(name string, ttl time.Duration) (jetstream.KeyValue, error) {
		kv, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: name, TTL: ttl, History: 1,
			Storage: jetstream.FileStorage, Replicas: n.cfg.Replicas})
		if errors.Is(err, jetstream.ErrBucketExists) {
			if kv, err2 := js.KeyValue(ctx, name); err2 == nil {
				if st, err3 := kv.Status(ctx); err3 == nil {
					return nil, fmt.Errorf("bucket %s exists with TTL %v, this node wants %v (all nodes need the same -lease)", name, st.TTL(), ttl)
				}
			}
		}
		if err != nil {
			return nil, fmt.Errorf("bucket %s: %w", name, err)
		}
		return kv, nil
	}
	if n.members, err = bucket(MembersBucket, n.lease); err != nil {
		return err
	}
	if n.regions, err = bucket(RegionsBucket, n.lease); err != nil {
		return err
	}
	n.plays, err = bucket(PlayersBucket, 0)
	return err
}

// Name is the node's name.
func (n *Node) Name() string { return n.cfg.Node }

// Incarnation is this process's id among the processes that ran as this node:
// random, fixed from Join on.
func (n *Node) Incarnation() string { return n.incarnation }

// Close stops the loop, gives up the node's regions (each a Lost event with
// ErrClosed) so that other nodes may claim them at once, leaves the members and
// closes the connection.
func (n *Node) Close(ctx context.Context) error {
	select {
	case <-n.stop:
		return nil
	default:
	}
	close(n.stop)
	<-n.done
	var errs []error
	n.mu.Lock()
	var gone []Lease
	for _, l := range n.leases {
		gone = append(gone, *l)
	}
	clear(n.leases)
	memberRev := n.memberRev
	n.mu.Unlock()
	for _, l := range gone {
		n.notify(Event{Kind: Lost, Region: l.Region, Lease: l, Err: ErrClosed})
		if err := n.regions.Delete(ctx, l.Region, jetstream.LastRevision(l.Revision)); err != nil {
			errs = append(errs, fmt.Errorf("release region %s: %w", l.Region, err))
		}
	}
	if err := n.members.Delete(ctx, n.cfg.Node, jetstream.LastRevision(memberRev)); err != nil {
		errs = append(errs, fmt.Errorf("leave members: %w", err))
	}
	n.nc.Close()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("cluster: %s: close node %s: %w", n.cfg.URL, n.cfg.Node, err)
	}
	return nil
}

// Owns reports whether the node owns region now, and the revision of its lease.
func (n *Node) Owns(region string) (uint64, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	l := n.leases[region]
	if l == nil || !time.Now().Before(l.Until) {
		return 0, false
	}
	return l.Revision, true
}

// Owned returns the leases the node holds now, by region name.
func (n *Node) Owned() []Lease {
	now := time.Now()
	n.mu.Lock()
	var ls []Lease
	for _, l := range n.leases {
		if now.Before(l.Until) {
			ls = append(ls, *l)
		}
	}
	n.mu.Unlock()
	slices.SortFunc(ls, func(a, b Lease) int {
		if a.Region < b.Region {
			return -1
		}
		if a.Region > b.Region {
			return 1
		}
		return 0
	})
	return ls
}

// Owner returns the node the regions bucket names as region's owner, and the
// record's revision; ErrNoOwner when there is none.
func (n *Node) Owner(ctx context.Context, region string) (string, uint64, error) {
	return n.get(ctx, n.regions, "region", region)
}

// Members returns the names of the live nodes, sorted.
func (n *Node) Members(ctx context.Context) ([]string, error) {
	keys, err := n.members.Keys(ctx)
	if errors.Is(err, jetstream.ErrNoKeysFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cluster: %s: members: %w", n.cfg.URL, err)
	}
	slices.Sort(keys)
	return keys, nil
}

// Incarnations returns the live nodes' incarnations by name.
func (n *Node) Incarnations(ctx context.Context) (map[string]string, error) {
	w, err := n.members.WatchAll(ctx, jetstream.IgnoreDeletes())
	if err != nil {
		return nil, fmt.Errorf("cluster: %s: members: %w", n.cfg.URL, err)
	}
	defer func() { _ = w.Stop() }()
	incs := map[string]string{}
	for {
		select {
		case e := <-w.Updates():
			if e == nil {
				return incs, nil // the current values have all come
			}
			incs[e.Key()] = string(e.Value())
		case <-ctx.Done():
			return nil, fmt.Errorf("cluster: %s: members: %w", n.cfg.URL, ctx.Err())
		}
	}
}

// ClaimPlayer makes this node the owner of a player nobody owns (a login), and
// returns the record's revision; ErrTaken when another node owns it.
func (n *Node) ClaimPlayer(ctx context.Context, player string) (uint64, error) {
	if !validKey(player) {
		return 0, fmt.Errorf("cluster: player key %q: want letters, digits, '-', '_', '='", player)
	}
	rev, err := n.plays.Create(ctx, player, []byte(n.cfg.Node))
	if errors.Is(err, jetstream.ErrKeyExists) {
		return 0, fmt.Errorf("cluster: player %s: %w", player, ErrTaken)
	}
	if err != nil {
		return 0, fmt.Errorf("cluster: %s: claim player %s: %w", n.cfg.URL, player, err)
	}
	return rev, nil
}

// PlayerOwner returns the node that owns player and the record's revision;
// ErrNoOwner when there is none.
func (n *Node) PlayerOwner(ctx context.Context, player string) (string, uint64, error) {
	return n.get(ctx, n.plays, "player", player)
}

// MovePlayer gives player to node to, if its record is still at revision rev: the
// one atomic step of a handoff. It returns the new revision; ErrConflict when the
// record changed since rev (another handoff won, or the player logged out).
func (n *Node) MovePlayer(ctx context.Context, player, to string, rev uint64) (uint64, error) {
	if !validKey(to) {
		return 0, fmt.Errorf("cluster: node name %q: want letters, digits, '-', '_', '='", to)
	}
	nrev, err := n.plays.Update(ctx, player, []byte(to), rev)
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		return 0, fmt.Errorf("cluster: player %s at revision %d: %w", player, rev, ErrConflict)
	}
	if err != nil {
		return 0, fmt.Errorf("cluster: %s: move player %s to %s: %w", n.cfg.URL, player, to, err)
	}
	return nrev, nil
}

// ReleasePlayer ends the ownership of player (a logout) if its record is still at
// revision rev; ErrConflict otherwise.
func (n *Node) ReleasePlayer(ctx context.Context, player string, rev uint64) error {
	err := n.plays.Delete(ctx, player, jetstream.LastRevision(rev))
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		return fmt.Errorf("cluster: player %s at revision %d: %w", player, rev, ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("cluster: %s: release player %s: %w", n.cfg.URL, player, err)
	}
	return nil
}

// ReleaseStalePlayers deletes the player records that name this node, each at
// the revision read, and returns how many it deleted. It is for a node that runs
// no player: one that has just joined, where a record naming it is left from an
// earlier process of the same name (killed while it held players, or as the
// target of a handoff after taking the record), and one that is stopping after
// saving and releasing its players, where a record naming it is left by a login
// or handoff that ended midway. Such a record would make logins place the player
// on a node that does not run it. A record that changes meanwhile is left alone.
func (n *Node) ReleaseStalePlayers(ctx context.Context) (int, error) {
	w, err := n.plays.WatchAll(ctx, jetstream.IgnoreDeletes())
	if err != nil {
		return 0, fmt.Errorf("cluster: %s: read players: %w", n.cfg.URL, err)
	}
	defer func() { _ = w.Stop() }()
	var stale []jetstream.KeyValueEntry
	for done := false; !done; {
		select {
		case e := <-w.Updates():
			if e == nil {
				done = true // the current values have all come
			} else if string(e.Value()) == n.cfg.Node {
				stale = append(stale, e)
			}
		case <-ctx.Done():
			return 0, fmt.Errorf("cluster: %s: read players: %w", n.cfg.URL, ctx.Err())
		}
	}
	released := 0
	for _, e := range stale {
		err := n.plays.Delete(ctx, e.Key(), jetstream.LastRevision(e.Revision()))
		switch {
		case err == nil:
			released++
		case !errors.Is(err, jetstream.ErrKeyRevisionMismatch):
			return released, fmt.Errorf("cluster: %s: release player %s: %w", n.cfg.URL, e.Key(), err)
		}
	}
	return released, nil
}

// get reads a key's owner and revision.
func (n *Node) get(ctx context.Context, kv jetstream.KeyValue, what, key string) (string, uint64, error) {
	e, err := kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return "", 0, fmt.Errorf("cluster: %s %s: %w", what, key, ErrNoOwner)
	}
	if err != nil {
		return "", 0, fmt.Errorf("cluster: %s: %s %s: %w", n.cfg.URL, what, key, err)
	}
	return string(e.Value()), e.Revision(), nil
}

// loop beats, renews and claims every quarter lease until Close.
func (n *Node) loop() {
	defer close(n.done)
	t := time.NewTicker(n.lease / 4)
	defer t.Stop()
	for {
		n.tick()
		select {
		case <-n.stop:
			return
		case <-t.C:
		}
	}
}

// tick is one round of the loop. Each request is bounded by a quarter lease, so a
// server that does not answer delays the next round by at most that per request.
func (n *Node) tick() {
	n.mu.Lock()
	paused := n.paused
	n.mu.Unlock()
	// Disconnected, every request would only wait for its timeout: report the
	// leases' renewals as failed at once and let the expiry checks run on time.
	connected := n.nc.IsConnected()
	if !paused && connected {
		n.beat()
	}
	for _, region := range n.cfg.Regions {
		n.mu.Lock()
		l := n.leases[region]
		var cur Lease
		if l != nil {
			cur = *l
		}
		n.mu.Unlock()
		switch {
		case l != nil && !time.Now().Before(cur.Until):
			n.lose(cur, ErrLeaseExpired)
		case l != nil && !paused && !connected:
			n.notify(Event{Kind: RenewFailed, Region: region, Lease: cur,
				Err: fmt.Errorf("cluster: %s: renew region %s: %w (%s)", n.cfg.URL, region, nats.ErrDisconnected, n.nc.Status())})
		case l != nil && !paused:
			n.renew(cur)
		case l == nil && !paused && connected:
			n.claim(region)
		}
	}
}

// beat renews the node's members record, or makes it again when it expired while
// the node was cut off.
func (n *Node) beat() {
	ctx, cancel := context.WithTimeout(context.Background(), n.lease/4)
	defer cancel()
	n.mu.Lock()
	rev := n.memberRev
	n.mu.Unlock()
	nrev, err := n.members.Update(ctx, n.cfg.Node, []byte(n.incarnation), rev)
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		nrev, err = n.members.Create(ctx, n.cfg.Node, []byte(n.incarnation))
	}
	if err == nil {
		n.mu.Lock()
		n.memberRev = nrev
		n.mu.Unlock()
	}
}

// renew extends a lease with an Update at its revision. A revision mismatch is a
// lost lease unless the record still names this node (a renewal whose reply was
// lost did get through); any other failure is reported and retried.
func (n *Node) renew(l Lease) {
	ctx, cancel := context.WithTimeout(context.Background(), n.lease/4)
	defer cancel()
	sent := time.Now()
	rev, err := n.regions.Update(ctx, l.Region, []byte(n.cfg.Node), l.Revision)
	if err == nil {
		n.mu.Lock()
		if cur := n.leases[l.Region]; cur != nil && cur.Since == l.Since {
			cur.Revision, cur.Until = rev, sent.Add(n.lease-n.margin)
		}
		n.mu.Unlock()
		return
	}
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		if e, gerr := n.regions.Get(ctx, l.Region); gerr == nil && string(e.Value()) == n.cfg.Node {
			// Keep Until: which of the unanswered renewals got through is unknown,
			// and the earliest bounds the record's age.
			n.mu.Lock()
			if cur := n.leases[l.Region]; cur != nil && cur.Since == l.Since {
				cur.Revision = e.Revision()
			}
			n.mu.Unlock()
			return
		}
		n.lose(l, ErrLeaseTaken)
		return
	}
	n.notify(Event{Kind: RenewFailed, Region: l.Region, Lease: l, Err: fmt.Errorf("cluster: %s: renew region %s: %w", n.cfg.URL, l.Region, err)})
}

// claim tries to take a region nobody holds. A region preferred to another node is
// left to it while it is a live member, and until it has been seen absent for a
// grace period, so that nodes started together settle on the preferred layout
// whichever joins first (a region, once held, moves only when its lease ends). A record that still names this node (left
// from before a NATS restart, or from a lease this node gave up as expired while
// its record outlived it) is taken back by an Update at its revision.
func (n *Node) claim(region string) {
	ctx, cancel := context.WithTimeout(context.Background(), n.lease/4)
	defer cancel()
	if p, ok := n.cfg.Preferred[region]; ok && p != n.cfg.Node {
		_, err := n.members.Get(ctx, p)
		n.mu.Lock()
		if err == nil || !errors.Is(err, jetstream.ErrKeyNotFound) {
			delete(n.absent, p) // alive, or we cannot tell
			n.mu.Unlock()
			return
		}
		since, seen := n.absent[p]
		if !seen {
			since = time.Now()
			n.absent[p] = since
		}
		n.mu.Unlock()
		if time.Since(since) < n.grace {
			return
		}
	}
	sent := time.Now()
	rev, err := n.regions.Create(ctx, region, []byte(n.cfg.Node))
	if errors.Is(err, jetstream.ErrKeyExists) {
		e, gerr := n.regions.Get(ctx, region)
		if gerr != nil || string(e.Value()) != n.cfg.Node {
			return
		}
		sent = time.Now()
		rev, err = n.regions.Update(ctx, region, []byte(n.cfg.Node), e.Revision())
	}
	if err != nil {
		return
	}
	l := Lease{Region: region, Revision: rev, Since: time.Now(), Until: sent.Add(n.lease - n.margin)}
	n.mu.Lock()
	n.leases[region] = &l
	n.mu.Unlock()
	n.notify(Event{Kind: Gained, Region: region, Lease: l})
}

// setPaused stops (or resumes) the node's requests while its loop keeps checking
// its leases' expiry: a node cut off from NATS, for tests.
func (n *Node) setPaused(p bool) {
	n.mu.Lock()
	n.paused = p
	n.mu.Unlock()
}

// lose forgets a lease and says why.
func (n *Node) lose(l Lease, why error) {
	n.mu.Lock()
	if cur := n.leases[l.Region]; cur == nil || cur.Since != l.Since {
		n.mu.Unlock()
		return
	}
	delete(n.leases, l.Region)
	n.mu.Unlock()
	n.notify(Event{Kind: Lost, Region: l.Region, Lease: l, Err: why})
}

func (n *Node) notify(e Event) {
	if n.cfg.Notify != nil {
		n.cfg.Notify(e)
	}
}

// Conn returns the node's NATS connection, for the data plane a server runs over
// the same connection (its subjects are the server's business, not this package's).
func (n *Node) Conn() *nats.Conn { return n.nc }

// Member reports whether node is a live member (its heartbeat has not expired).
func (n *Node) Member(ctx context.Context, node string) (bool, error) {
	if node == n.cfg.Node {
		return true, nil
	}
	_, err := n.members.Get(ctx, node)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("cluster: %s: member %s: %w", n.cfg.URL, node, err)
	}
	return true, nil
}
