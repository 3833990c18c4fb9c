package headless

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twinframe/twinframe/client"
	"github.com/twinframe/twinframe/client/bot"
	"github.com/twinframe/twinframe/internal/devproc"
	"github.com/twinframe/twinframe/server/internal/cli"
	"github.com/twinframe/twinframe/server/internal/cluster"
	"github.com/twinframe/twinframe/server/internal/gameserver"
	"github.com/twinframe/twinframe/server/internal/harness"
	"github.com/twinframe/twinframe/server/internal/store"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/replication"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
	"google.golang.org/protobuf/proto"
)

// The cluster run (`server headless -nodes N`, docs/ARCHITECTURE.md §10): a real
// nats-server and a real throw-away PostgreSQL, started by the run as child
// processes (internal/devproc), and N gameserver nodes in this process, each with
// its own NATS connection, its own PostgreSQL pool and its own HTTP listener on
// 127.0.0.1:0, the default world's regions spread over them (region i prefers node
// (i mod N)+1, as `server cluster` lays them out). Bot clients connect over real
// websockets to the nodes' front doors in turn and travel through portals (the
// lockstep run's travel logic), for -frames frames of 20 Hz wall-clock time.
//
// The nodes are in-process rather than `serve` processes because the checks need
// to look inside every node's loop at the same instant (the rendezvous below):
// nothing of the cluster's protocol passes through the process, since every byte
// between nodes goes over NATS, every ownership record through JetStream and
// every save through PostgreSQL, exactly as between processes. What a process
// boundary would add — kill -9 of a node — is the fault tests' subject, not this
// check's.
//
// The run is in real time, not lockstep: a handoff between nodes is a NATS
// request answered by another node's loop, which no single frame grant can
// order. The checks are made where they are sound without lockstep:
//
//   - On every frame of every node (its OnFrame hook, on its loop): every player
//     avatar in a region the node steps is owned by that node in the players
//     bucket (cluster.Node.PlayerOwner; while the loop is in the hook the avatar
//     cannot leave, and a handoff moves the record only once the avatar has left
//     the source and before it enters the target); no entity id is in two of the
//     node's games; sim CheckInvariants holds; an avatar that arrives from
//     another node (or within the node) kept its saved fields bit for bit against
//     the bytes its source packed (Handoff.Emigrated).
//   - Every rendezvousEvery frames, a rendezvous: every node's loop waits in its
//     hook until all are there, so that the games of all the nodes are seen at one
//     instant; then no entity id is in two games of the cluster, and no player has
//     an avatar in two.
//   - Every driver frame, for every bot: the AOI check (bot.CheckAOI), and, at the
//     frame its client has, that the client is in its avatar's region on the node
//     that runs it and holds no entity of another region that node steps.
//
// Handoff latency is the benchmark's (BenchmarkClusterHandoff): from the end of
// the frame in which the avatar entered the portal (the source node's hook) to
// the client's receipt of the region change.

// rendezvousEvery is how often, in driver frames, the nodes meet for the
// cluster-wide checks: each meeting holds every loop until the last arrives (up
// to a frame period), so a meeting every frame would make the nodes late by
// design and distort the latencies measured.
const rendezvousEvery = 10

// clusterLease is the nodes' region lease. Renewals time out at a quarter lease,
// so on a loaded CI machine the default (3 s) can lapse; a node that loses a
// region ends its players' sessions by design, which would fail this run for a
// reason it does not check (takeover is the fault tests' subject).
const clusterLease = 10 * time.Second

// clusterConfig is a cluster run's configuration.
type clusterConfig struct {
	nodes, frames, bots int
	seed                uint64
	travel              float64
	report              string
	timeout             time.Duration
	verbose             bool
	// fault, for the tests, runs on a node's loop at the start of its hook: the
	// fault it injects is what the checks must find.
	fault func(node string, v gameserver.FrameView)
}

// clusterReport is the cluster run's JSON report.
type clusterReport struct {
	OK      bool   `json:"ok"`
	Failure string `json:"failure,omitempty"`
	Seed    uint64 `json:"seed"`
	Nodes   int    `json:"nodes"`
	Bots    int    `json:"bots"`
	Frames  int    `json:"frames"` // driver frames run (20 Hz, wall clock)
	// Services says what ran where: NATS and PostgreSQL as processes, the nodes
	// in-process (cluster.go says why).
	Services    string            `json:"services"`
	Layout      map[string]string `json:"layout"` // region → node
	WallSeconds float64           `json:"wallSeconds"`
	Handoffs    struct {
		Count     int               `json:"count"`     // avatars handed to another region
		CrossNode int               `json:"crossNode"` // of them, to a region another node runs
		Measured  int               `json:"measured"`  // region changes whose latency the clients saw
		Latency   harness.Durations `json:"latency"`   // portal entry → the client's region change
		Compared  int               `json:"compared"`  // arrivals whose saved fields were compared
	} `json:"handoffs"`
	Checks struct {
		OwnerChecks      int `json:"ownerChecks"`      // avatar-frames checked against the players bucket
		NodeFrames       int `json:"nodeFrames"`       // node frames checked (ids in one node, invariants)
		Rendezvous       int `json:"rendezvous"`       // cluster-wide checks (ids, avatars) at one instant
		RendezvousEvery  int `json:"rendezvousEvery"`  // driver frames between them
		RendezvousMissed int `json:"rendezvousMissed"` // a node did not come in time: not checked
		// RendezvousHold is how long a rendezvous held the loops (the first node
		// in to all let go): what it adds, at most, to a handoff it overlaps.
		RendezvousHold  harness.Durations `json:"rendezvousHold"`
		AOIChecks       int               `json:"aoiChecks"`       // bot-frames checked against the AOI
		AOIRegionChecks int               `json:"aoiRegionChecks"` // bot-frames checked for another region's entities
		HandoffCompared string            `json:"handoffCompared"`
	} `json:"checks"`
	Walks int `json:"portalWalks"`
	violationList
}

func (r *clusterReport) violate(v headlessViolation) {
	r.OK = false
	r.add(v)
}

func (r *clusterReport) summary(w io.Writer) {
	status := okOrFail(r.OK)
	h, c := &r.Handoffs, &r.Checks
	fmt.Fprintf(w, "headless: %s: cluster of %d nodes, %d frames, %d bots, seed %d, %.1f s wall\n",
		status, r.Nodes, r.Frames, r.Bots, r.Seed, r.WallSeconds)
	fmt.Fprintf(w, "headless: %s\n", r.Services)
	fmt.Fprintf(w, "headless: handoffs: %d (%d cross-node), %d portal walks; latency portal entry -> region change over %d: p50 %.1f ms p99 %.1f ms max %.1f ms; %d arrivals' saved fields compared\n",
		h.Count, h.CrossNode, r.Walks, h.Measured, h.Latency.P50Ms, h.Latency.P99Ms, h.Latency.MaxMs, h.Compared)
	fmt.Fprintf(w, "headless: checks: %d owner, %d node frames, %d rendezvous (every %d frames, %d missed, loops held p50 %.1f ms p99 %.1f ms), %d AOI, %d AOI-region\n",
		c.OwnerChecks, c.NodeFrames, c.Rendezvous, c.RendezvousEvery, c.RendezvousMissed, c.RendezvousHold.P50Ms, c.RendezvousHold.P99Ms, c.AOIChecks, c.AOIRegionChecks)
	if r.Failure != "" {
		fmt.Fprintf(w, "headless: failed: %s\n", r.Failure)
	}
	r.violationList.summary(w)
}

// checksRan flags the checks that checked nothing: a run that never handed a
// player to another node proves nothing about handoffs.
func (r *clusterReport) checksRan(travel bool, nodes int) {
	checks := []struct {
		n    int
		what string
	}{
		{r.Checks.OwnerChecks, "avatar-frames checked against the players bucket (checks.ownerChecks)"},
		{r.Checks.NodeFrames, "node frames checked (checks.nodeFrames)"},
		{r.Checks.Rendezvous, "cluster-wide checks at one instant (checks.rendezvous)"},
		{r.Checks.AOIChecks, "bot-frames checked against the AOI (checks.aoiChecks)"},
		{r.Checks.AOIRegionChecks, "bot-frames checked for another region's entities (checks.aoiRegionChecks)"},
	}
	if travel {
		checks = append(checks, struct {
			n    int
			what string
		}{r.Handoffs.Compared, "handoffs whose saved fields were compared (handoffs.compared)"},
			struct {
				n    int
				what string
			}{r.Handoffs.Measured, "handoffs whose latency a client saw (handoffs.measured)"})
		if nodes > 1 {
			checks = append(checks, struct {
				n    int
				what string
			}{r.Handoffs.CrossNode, "handoffs to another node (handoffs.crossNode)"})
		}
	}
	for _, c := range checks {
		if c.n == 0 {
			r.violate(headlessViolation{Check: "not-run", What: "a check did not run: 0 " + c.what})
		}
	}
}

// clusterCommand runs `server headless -nodes N ...` and returns the exit status.
func clusterCommand(cfg clusterConfig, stdout, stderr io.Writer) int {
	rep, err := runCluster(cfg, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "server: headless: %v\n", err)
		if rep == nil {
			return 1
		}
		rep.Failure, rep.OK = err.Error(), false
	} else {
		rep.checksRan(cfg.travel > 0, cfg.nodes)
	}
	rep.summary(stdout)
	if cfg.report != "" {
		if werr := harness.WriteJSON(cfg.report, rep); werr != nil {
			fmt.Fprintf(stderr, "server: headless: %v\n", werr)
			return 1
		}
	}
	if !rep.OK {
		return 1
	}
	return 0
}

// clusterNodeName is node k's name (from 0): node1, node2, ... as in `server cluster`.
func clusterNodeName(k int) string { return "node" + strconv.Itoa(k+1) }

// playerKey is a player's key in the players bucket, as the nodes write it
// (gameserver: "p" and the store's player id, which the avatar's sim owner is).
// Were the two to differ, every owner check would find no owner: a loud failure.
func playerKey(owner int32) string { return "p" + strconv.FormatInt(int64(owner), 10) }

// clusterRun is one cluster run.
type clusterRun struct {
	cfg     clusterConfig
	log     *slog.Logger
	rep     *clusterReport
	world   *world.World
	portals map[int32][]portalGoal
	aoi     replication.AOI
	layout  map[string]string
	watch   *clusterWatch
	nodes   []*clusterNode
	bots    []*clusterBot
}

// clusterNode is one in-process node.
type clusterNode struct {
	name  string
	srv   *gameserver.Server
	st    store.Store
	http  interface{ Close() error }
	url   string
	stop  context.CancelFunc
	done  chan error
	watch *nodeWatch
}

// clusterBot is one bot of the cluster run.
type clusterBot struct {
	n      int
	c      *client.Client
	b      *bot.Bot
	trv    traveller
	mu     sync.Mutex // guards avatar, read by the client's reader
	avatar uint64     // its avatar's entity id (kept across regions)
}

func runCluster(cfg clusterConfig, stderr io.Writer) (_ *clusterReport, err error) {
	level := slog.LevelWarn + 100
	if cfg.verbose {
		level = slog.LevelInfo
	}
	cr := &clusterRun{cfg: cfg, log: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})),
		rep: &clusterReport{OK: true, Seed: cfg.seed, Nodes: cfg.nodes, Bots: cfg.bots}, aoi: replication.DefaultAOI}
	cr.rep.Checks.RendezvousEvery = rendezvousEvery
	cr.rep.Checks.HandoffCompared = "every Database-archive field of the avatar its source node packed (Handoff.Emigrated, Migration) against the entity that arrived, but the region, position, move, follow target, changed, command and wake frames"
	w, err := world.LoadDefault()
	if err != nil {
		return nil, err
	}
	cr.world, cr.portals = w, portalGoals(w)
	cr.layout = map[string]string{}
	for i, r := range w.Regions {
		cr.layout[r.Name] = clusterNodeName(i % cfg.nodes)
	}
	cr.rep.Layout = cr.layout

	dir, err := os.MkdirTemp("", "twinframe-headless-cluster-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	// As root, PostgreSQL runs as the postgres user, who must reach its dir in here.
	if err := os.Chmod(dir, 0o711); err != nil {
		return nil, err
	}
	bin, err := devproc.BuildNATS("")
	if err != nil {
		return nil, err
	}
	nats, err := devproc.StartNATS(bin, dir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if serr := nats.Stop(); err == nil && serr != nil {
			err = serr
		}
	}()
	pg, err := devproc.StartPostgresIn(dir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if serr := pg.Stop(); err == nil && serr != nil {
			err = serr
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dsn, err := pg.CreateDatabase(ctx, "twinframe")
	if err != nil {
		return nil, err
	}
	cr.rep.Services = fmt.Sprintf("nats-server (process %d, %s) and PostgreSQL 15 (process %d, port %d) started by the run; %d gameserver nodes in this process, each with its own NATS connection, PostgreSQL pool and HTTP listener",
		nats.Pid(), nats.URL(), pg.Pid(), pg.Port, cfg.nodes)

	// The checker's own view of the players bucket: a member that runs no region.
	jctx, jcancel := context.WithTimeout(ctx, cfg.timeout)
	obs, err := cluster.Join(jctx, cluster.Config{URL: nats.URL(), Node: "headless-check", Lease: clusterLease})
	jcancel()
	if err != nil {
		return nil, err
	}
	defer func() {
		cctx, ccancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer ccancel()
		_ = obs.Close(cctx)
	}()
	cr.watch = newClusterWatch(obs, cfg.timeout)
	defer cr.watch.close()

	defer cr.shutdown()
	for k := range cfg.nodes {
		if err := cr.startNode(ctx, clusterNodeName(k), nats.URL(), dsn); err != nil {
			return cr.rep, err
		}
	}
	if err := cr.waitLayout(); err != nil {
		return cr.rep, err
	}
	if err := cr.join(ctx); err != nil {
		return cr.rep, err
	}
	err = cr.loop(ctx)
	cr.take()
	return cr.rep, err
}

// startNode starts one node on its own loopback listener.
func (cr *clusterRun) startNode(ctx context.Context, name, natsURL, dsn string) error {
	st, err := store.OpenPostgres(ctx, dsn)
	if err != nil {
		return err
	}
	nw := cr.watch.node(name)
	fault := cr.cfg.fault
	srv, err := gameserver.New(gameserver.Config{Store: st, Seed: cr.cfg.seed, DeityToken: "headless",
		OnFrame: func(v gameserver.FrameView) {
			if fault != nil {
				fault(name, v)
			}
			nw.onFrame(v)
		}, AOI: cr.aoi, Logger: cr.log.With("node", name), SaveEvery: 24 * time.Hour,
		MaxPlayers: cr.cfg.bots, MaxConns: cr.cfg.bots + 64, MaxConnsPerAddr: cr.cfg.bots + 64,
		Cluster: &gameserver.ClusterConfig{URL: natsURL, Node: name, Preferred: cr.layout, Lease: clusterLease}})
	if err != nil {
		_ = st.Close()
		return fmt.Errorf("node %s: %w", name, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		_ = st.Close()
		return err
	}
	hs := srv.HTTPServer(nil)
	go func() { _ = hs.Serve(ln) }()
	runCtx, stop := context.WithCancel(ctx)
	n := &clusterNode{name: name, srv: srv, st: st, http: hs, url: "ws://" + ln.Addr().String() + "/ws", stop: stop,
		done: make(chan error, 1), watch: nw}
	go func() { n.done <- srv.Run(runCtx) }()
	cr.nodes = append(cr.nodes, n)
	select {
	case <-srv.Started():
	case err := <-n.done:
		n.done <- err
		return fmt.Errorf("node %s: %w", name, err)
	case <-time.After(cr.cfg.timeout):
		return fmt.Errorf("node %s did not start in %v", name, cr.cfg.timeout)
	}
	return nil
}

// waitLayout waits until every region is stepped by the node the layout gives it.
func (cr *clusterRun) waitLayout() error {
	deadline := time.Now().Add(cr.cfg.timeout)
	for {
		missing := ""
		for _, r := range cr.world.Regions {
			node := cr.layout[r.Name]
			if !cr.watch.node(node).steps(r.ID) {
				missing = r.Name + " on " + node
				break
			}
		}
		if missing == "" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("headless: region %s not stepped after %v", missing, cr.cfg.timeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// join logs the bots in, bot i at the front door of node i mod N.
func (cr *clusterRun) join(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, cr.cfg.timeout)
	defer cancel()
	for i := range cr.cfg.bots {
		cb := &clusterBot{n: i}
		seed := cr.cfg.seed*1000003 + uint64(i)
		door := cr.nodes[i%len(cr.nodes)]
		c, err := client.Dial(ctx, door.url, &client.Options{Name: fmt.Sprintf("bot%03d", i), Logger: cr.log,
			OnMessage: cb.onMessage(cr.watch)})
		if err != nil {
			return fmt.Errorf("bot %d at %s: %w", i, door.name, err)
		}
		cb.c = c
		cr.bots = append(cr.bots, cb)
		if err := c.WaitReady(ctx); err != nil {
			return fmt.Errorf("bot %d at %s: %w", i, door.name, err)
		}
		c.With(func(r *replica.Replica) {
			cb.mu.Lock()
			cb.avatar = r.Player()
			cb.mu.Unlock()
		})
		cb.b, cb.trv = bot.New(c, seed, nil), newTraveller(seed)
	}
	return nil
}

// onMessage sees every message the bot's client decodes: a region change ends a
// handoff's latency.
func (cb *clusterBot) onMessage(w *clusterWatch) func(proto.Message) {
	return func(m proto.Message) {
		if _, ok := m.(*pb.NetMessageRegionChange); !ok {
			return
		}
		now := time.Now()
		cb.mu.Lock()
		avatar := cb.avatar
		cb.mu.Unlock()
		if avatar != 0 {
			w.arrived(sim.EntityID(avatar), now)
		}
	}
}

// loop runs the bots and the driver's checks for the configured frames, at 20 Hz.
func (cr *clusterRun) loop(ctx context.Context) error {
	start := time.Now()
	tick := time.NewTicker(framePeriod)
	defer tick.Stop()
	defer func() { cr.rep.WallSeconds = time.Since(start).Seconds() }()
	for f := 1; f <= cr.cfg.frames; f++ {
		select {
		case <-tick.C:
		case <-ctx.Done():
			return ctx.Err()
		}
		for _, b := range cr.bots {
			walked, err := b.trv.play(b.c, b.b, cr.cfg.travel, cr.portals)
			if walked {
				cr.rep.Walks++
			}
			if err != nil && !errors.Is(err, replica.ErrTooManyInputs) {
				// The client's own error says why its connection ended.
				return fmt.Errorf("bot %d (at node %s's front door): step: %w (client: %v)", b.n, cr.nodes[b.n%len(cr.nodes)].name, err, b.c.Err())
			}
		}
		for _, b := range cr.bots {
			cr.checkBot(b)
		}
		if f%rendezvousEvery == 0 {
			cr.watch.rendezvous()
		}
		cr.take()
		cr.rep.Frames = f
	}
	return nil
}

// checkBot runs the client side checks of bot b: the AOI around its avatar, and,
// at the frame its client has, its region and what it holds against the node
// that steps that region.
func (cr *clusterRun) checkBot(b *clusterBot) {
	for _, v := range bot.CheckAOI(b.c, cr.aoi) {
		cr.rep.violate(headlessViolation{Frame: v.Frame, Check: "aoi", Bot: b.n, Entity: v.Entity, What: v.What + describe(b.c, v.Entity)})
	}
	cr.rep.Checks.AOIChecks++
	if err := b.c.Err(); err != nil {
		cr.rep.violate(headlessViolation{Check: "client", Bot: b.n, What: err.Error()})
	}
	var held []uint64
	var region int32
	var frame uint64
	ready := false
	b.c.With(func(r *replica.Replica) {
		held, region, frame, ready = r.IDs(nil), r.RegionID(), r.ServerFrame(), r.Ready() && r.Game() != nil
	})
	if !ready {
		return
	}
	node := cr.watch.node(cr.layout[cr.world.Regions[regionIndex(cr.world, region)].Name])
	checked, bad := node.checkClient(b.n, b.avatar, region, frame, held)
	if checked {
		cr.rep.Checks.AOIRegionChecks++
	}
	for _, v := range bad {
		cr.rep.violate(v)
	}
}

// regionIndex returns the index of region id in w.Regions (0 when unknown: the
// check then looks at the first region's node, and finds the client elsewhere).
func regionIndex(w *world.World, id int32) int {
	for i, r := range w.Regions {
		if r.ID == id {
			return i
		}
	}
	return 0
}

// take adds the watch's counts and findings to the report.
func (cr *clusterRun) take() {
	t := cr.watch.take()
	c, h := &cr.rep.Checks, &cr.rep.Handoffs
	c.OwnerChecks += t.ownerChecks
	c.NodeFrames += t.nodeFrames
	c.Rendezvous += t.rendezvous
	c.RendezvousMissed += t.missed
	h.Count += t.handoffs
	h.CrossNode += t.crossNode
	h.Compared += t.compared
	h.Measured = len(t.latency)
	h.Latency = harness.Percentiles(t.latency)
	c.RendezvousHold = harness.Percentiles(t.holds)
	for _, v := range t.bad {
		cr.rep.violate(v)
	}
}

// shutdown closes the bots, then stops the nodes (each saves its players and
// leaves the cluster while NATS and PostgreSQL still run).
func (cr *clusterRun) shutdown() {
	for _, b := range cr.bots {
		_ = b.c.Close()
	}
	cr.watch.close()
	for _, n := range cr.nodes {
		n.stop()
	}
	for _, n := range cr.nodes {
		<-n.done
		_ = n.http.Close()
		_ = n.st.Close()
	}
	cr.nodes = nil
	cr.bots = nil
}

// sortedIDs returns the ids of g's entities, ascending (Entities is in id order).
func sortedIDs(g *sim.Game, into []sim.EntityID) []sim.EntityID {
	into = into[:0]
	for _, e := range g.Entities() {
		into = append(into, e.ID())
	}
	if !slices.IsSorted(into) {
		slices.Sort(into)
	}
	return into
}

// clusterFlags checks the flags of a cluster run (-nodes N) and runs it. The
// lockstep run's network simulation, recording, pacing and check tuning have no
// meaning in a real-time cluster run: setting one is a usage error rather than
// ignored.
func clusterFlags(fl *cli.Flags, nodes int, cfg headlessConfig, stdout, stderr io.Writer) int {
	var bad []string
	fl.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "net", "record", "realtime", "drift-bound", "check-aoi-remove", "aoi-refresh", "spiral-frames", "cpuprofile":
			bad = append(bad, "-"+f.Name)
		}
	})
	w, err := world.LoadDefault()
	if err != nil {
		fmt.Fprintf(stderr, "server: headless: %v\n", err)
		return 1
	}
	switch {
	case nodes < 1 || nodes > len(w.Regions):
		// A node without a region would never step, so never come to a rendezvous.
		fmt.Fprintf(stderr, "server: headless: -nodes %d: want 1 to %d (a region or more per node; the default world has %d)\n", nodes, len(w.Regions), len(w.Regions))
		return 2
	case len(bad) > 0:
		fmt.Fprintf(stderr, "server: headless: %s: not for a cluster run (-nodes)\n", strings.Join(bad, ", "))
		return 2
	case cfg.bots > 100:
		fmt.Fprintf(stderr, "server: headless: -bots %d: at most 100 in a cluster run\n", cfg.bots)
		return 2
	}
	return clusterCommand(clusterConfig{nodes: nodes, frames: cfg.frames, bots: cfg.bots, seed: cfg.seed, travel: cfg.travel,
		report: cfg.report, timeout: cfg.timeout, verbose: cfg.verbose}, stdout, stderr)
}
