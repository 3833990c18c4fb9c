package gameserver

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/twinframe/twinframe/server/internal/cluster"
	"github.com/twinframe/twinframe/server/internal/store"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
)

// ClusterConfig makes the server a node of a cluster (docs/ARCHITECTURE.md §10):
// it runs the regions it holds a lease on, and is the front door of the clients
// connected to it wherever their player runs.
type ClusterConfig struct {
	URL       string            // the NATS server(s)
	Node      string            // this node's name
	Lease     time.Duration     // region leases (cluster.DefaultLease)
	Preferred map[string]string // region → node that claims it first
	// HandoffTimeout bounds a handoff to another node, request to acknowledgement
	// (2 s); past it the source takes the player back if the ownership record
	// still says so.
	HandoffTimeout time.Duration
	// RegionSaveEvery: each region this node runs is saved to the store this often
	// (10 s), bounding what a crash of the node loses of it (regionsave.go).
	RegionSaveEvery time.Duration
}

// The data plane's subjects: a node's inbox of client packets and its two
// request subjects; a front door's subject of packets for its clients, and its
// request subject that says which of its clients a node still runs.
func inSubject(node string) string      { return "twinframe.node." + node + ".in" }
func attachSubject(node string) string  { return "twinframe.node." + node + ".attach" }
func handoffSubject(node string) string { return "twinframe.node." + node + ".handoff" }
func doorSubject(node string) string    { return "twinframe.door." + node }
func heldSubject(node string) string    { return "twinframe.door." + node + ".held" }

// Header keys of the data plane's messages.
const (
	hConn    = "Conn"    // the connection's id at its front door
	hDoor    = "Door"    // the front door's node
	hNode    = "Node"    // the sender
	hInc     = "Inc"     // the sender's incarnation (cluster.Node.Incarnation)
	hDoorInc = "DoorInc" // the front door's incarnation, in a handoff
	hRev     = "Rev"     // the player record's revision (the fencing token)
	hKind    = "Kind"    // packet, close
	hCode    = "Code"    // a close's pb.ErrorCode
	hWhy     = "Why"     // a close's reason, or a refusal
	hName    = "Name"    // the player's stored name
	hPlayer  = "Player"  // the player's id in the store
	hRole    = "Role"    // pb.Role
	hAck     = "Ack"     // the last input applied
	hRegion  = "Region"  // target region id
	hMarker  = "Marker"  // target marker
	hToken   = "Token"   // a token the login issued, for the login result
)

const (
	kindPacket = "packet"
	kindClose  = "close"
)

// clusterNet is the server's side of the cluster: the control plane's node and the
// data plane over its NATS connection.
type clusterNet struct {
	cfg  ClusterConfig
	node *cluster.Node
	nc   *nats.Conn
	subs []*nats.Subscription

	stop    chan struct{} // closed by leaveCluster: the watch ends
	watched chan struct{} // closed when it has

	mu       sync.Mutex
	closing  bool                   // shutdown: requests are refused (enter)
	handlers sync.WaitGroup         // requests being answered
	owners   map[string]string      // region → its node, as last read (watchNodes)
	doors    map[uint64]*session    // websocket sessions of this front door, by id
	remotes  map[remoteKey]*session // sessions run here for another front door
}

type remoteKey struct {
	door string
	conn uint64
}

// playerKey is the key of a player's ownership record.
func playerKey(id int64) string { return "p" + strconv.FormatInt(id, 10) }

// joinCluster joins the cluster and subscribes the data plane. Events of the node
// (regions gained and lost) go to the loop.
func (s *Server) joinCluster(cfg ClusterConfig) error {
	setDefault(&cfg.HandoffTimeout, 2*time.Second)
	setDefault(&cfg.RegionSaveEvery, 10*time.Second)
	if err := checkFault(); err != nil {
		return err
	}
	names := make([]string, len(s.regions))
	for i, r := range s.regions {
		names[i] = r.name
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	node, err := cluster.Join(ctx, cluster.Config{URL: cfg.URL, Node: cfg.Node, Regions: names, Lease: cfg.Lease,
		Preferred: cfg.Preferred, Notify: s.clusterEvent})
	if err != nil {
		return err
	}
	// This process runs no player yet: records naming this node are an earlier
	// process's, and logins must not be placed here by them.
	if k, err := node.ReleaseStalePlayers(ctx); err != nil {
		_ = node.Close(ctx)
		return err
	} else if k > 0 {
		s.log.Warn("released players of an earlier process of this node", "node", cfg.Node, "players", k)
	}
	cn := &clusterNet{cfg: cfg, node: node, nc: node.Conn(), doors: map[uint64]*session{}, remotes: map[remoteKey]*session{},
		owners: map[string]string{}, stop: make(chan struct{}), watched: make(chan struct{})}
	s.cl = cn
	for subj, h := range map[string]nats.MsgHandler{
		inSubject(cfg.Node):      s.onInbound,
		doorSubject(cfg.Node):    s.onDoor,
		attachSubject(cfg.Node):  cn.request(s.onAttach),
		handoffSubject(cfg.Node): cn.request(s.onHandoff),
		heldSubject(cfg.Node):    cn.request(s.onHeld),
	} {
		sub, err := cn.nc.Subscribe(subj, h)
		if err != nil {
			_ = node.Close(ctx)
			return fmt.Errorf("cluster: %s: subscribe %s: %w", cfg.URL, subj, err)
		}
		cn.subs = append(cn.subs, sub)
	}
	go s.watchNodes()
	return nil
}

// request answers requests with handle, each on its own goroutine (an answer
// waits for the loop), until shutdown refuses them.
func (cn *clusterNet) request(handle func(*nats.Msg)) nats.MsgHandler {
	return func(m *nats.Msg) {
		cn.mu.Lock()
		closing := cn.closing
		if !closing {
			cn.handlers.Add(1)
		}
		cn.mu.Unlock()
		if closing {
			cn.respond(m, ErrStopped)
			return
		}
		go func() {
			defer cn.handlers.Done()
			handle(m)
		}()
	}
}

// stopRequests refuses the requests that come from now on and waits for those
// being answered, whose last steps (an answer, a record given back) need NATS.
func (s *Server) stopRequests() {
	s.cl.mu.Lock()
	s.cl.closing = true
	s.cl.mu.Unlock()
	s.cl.handlers.Wait()
}

// releaseLeftovers releases, at shutdown, the player records that still name this
// node after its players were released: a login or handoff that ended midway
// leaves one, and the players' next logins must not be placed here.
func (s *Server) releaseLeftovers() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if k, err := s.cl.node.ReleaseStalePlayers(ctx); err != nil {
		s.log.Warn("release players at shutdown", "err", err)
	} else if k > 0 {
		s.log.Warn("released player records left by logins or handoffs that ended midway", "players", k)
	}
}

// failDoors ends the websocket sessions of this front door whose players run on
// other nodes (the loop's own sessions end with it): their readers tell those
// nodes, which save and release the players.
func (s *Server) failDoors() {
	s.cl.mu.Lock()
	doors := make([]*session, 0, len(s.cl.doors))
	for _, c := range s.cl.doors {
		doors = append(doors, c)
	}
	s.cl.mu.Unlock()
	for _, c := range doors {
		c.fail(pb.ErrorCode_ERROR_CODE_SHUTDOWN, "server shutting down")
	}
}

// watchNodes ends, every lease period, the sessions whose other end is on a node
// that is no longer a member: a front door's clients whose player ran there (they
// log in again, on the node that takes its regions over), and the players run
// here for a front door that is gone (saved and released like any logout).
func (s *Server) watchNodes() {
	defer close(s.cl.watched)
	period := s.cl.cfg.Lease
	if period <= 0 {
		period = cluster.DefaultLease
	}
	t := time.NewTicker(period)
	defer t.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), period)
	s.readOwners(ctx)
	cancel()
	for {
		select {
		case <-s.cl.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), period)
		incs, err := s.cl.node.Incarnations(ctx)
		s.readOwners(ctx)
		cancel()
		if err != nil {
			continue // NATS unreachable: nothing is known to be gone
		}
		// A node is gone when it is no longer a member, or when the member of its
		// name is a later process (a restart within one period): the sessions the
		// old process had went with it.
		gone := func(node, inc string) bool {
			live, ok := incs[node]
			return node != "" && node != s.nodeName() && (!ok || inc != "" && inc != live)
		}
		s.cl.mu.Lock()
		var ended, relayed []*session
		for _, c := range s.cl.doors {
			c.mu.Lock()
			node, inc := c.route, c.routeInc
			c.mu.Unlock()
			if gone(node, inc) {
				ended = append(ended, c)
			} else if node != "" {
				relayed = append(relayed, c)
			}
		}
		remote := map[string][]*session{} // by front door
		for k, c := range s.cl.remotes {
			if gone(k.door, c.doorInc) {
				ended = append(ended, c)
			} else {
				remote[k.door] = append(remote[k.door], c)
			}
		}
		s.cl.mu.Unlock()
		for _, c := range ended {
			node, _ := c.routeOf()
			if c.door != "" {
				node = c.door
			}
			c.fail(pb.ErrorCode_ERROR_CODE_SHUTDOWN, "node "+node+" is gone; log in again")
		}
		s.checkRelayed(relayed, period)
		for door, cs := range remote {
			s.checkHeld(door, cs, period)
		}
	}
}

// checkHeld ends the sessions run here for front door whose client the door no
// longer relays here, at two looks in a row: the door's close was lost (published
// while NATS was away), and the player would otherwise stay in the game, its
// record held, until it logged in again. One look is not enough: a handoff's
// target runs the session a moment before the door moves its route here.
func (s *Server) checkHeld(door string, cs []*session, period time.Duration) {
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = strconv.FormatUint(c.doorConn, 10)
	}
	m := nats.NewMsg(heldSubject(door))
	m.Header.Set(hNode, s.nodeName())
	m.Data = []byte(strings.Join(ids, " "))
	ctx, cancel := context.WithTimeout(context.Background(), period/4)
	r, err := s.cl.nc.RequestMsgWithContext(ctx, m)
	cancel()
	if err != nil || r.Header.Get(hWhy) != "" {
		return // the door cannot say (NATS away, a door that does not answer this)
	}
	held := map[string]bool{}
	for _, id := range strings.Fields(string(r.Data)) {
		held[id] = true
	}
	for i, c := range cs {
		if held[ids[i]] || c.movedAway() {
			c.unheld = 0
			continue
		}
		if c.unheld++; c.unheld >= 2 {
			s.log.Info("front door no longer relays the session", "name", c.name, "door", door)
			c.fail(pb.ErrorCode_ERROR_CODE_UNSPECIFIED, "") // as if the door's close had come
		}
	}
}

// onHeld answers a node's checkHeld: of the connection ids it names, those of
// this front door's sessions whose packets go to that node.
func (s *Server) onHeld(m *nats.Msg) {
	node := m.Header.Get(hNode)
	var held []string
	for _, f := range strings.Fields(string(m.Data)) {
		id, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			continue
		}
		s.cl.mu.Lock()
		c := s.cl.doors[id]
		s.cl.mu.Unlock()
		if c == nil || c.closed() {
			continue
		}
		if route, _ := c.routeOf(); route == node {
			held = append(held, f)
		}
	}
	r := nats.NewMsg(m.Reply)
	r.Data = []byte(strings.Join(held, " "))
	_ = m.RespondMsg(r)
}

// checkRelayed ends the relayed sessions of this front door whose player's record
// has named another node than the relay's, or none, at two looks in a row: the
// node ended the session and its close was lost (published while NATS was away).
// One look is not enough: during a handoff the record names the target a moment
// before the target's first packet moves the relay there.
func (s *Server) checkRelayed(relayed []*session, period time.Duration) {
	for _, c := range relayed {
		ctx, cancel := context.WithTimeout(context.Background(), period/4)
		owner, _, err := s.cl.node.PlayerOwner(ctx, playerKey(c.playerID))
		cancel()
		if err != nil && !errors.Is(err, cluster.ErrNoOwner) {
			continue // NATS cannot say
		}
		route, _ := c.routeOf()
		if owner == route {
			c.strayed = 0
			continue
		}
		if c.strayed++; c.strayed >= 2 {
			c.fail(pb.ErrorCode_ERROR_CODE_SHUTDOWN, "the player no longer runs on node "+route+"; log in again")
		}
	}
}

// leaveCluster gives up the regions and the subscriptions.
func (s *Server) leaveCluster() {
	if s.cl == nil {
		return
	}
	close(s.cl.stop)
	<-s.cl.watched
	for _, sub := range s.cl.subs {
		_ = sub.Unsubscribe()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.cl.node.Close(ctx); err != nil {
		s.log.Warn("leave cluster", "err", err)
	}
}

// readOwners refreshes the cache of which node runs each region, for /status
// and the deity's region list, which must not wait for NATS.
func (s *Server) readOwners(ctx context.Context) {
	for _, r := range s.regions {
		owner, _, err := s.cl.node.Owner(ctx, r.name)
		switch {
		case errors.Is(err, cluster.ErrNoOwner):
			owner = "none"
		case err != nil:
			continue // keep what was known
		}
		s.cl.mu.Lock()
		s.cl.owners[r.name] = owner
		s.cl.mu.Unlock()
	}
}

// regionNode is the node that runs region as last known: this node for its
// own, "" outside a cluster or before the first read.
func (s *Server) regionNode(r *region) string {
	if s.cl == nil {
		return ""
	}
	if r.live {
		return s.nodeName()
	}
	s.cl.mu.Lock()
	defer s.cl.mu.Unlock()
	if o := s.cl.owners[r.name]; o != s.nodeName() {
		return o
	}
	return "" // the cache lags this node's own loss
}

// nodeName is this node's name, "" outside a cluster.
func (s *Server) nodeName() string {
	if s.cl == nil {
		return ""
	}
	return s.cl.cfg.Node
}

// clusterEvent runs on the node's loop: it must not block.
func (s *Server) clusterEvent(e cluster.Event) {
	fn := func() { s.regionEvent(e) }
	select {
	case s.reqs <- fn:
	default:
		go func() {
			select {
			case s.reqs <- fn:
			case <-s.done:
			}
		}()
	}
}

// regionEvent runs in the loop: a region gained starts stepping here, a region
// lost stops, its players' sessions ending (saved) so that they log in again
// where it now runs.
func (s *Server) regionEvent(e cluster.Event) {
	r := s.regionByName(e.Region)
	if r == nil {
		return
	}
	switch e.Kind {
	case cluster.Gained:
		if !r.live {
			go s.gainRegion(e)
		}
	case cluster.Lost:
		if !r.live {
			return
		}
		for _, c := range s.sessions {
			if c.reg == r {
				c.fail(pb.ErrorCode_ERROR_CODE_SHUTDOWN, "region "+r.name+" moved to another node; log in again")
			}
		}
		r.live = false
		s.setLive()
		s.log.Warn("region lost", "region", r.name, "node", s.nodeName(), "err", e.Err)
	case cluster.RenewFailed:
		s.log.Warn("region lease renewal failed", "region", r.name, "until", e.Lease.Until, "err", e.Err)
	}
}

// setLive rebuilds the list of regions this server steps, in world order.
func (s *Server) setLive() {
	s.live = s.live[:0]
	for _, r := range s.regions {
		if r.live {
			s.live = append(s.live, r)
		}
	}
}

func (s *Server) regionByName(name string) *region {
	for _, r := range s.regions {
		if r.name == name {
			return r
		}
	}
	return nil
}

// place returns the node that runs a player logging in: the node that owns it if
// that node is alive (its session there is replaced), else the owner of the region
// its avatar was saved in (the first region for a new player).
func (s *Server) place(ctx context.Context, a store.Account) (string, error) {
	n := s.cl.node
	owner, _, err := n.PlayerOwner(ctx, playerKey(a.ID))
	switch {
	case err == nil:
		if live, err := n.Member(ctx, owner); err != nil {
			return "", err
		} else if live {
			return owner, nil
		}
	case !errors.Is(err, cluster.ErrNoOwner):
		return "", err
	}
	region := s.regions[0].name
	if len(a.Avatar) > 0 {
		if e, err := unpackAvatar(a.Avatar); err == nil {
			if r := s.regionByID(e.Region()); r != nil {
				region = r.name
			}
		}
	}
	owner, _, err = n.Owner(ctx, region)
	if err != nil {
		return "", fmt.Errorf("region %s: %w", region, err)
	}
	return owner, nil
}

// claimPlayer makes this node the player's owner: a new record, or the record of a
// node that is no longer alive (or of this node) taken at its revision.
func (s *Server) claimPlayer(ctx context.Context, id int64) (uint64, error) {
	n, key := s.cl.node, playerKey(id)
	rev, err := n.ClaimPlayer(ctx, key)
	if !errors.Is(err, cluster.ErrTaken) {
		return rev, err
	}
	owner, rev, err := n.PlayerOwner(ctx, key)
	if errors.Is(err, cluster.ErrNoOwner) {
		return n.ClaimPlayer(ctx, key)
	}
	if err != nil {
		return 0, err
	}
	if owner != s.nodeName() {
		if live, err := n.Member(ctx, owner); err != nil {
			return 0, err
		} else if live {
			return 0, fmt.Errorf("player runs on node %s: %w", owner, cluster.ErrTaken)
		}
	}
	return n.MovePlayer(ctx, key, s.nodeName(), rev)
}

// releasePlayer ends this node's ownership of a player that left, once its last
// save is committed (so that the node it logs in on next reads that save).
func (s *Server) releasePlayer(c *session) {
	if s.cl == nil {
		return
	}
	c.mu.Lock()
	key, rev, done := playerKey(c.playerID), c.playerRev, c.released
	c.released = c.released || rev != 0
	c.mu.Unlock()
	if rev == 0 || done {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.cl.node.ReleasePlayer(ctx, key, rev); err != nil {
		s.log.Warn("release player", "name", c.name, "err", err)
	}
}

// relay makes c, a websocket session of this front door, send what its client
// sends to node (which runs its player) and take the packets node sends for it.
func (c *session) relay(node, inc string, rev uint64) {
	c.mu.Lock()
	c.route, c.routeInc, c.routeRev = node, inc, rev
	c.mu.Unlock()
}

// routeOf returns where c's packets go: "" when they are read here.
func (c *session) routeOf() (string, uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.route, c.routeRev
}

// forward publishes a client packet to the node that runs its player.
func (s *Server) forward(c *session, node string, b []byte) bool {
	m := nats.NewMsg(inSubject(node))
	m.Header.Set(hKind, kindPacket)
	m.Header.Set(hDoor, s.nodeName())
	m.Header.Set(hInc, s.cl.node.Incarnation())
	m.Header.Set(hConn, strconv.FormatUint(c.id, 10))
	m.Data = b
	if err := s.cl.nc.PublishMsg(m); err != nil {
		c.fail(pb.ErrorCode_ERROR_CODE_INTERNAL, "cluster: "+err.Error())
		return false
	}
	return true
}

// doorClosed tells the node running c's player that its client left.
func (s *Server) doorClosed(c *session) {
	node, _ := c.routeOf()
	if s.cl == nil || node == "" {
		return
	}
	m := nats.NewMsg(inSubject(node))
	m.Header.Set(hKind, kindClose)
	m.Header.Set(hDoor, s.nodeName())
	m.Header.Set(hInc, s.cl.node.Incarnation())
	m.Header.Set(hConn, strconv.FormatUint(c.id, 10))
	_ = s.cl.nc.PublishMsg(m)
}

// onDoor takes a packet (or a close) for a client of this front door. Packets of a
// newer ownership record move the route there; those of an older one are late
// words of a node the player has left, and are dropped.
func (s *Server) onDoor(m *nats.Msg) {
	id, err := strconv.ParseUint(m.Header.Get(hConn), 10, 64)
	if err != nil {
		return
	}
	rev, _ := strconv.ParseUint(m.Header.Get(hRev), 10, 64)
	node := m.Header.Get(hNode)
	s.cl.mu.Lock()
	c := s.cl.doors[id]
	s.cl.mu.Unlock()
	if c == nil {
		return
	}
	c.mu.Lock()
	stale := rev < c.routeRev
	if !stale && rev > c.routeRev && node != s.nodeName() {
		c.route, c.routeInc, c.routeRev = node, m.Header.Get(hInc), rev
	} else if !stale && node == c.route && c.routeInc == "" {
		c.routeInc = m.Header.Get(hInc) // the first word of the node a login attached to
	}
	c.mu.Unlock()
	if stale {
		return
	}
	if m.Header.Get(hKind) == kindClose {
		code, _ := strconv.Atoi(m.Header.Get(hCode))
		c.fail(pb.ErrorCode(code), m.Header.Get(hWhy))
		return
	}
	s.send(c, m.Data, 0)
}

// onInbound takes a client packet relayed by its front door, for a session run here.
func (s *Server) onInbound(m *nats.Msg) {
	id, err := strconv.ParseUint(m.Header.Get(hConn), 10, 64)
	if err != nil {
		return
	}
	door := m.Header.Get(hDoor)
	s.cl.mu.Lock()
	c := s.cl.remotes[remoteKey{door, id}]
	if c == nil && door == s.nodeName() {
		c = s.cl.doors[id] // back home: the front door runs the player again
	}
	s.cl.mu.Unlock()
	if c == nil {
		return // the player moved on; what it sent meanwhile is dropped like inputs in transit
	}
	if inc := m.Header.Get(hInc); c.doorInc != "" && inc != c.doorInc {
		return // a later process of the door, whose connection ids start again
	}
	if m.Header.Get(hKind) == kindClose {
		c.fail(pb.ErrorCode_ERROR_CODE_UNSPECIFIED, "")
		return
	}
	s.metrics.bytesIn.Add(float64(len(m.Data)))
	s.receive(c, &c.rd, m.Data)
}

// newRemote builds the session of a player run here whose client is connected to
// another front door, and starts its writer, which publishes its packets there.
func (s *Server) newRemote(door, doorInc string, conn uint64, name string, player int64, role pb.Role) *session {
	ctx, cancel := context.WithCancel(context.Background())
	c := &session{id: s.nextID.Add(1), srv: s, ctx: ctx, cancel: cancel, door: door, doorInc: doorInc, doorConn: conn,
		out: make(chan []byte, s.cfg.OutboxSize), free: make(chan []byte, s.cfg.OutboxSize),
		name: name, playerID: player, role: role, addr: "node:" + door}
	c.rd = protocol.Reader{Limits: clientPacketLimits, From: protocol.ClientToServer}
	s.cl.mu.Lock()
	s.cl.remotes[remoteKey{door, conn}] = c
	s.cl.mu.Unlock()
	s.conns.Add(1)
	go func() {
		defer s.conns.Done()
		s.remoteWriter(c)
	}()
	return c
}

// remoteWriter publishes a remote session's packets to its front door until the
// session ends, then the close (unless the player moved to another node, which
// speaks to the door from then on).
func (s *Server) remoteWriter(c *session) {
	key := remoteKey{c.door, c.doorConn}
	defer func() {
		s.cl.mu.Lock()
		if s.cl.remotes[key] == c {
			delete(s.cl.remotes, key)
		}
		s.cl.mu.Unlock()
	}()
	pub := func(kind string, data []byte) error {
		m := nats.NewMsg(doorSubject(c.door))
		m.Header.Set(hKind, kind)
		m.Header.Set(hConn, strconv.FormatUint(c.doorConn, 10))
		m.Header.Set(hNode, s.nodeName())
		m.Header.Set(hInc, s.cl.node.Incarnation())
		m.Header.Set(hRev, strconv.FormatUint(c.rev(), 10))
		if kind == kindClose {
			code, why := c.ending()
			m.Header.Set(hCode, strconv.Itoa(int(code)))
			m.Header.Set(hWhy, why)
		}
		m.Data = data
		return s.cl.nc.PublishMsg(m)
	}
	for {
		select {
		case p := <-c.out:
			if c.closed() {
				break
			}
			if err := pub(kindPacket, p); err != nil {
				c.fail(pb.ErrorCode_ERROR_CODE_INTERNAL, "cluster: "+err.Error())
			}
			c.recycle(p)
			continue
		case <-c.ctx.Done():
		}
		if !c.movedAway() {
			_ = pub(kindClose, nil)
		}
		s.metrics.disconnect(c.reason())
		return
	}
}

// rev is the ownership revision a session's packets carry.
func (c *session) rev() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.playerRev
}

func (c *session) ending() (pb.ErrorCode, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.code, c.why
}

func (c *session) movedAway() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.moved
}

// onAttach runs a player here whose client logged in at another front door.
func (s *Server) onAttach(m *nats.Msg) {
	h := m.Header
	conn, err1 := strconv.ParseUint(h.Get(hConn), 10, 64)
	player, err2 := strconv.ParseInt(h.Get(hPlayer), 10, 64)
	role, err3 := strconv.Atoi(h.Get(hRole))
	if err := errors.Join(err1, err2, err3); err != nil || h.Get(hDoor) == "" {
		s.cl.respond(m, fmt.Errorf("bad attach request: %v", err))
		return
	}
	c := s.newRemote(h.Get(hDoor), h.Get(hInc), conn, h.Get(hName), player, pb.Role(role))
	c.issued = h.Get(hToken)
	ctx, cancel := context.WithTimeout(c.ctx, s.cfg.LoginTimeout)
	defer cancel()
	rev, err := s.claimPlayer(ctx, player)
	if err != nil {
		c.fail(pb.ErrorCode_ERROR_CODE_INTERNAL, err.Error())
		s.cl.respond(m, err)
		return
	}
	c.mu.Lock()
	c.playerRev = rev
	c.mu.Unlock()
	a, err := s.cfg.Store.Player(ctx, c.name)
	if err != nil {
		c.fail(pb.ErrorCode_ERROR_CODE_INTERNAL, "store: "+err.Error())
		s.cl.respond(m, err)
		return
	}
	if !s.joinClaimed(c, a.Avatar) {
		s.cl.respond(m, errors.New("the player could not join"))
		return
	}
	s.cl.respond(m, nil)
}

// respond answers a data-plane request: an empty Why is yes.
func (cn *clusterNet) respond(m *nats.Msg, err error) {
	r := nats.NewMsg(m.Reply)
	r.Header.Set(hInc, cn.node.Incarnation())
	if err != nil {
		r.Header.Set(hWhy, err.Error())
	}
	_ = m.RespondMsg(r)
}

// answer reads a data-plane reply.
func answer(r *nats.Msg, err error) error {
	if err != nil {
		return err
	}
	if why := r.Header.Get(hWhy); why != "" {
		return errors.New(why)
	}
	return nil
}

// attach asks node to run the player of c, a session of this front door, and
// relays c there.
func (s *Server) attach(c *session, node string) error {
	m := nats.NewMsg(attachSubject(node))
	h := m.Header
	h.Set(hDoor, s.nodeName())
	h.Set(hConn, strconv.FormatUint(c.id, 10))
	h.Set(hName, c.name)
	h.Set(hPlayer, strconv.FormatInt(c.playerID, 10))
	h.Set(hRole, strconv.Itoa(int(c.role)))
	h.Set(hToken, c.issued)
	h.Set(hInc, s.cl.node.Incarnation())
	s.cl.mu.Lock()
	s.cl.doors[c.id] = c
	s.cl.mu.Unlock()
	c.relay(node, "", 0)
	ctx, cancel := context.WithTimeout(c.ctx, s.cfg.LoginTimeout)
	defer cancel()
	r, err := s.cl.nc.RequestMsgWithContext(ctx, m)
	if err == nil {
		c.mu.Lock()
		if c.route == node && c.routeInc == "" {
			c.routeInc = r.Header.Get(hInc)
		}
		c.mu.Unlock()
	}
	return answer(r, err)
}

// dropDoor forgets a websocket session of this front door.
func (s *Server) dropDoor(c *session) {
	if s.cl == nil {
		return
	}
	s.cl.mu.Lock()
	if s.cl.doors[c.id] == c {
		delete(s.cl.doors, c.id)
	}
	s.cl.mu.Unlock()
}

// transit is a player's avatar packed for another node, until that node answers.
type transit struct {
	from   *region
	packed []byte
	t0     time.Duration
}

// sendAway starts the handoff of c's avatar to region to (marker), which another
// node runs: the avatar leaves its game now (Emigrate), the session waits without
// one, and the target's answer comes back to the loop (handedOff). Until then the
// session is neither stepped nor replicated; its client's messages wait.
func (s *Server) sendAway(c *session, to *region, marker int32) error {
	from := c.reg
	t0 := s.cfg.Clock.Now()
	b, err := from.game.Emigrate(c.avatar)
	if err != nil {
		return err
	}
	from.repl.Detach(&c.view)
	c.view.DropPending()
	s.travelled = append(s.travelled, uint64(c.avatar)) // gone from here, not lost
	if s.cfg.OnFrame != nil {
		s.handoffs = append(s.handoffs, Handoff{Entity: c.avatar, From: from.id, To: to.id, Emigrated: b, Away: true})
	}
	c.reg, c.avatar = nil, 0
	c.transit = &transit{from: from, packed: b, t0: t0}
	ack := c.view.Ack()
	rev := c.rev()
	timeout := s.cl.cfg.HandoffTimeout
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		fault(FaultSourceAfterEmigrate)
		node, inc, newRev, err := s.requestHandoff(ctx, c, to, marker, ack, rev, b)
		if err == nil {
			fault(FaultSourceAfterAnswer)
		}
		back := false
		if err != nil {
			s.log.Warn("handoff refused", "name", c.name, "to", to.name, "node", node, "err", err)
			owner, settled := s.settle(playerKey(c.playerID), rev)
			if back = owner == s.nodeName(); back {
				newRev = settled
			} else {
				// The record names another node (the target took it, late or
				// before it died) or none: whether a node runs the player is not
				// known here, so the session ends (node ""), and the client's next
				// login finds where it runs, or places it by its last save.
				node = ""
			}
		}
		s.toLoop(func() { s.handedOff(c, to, node, inc, newRev, back) })
	}()
	return nil
}

// toLoop queues fn for the loop without waiting for it (dropped once the loop has
// stopped: shutdown saves what it holds).
func (s *Server) toLoop(fn func()) {
	select {
	case s.reqs <- fn:
	case <-s.done:
	}
}

// requestHandoff asks the owner of region to to take the avatar; it returns the
// owner, its incarnation and the ownership revision the target wrote.
func (s *Server) requestHandoff(ctx context.Context, c *session, to *region, marker int32, ack uint32, rev uint64, b []byte) (string, string, uint64, error) {
	node, _, err := s.cl.node.Owner(ctx, to.name)
	if err != nil {
		return "", "", 0, err
	}
	m := nats.NewMsg(handoffSubject(node))
	h := m.Header
	door, doorInc, conn := c.door, c.doorInc, c.doorConn
	if door == "" {
		door, doorInc, conn = s.nodeName(), s.cl.node.Incarnation(), c.id
	}
	h.Set(hDoor, door)
	h.Set(hDoorInc, doorInc)
	h.Set(hConn, strconv.FormatUint(conn, 10))
	h.Set(hNode, s.nodeName())
	h.Set(hName, c.name)
	h.Set(hPlayer, strconv.FormatInt(c.playerID, 10))
	h.Set(hRole, strconv.Itoa(int(c.role)))
	h.Set(hAck, strconv.FormatUint(uint64(ack), 10))
	h.Set(hRev, strconv.FormatUint(rev, 10))
	h.Set(hRegion, strconv.Itoa(int(to.id)))
	h.Set(hMarker, strconv.Itoa(int(marker)))
	m.Data = b
	r, err := s.cl.nc.RequestMsgWithContext(ctx, m)
	if err := answer(r, err); err != nil {
		return node, "", 0, err
	}
	newRev, err := strconv.ParseUint(r.Header.Get(hRev), 10, 64)
	return node, r.Header.Get(hInc), newRev, err
}

// settle decides who owns a player after a handoff that got no yes: this node, if
// it takes the record back by a compare-and-set at the revision the handoff started
// from (so that a target that did take it, late, can no longer); else the node
// the record names, or "" when no record names one (nobody runs the player: the
// handoff's end fails the session, whose client logs in again). It retries while NATS cannot say (the player waits in
// transit rather than risk existing twice), until the server stops.
func (s *Server) settle(key string, rev uint64) (string, uint64) {
	for wait := 100 * time.Millisecond; ; wait = min(2*wait, 2*time.Second) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		nrev, err := s.cl.node.MovePlayer(ctx, key, s.nodeName(), rev)
		if err == nil {
			cancel()
			return s.nodeName(), nrev
		}
		if errors.Is(err, cluster.ErrConflict) {
			var owner string
			if owner, nrev, err = s.cl.node.PlayerOwner(ctx, key); err == nil {
				cancel()
				return owner, nrev
			}
			if errors.Is(err, cluster.ErrNoOwner) {
				// Released since the handoff began: the target took it and is back
				// as a new process (docs/ARCHITECTURE.md §10). Nobody runs the player.
				cancel()
				return "", 0
			}
		}
		cancel()
		s.log.Warn("handoff: the player's owner is not known yet; retrying", "player", key, "err", err)
		select {
		case <-time.After(wait):
		case <-s.done:
			return "", 0
		}
	}
}

// handedOff runs in the loop once a handoff is settled. To the target: the
// session ends here without a save (the target saves the player now), and a
// websocket session of this front door relays to the target. Back here: the
// avatar returns to the region it left.
func (s *Server) handedOff(c *session, to *region, node, inc string, newRev uint64, back bool) {
	tr := c.transit
	if tr == nil {
		return
	}
	c.transit = nil
	if back {
		s.metrics.handoffs.WithLabelValues("refused").Inc()
		c.backFrame = tr.from.game.Frame()
		c.mu.Lock()
		c.playerRev = newRev
		c.mu.Unlock()
		c.reg = tr.from
		tr.from.repl.Attach(&c.view) // holds nothing: putBack forgets it
		if err := s.putBack(c, tr.from, tr.packed); err != nil {
			c.fail(pb.ErrorCode_ERROR_CODE_INTERNAL, "lost in a handoff: "+err.Error())
			return
		}
		if !tr.from.live {
			c.fail(pb.ErrorCode_ERROR_CODE_SHUTDOWN, "region "+tr.from.name+" moved to another node; log in again")
		}
		return
	}
	if node == "" {
		// Nobody holds the player: its client logs in again, from its last save.
		c.fail(pb.ErrorCode_ERROR_CODE_SHUTDOWN, "lost in a handoff to "+to.name+"; log in again")
		return
	}
	s.metrics.handoffs.WithLabelValues("ok").Inc()
	s.metrics.clusterHandoffSeconds.Observe((s.cfg.Clock.Now() - tr.t0).Seconds())
	s.log.Info("travel", "name", c.name, "from", tr.from.name, "to", to.name, "node", node)
	c.mu.Lock()
	c.moved, c.playerRev = true, 0
	c.mu.Unlock()
	c.joined = false
	if s.byName[c.name] == c {
		delete(s.byName, c.name)
	}
	if c.door == "" {
		// This front door keeps the websocket: from now on it relays.
		c.mu.Lock()
		c.moved = false
		c.mu.Unlock()
		c.relay(node, inc, newRev)
		s.cl.mu.Lock()
		s.cl.doors[c.id] = c
		s.cl.mu.Unlock()
		s.dropSession(c)
		return
	}
	s.dropSession(c)
	c.cancel()
}

// dropSession removes c from the loop's sessions without ending it.
func (s *Server) dropSession(c *session) {
	for i, x := range s.sessions {
		if x == c {
			s.sessions = append(s.sessions[:i], s.sessions[i+1:]...)
			break
		}
	}
	c.joined = false // autosave lets it go
}

// onHandoff takes a player another node hands to this one.
func (s *Server) onHandoff(m *nats.Msg) {
	h := m.Header
	conn, e1 := strconv.ParseUint(h.Get(hConn), 10, 64)
	player, e2 := strconv.ParseInt(h.Get(hPlayer), 10, 64)
	role, e3 := strconv.Atoi(h.Get(hRole))
	ack, e4 := strconv.ParseUint(h.Get(hAck), 10, 32)
	rev, e5 := strconv.ParseUint(h.Get(hRev), 10, 64)
	regionID, e6 := strconv.ParseInt(h.Get(hRegion), 10, 32)
	marker, e7 := strconv.ParseInt(h.Get(hMarker), 10, 32)
	door, from := h.Get(hDoor), h.Get(hNode)
	if err := errors.Join(e1, e2, e3, e4, e5, e6, e7); err != nil || door == "" || from == "" {
		s.cl.respond(m, fmt.Errorf("bad handoff request: %v", err))
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.cl.cfg.HandoffTimeout)
	defer cancel()
	key := playerKey(player)
	newRev, err := s.cl.node.MovePlayer(ctx, key, s.nodeName(), rev)
	if err != nil {
		s.cl.respond(m, err)
		return
	}
	fault(FaultTargetAfterClaim)
	var in error
	if err := s.do(ctx, func() {
		in = s.arrive(door, h.Get(hDoorInc), conn, h.Get(hName), player, pb.Role(role), uint32(ack), newRev, int32(regionID), int32(marker), m.Data)
	}); err != nil {
		in = err
	}
	if in != nil {
		// Give the player back to the source, which puts its avatar back.
		if _, err := s.cl.node.MovePlayer(ctx, key, from, newRev); err != nil {
			s.log.Error("handoff: ownership not given back", "player", key, "to", from, "err", err)
		}
		s.cl.respond(m, in)
		return
	}
	fault(FaultTargetAfterArrive)
	r := nats.NewMsg(m.Reply)
	r.Header.Set(hRev, strconv.FormatUint(newRev, 10))
	r.Header.Set(hInc, s.cl.node.Incarnation())
	_ = m.RespondMsg(r)
}

// arrive runs in the loop: the handed-off avatar enters its region here, in a
// session that continues the source's (inputs numbered on, the same client).
func (s *Server) arrive(door, doorInc string, conn uint64, name string, player int64, role pb.Role, ack uint32, rev uint64, regionID, marker int32, b []byte) error {
	r := s.regionByID(regionID)
	if r == nil || !r.live {
		return fmt.Errorf("%w: region %d is not run by node %s", ErrNoTarget, regionID, s.nodeName())
	}
	if !hasMarker(r.game, marker) {
		return fmt.Errorf("%w: marker %d in region %q", ErrNoTarget, marker, r.name)
	}
	id, err := r.game.Immigrate(b, marker)
	if err != nil {
		return fmt.Errorf("%w: %w", errHandoffIn, err)
	}
	var c *session
	if door == s.nodeName() {
		s.cl.mu.Lock()
		c = s.cl.doors[conn]
		s.cl.mu.Unlock()
		if c == nil || c.closed() {
			_ = r.game.Destroy(id)
			return errors.New("the client left during the handoff")
		}
		c.relay("", "", rev)
	} else {
		c = s.newRemote(door, doorInc, conn, name, player, role)
	}
	c.mu.Lock()
	c.playerRev = rev
	c.mu.Unlock()
	c.reg, c.avatar = r, id
	c.view.Resume(ack)
	c.view.SetAvatar(id)
	r.repl.Attach(&c.view)
	c.joined = true
	s.byName[c.name] = c
	s.sessions = append(s.sessions, c)
	s.autosave.add(c)
	c.replies = append(c.replies, s.regionChange(r))
	if sv, ok := s.packAvatar(c); ok {
		s.saver.queue(sv)
	}
	s.log.Info("arrived", "name", name, "avatar", id, "region", r.name, "node", s.nodeName())
	return nil
}

// clusterLogin is login's last step in a cluster: the player runs here (this
// node claims it, then it joins as on a single server), or on the node place
// names, to which this front door relays it.
func (s *Server) clusterLogin(c *session, a store.Account) bool {
	ctx, cancel := context.WithTimeout(c.ctx, s.cfg.LoginTimeout)
	defer cancel()
	node, err := s.place(ctx, a)
	if err != nil {
		c.fail(pb.ErrorCode_ERROR_CODE_INTERNAL, "cluster: "+err.Error())
		return false
	}
	if node != s.nodeName() {
		if err := s.attach(c, node); err != nil {
			c.fail(pb.ErrorCode_ERROR_CODE_INTERNAL, "cluster: node "+node+": "+err.Error())
			return false
		}
		return !c.closed()
	}
	rev, err := s.claimPlayer(ctx, a.ID)
	if err != nil {
		c.fail(pb.ErrorCode_ERROR_CODE_INTERNAL, "cluster: "+err.Error())
		return false
	}
	c.mu.Lock()
	c.playerRev = rev
	c.mu.Unlock()
	s.cl.mu.Lock()
	s.cl.doors[c.id] = c
	s.cl.mu.Unlock()
	return s.joinClaimed(c, a.Avatar)
}

// joinClaimed joins c, whose player record this node has claimed, in the loop. A
// record must name this node only while it runs the player: one that did not
// join is released, unless an older session here runs the player (a replacing
// login whose client left), which then holds the record at the claim's revision.
// When the loop never ran the join, the record stays: logins are placed here and
// claim it again, and shutdown releases what names this node.
func (s *Server) joinClaimed(c *session, avatar []byte) bool {
	joined, release := false, false
	err := s.do(c.ctx, func() {
		s.join(c, avatar)
		if joined = c.joined; joined {
			return
		}
		if old := s.byName[c.name]; old != nil && old.avatar != 0 {
			rev := c.rev()
			old.mu.Lock()
			old.playerRev = rev
			old.mu.Unlock()
			return
		}
		release = true
	})
	if err != nil {
		c.fail(pb.ErrorCode_ERROR_CODE_SHUTDOWN, "server shutting down")
	}
	if release {
		s.releasePlayer(c)
	}
	return joined && !c.closed()
}

// regionNodes fills in the node of the regions another node runs, from the
// cache watchNodes refreshes every lease period.
func (s *Server) regionNodes(rs []statusRegion) {
	if s.cl == nil {
		return
	}
	s.cl.mu.Lock()
	defer s.cl.mu.Unlock()
	for i := range rs {
		if rs[i].Node == "" {
			rs[i].Node = s.cl.owners[rs[i].Name]
		}
	}
}
