package gameserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twinframe/twinframe/server/internal/frameclock"
	"github.com/twinframe/twinframe/server/internal/store"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replication"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
)

// Errors.
var (
	ErrStopped = errors.New("gameserver: server stopped")
	ErrConfig  = errors.New("gameserver: bad configuration")
)

// AvatarPrototype is the prototype of player avatars in the default world.
const AvatarPrototype int32 = 0

// Config configures a Server. Zero fields take the defaults in parentheses.
type Config struct {
	Store      store.Store // required
	Files      fs.FS       // configuration files (world.DefaultFiles())
	Seed       uint64      // game seed
	DeityToken string      // required: the token a deity logs in with
	// OpenLogin lets any login take a name and its avatar without the account's
	// secret (accounts.go), as before accounts: for local debugging only.
	OpenLogin bool
	// OriginPatterns are the cross-origin hosts allowed to open /ws, as
	// websocket.AcceptOptions.OriginPatterns; same-origin is always allowed.
	OriginPatterns []string
	NoPopulation   bool
	Period         time.Duration   // frame period (50 ms); tests shorten it
	AOI            replication.AOI // (replication.DefaultAOI)
	AOIMove        float32         // metres the avatar moves before its AOI is recomputed (2)
	AOIRefresh     int             // frames between AOI recomputations regardless (10)
	InboxSize      int             // messages a session may queue between frames (64)
	OutboxSize     int             // packets queued for a writer before it is a slow consumer (32)
	MaxInputLead   uint64          // frames ahead an input may be stamped (40)
	SaveEvery      time.Duration   // every online avatar that changed is saved this often, spread over the frames (30 s)
	WriteTimeout   time.Duration   // one websocket write (5 s)
	LoginTimeout   time.Duration   // from connect to login (10 s)
	// Inputs (move, stop, fire) a player may have applied: MaxInputsPerFrame a
	// frame on average, in bursts of at most twice that (4); the excess is dropped
	// and counted (twinframe_inputs_dropped_total). A session that has inputs
	// dropped in InputFloodSeconds consecutive seconds is disconnected as a
	// flood (3).
	MaxInputsPerFrame int
	InputFloodSeconds int
	// Xdump requests of players (sessions and anonymous HTTP), as token buckets:
	// XDumpRate a second per session in bursts of XDumpBurst (4, 8), and
	// XDumpAddrRate a second per client address in bursts of XDumpAddrBurst
	// (16, 32). A deity is not limited.
	XDumpRate      float64
	XDumpBurst     int
	XDumpAddrRate  float64
	XDumpAddrBurst int
	DumpWorkers    int // dumps encoded at once, off the frame loop (1)
	// Workers is how many regions step at once (GOMAXPROCS): each region is its own
	// game, and a frame steps them in parallel, then replicates.
	Workers int
	// Clients walk other entities along their replicated paths (replication.Remote),
	// so by default their locomotion (Proximity policy) is sent only when the
	// command changes (new path, goal, stop or speed), when they start, stop or
	// are blocked, when the clients' walked copy strays beyond replication.WalkTolerance or
	// replication.YawTolerance from the entity (a collision, a slide), and every
	// RefreshFrames while they move. EveryFrameUpdates sends them instead every
	// frame the walked copy is not exactly the entity as the wire carries it.
	// A client's own avatar is always sent on every change.
	EveryFrameUpdates bool
	RefreshFrames     uint64 // (40)
	// Clock is the frame loop's time source (wall clock: monotonic time since New).
	Clock  frameclock.Clock
	Logger *slog.Logger // (discard)
	// OnFrame, if set, is called on the frame loop after each stepped frame (hooks.go).
	OnFrame func(FrameView)

	// Admission (admission.go). MaxPlayers: players in the game at once, the
	// deity not counted; one more is refused with ERROR_CODE_SERVER_FULL
	// (DefaultMaxPlayers; negative: no limit). IdleTimeout: a player whose
	// input stays the same this long on Clock is logged out with
	// ERROR_CODE_IDLE (DefaultIdleTimeout; negative: never).
	MaxPlayers  int
	IdleTimeout time.Duration
	// HTTP (httpserver.go, limits.go). AllowHosts: the Host names (or
	// addresses; "*" any, "*.example.com" subdomains) requests may carry
	// (LoopbackHosts). MaxConns, MaxConnsPerAddr: open connections in total and
	// per remote IP (DefaultMaxConns, DefaultMaxConnsPerAddr; negative: no
	// limit). HTTPIdleTimeout: kept-alive connections idle this long are closed
	// (DefaultHTTPIdleTimeout). MetricsToken: if set, /metrics needs it (or the
	// deity token) as a bearer token or cookie.
	AllowHosts      []string
	MaxConns        int
	MaxConnsPerAddr int
	HTTPIdleTimeout time.Duration
	MetricsToken    string

	// FrameStart and FrameWork, if set, run inside every frame, first and
	// after replication, with the loop's frame number (frameclock.Report.Frame):
	// load tests measure the frame and inject work through them (server loadtest).
	FrameStart, FrameWork func(frame uint64)

	// Cluster, if set, makes the server a node of a cluster (clusternet.go):
	// New joins it, and the server runs only the regions it holds.
	Cluster *ClusterConfig
}

func (c *Config) defaults() error {
	if c.Store == nil {
		return fmt.Errorf("%w: no store", ErrConfig)
	}
	if c.DeityToken == "" {
		return fmt.Errorf("%w: no deity token", ErrConfig)
	}
	if c.Files == nil {
		c.Files = world.DefaultFiles()
	}
	if c.Period <= 0 {
		c.Period = sim.FrameMillis * time.Millisecond
	}
	if c.AOI == (replication.AOI{}) {
		c.AOI = replication.DefaultAOI
	}
	if !c.AOI.Valid() {
		return fmt.Errorf("%w: AOI %+v", ErrConfig, c.AOI)
	}
	setDefault(&c.AOIMove, 2)
	setDefault(&c.AOIRefresh, 10)
	setDefault(&c.InboxSize, 64)
	setDefault(&c.OutboxSize, 32)
	setDefault(&c.MaxInputLead, 40)
	setDefault(&c.RefreshFrames, 40)
	setDefault(&c.SaveEvery, 30*time.Second)
	setDefault(&c.WriteTimeout, 5*time.Second)
	setDefault(&c.LoginTimeout, 10*time.Second)
	setDefault(&c.MaxInputsPerFrame, 4)
	setDefault(&c.InputFloodSeconds, 3)
	setDefault(&c.XDumpRate, 4)
	setDefault(&c.XDumpBurst, 8)
	setDefault(&c.XDumpAddrRate, 16)
	setDefault(&c.XDumpAddrBurst, 32)
	setDefault(&c.DumpWorkers, 1)
	c.netDefaults()
	if c.Clock == nil {
		c.Clock = frameclock.Wall()
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return nil
}

func setDefault[T comparable](p *T, v T) {
	var zero T
	if *p == zero {
		*p = v
	}
}

// Server is a running game: the simulation, its sessions and its HTTP handler.
// Create it with New, serve Handler, and call Run once.
type Server struct {
	cfg     Config
	log     *slog.Logger
	metrics *metrics
	saver   *saver
	// autosave is loop-owned (persist.go).
	autosave    autosave
	regionSaves regionSaver
	acct        *accounts

	world  *world.World // the game's world (must not change while the game uses it)
	tables []*pb.NetStructConfigFile
	hash   []byte
	// Live edits (live.go): the configuration files the server started with, and
	// the tables edits replaced, in their current form.
	baseTables []*pb.NetStructConfigFile
	edited     []string // names of the tables edited, in uid order
	maxTables  int      // bytes a region change may take (maxRegionChange)

	// Dumps (dump.go).
	dumpLimits    *dumpLimiter
	dumpSem       chan struct{} // one token per encoder at work
	dumpWG        sync.WaitGroup
	dumpsInFlight atomic.Int64 // dumps queued or encoding

	// Requests to the loop, run at the next frame boundary.
	reqs    chan func()
	done    chan struct{} // closed when the loop stops taking requests
	running atomic.Bool
	started chan struct{} // closed once Run has started the frame loop
	nextID  atomic.Uint64
	conns   sync.WaitGroup // connection goroutines
	lim     *connLimiter   // set by HTTPServer
	limOnce sync.Once

	// Owned by the loop.
	regions   []*region // the world's regions, in table order; the first is where players enter
	live      []*region // the regions this server steps: all, or in a cluster those it holds
	cl        *clusterNet
	travelled []uint64  // avatars handed off this frame (regions.go)
	handoffs  []Handoff // and what their games packed, for the OnFrame hook
	samples   []regionSample
	sessions  []*session // in join order
	byName    map[string]*session
	paused    bool
	edits     int    // live edits applied
	stepLeft  uint32 // frames to step while paused
	lost      []world.Lost
	lastSave  time.Duration
	timings   timingRing
	stats     frameStats
	pk        protocol.Packet
	loopFrame uint64     // the frame loop's frame number
	dumpJobs  []*dumpJob // this frame's dump requests
	dumpStats dumpStats
}

// New loads the world and builds the game. It does not start the frame loop.
func New(cfg Config) (*Server, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, log: cfg.Logger, acct: newAccounts(), reqs: make(chan func(), 256), done: make(chan struct{}), started: make(chan struct{}),
		byName: map[string]*session{}}
	tables, err := replication.ReadTables(cfg.Files)
	if err != nil {
		return nil, err
	}
	s.tables, s.hash = tables.Files, tables.Hash
	s.baseTables, s.maxTables = slices.Clone(s.tables), maxRegionChange
	if s.world, err = world.Load(cfg.Files); err != nil {
		return nil, err
	}
	if s.regions, err = s.newRegions(s.world); err != nil {
		return nil, err
	}
	if cfg.Cluster == nil {
		for _, r := range s.regions {
			r.live = true
		}
		s.setLive()
	}
	s.metrics = newMetrics()
	s.dumpLimits = newDumpLimiter(&s.cfg)
	s.dumpSem = make(chan struct{}, s.cfg.DumpWorkers)
	s.saver = newSaver(cfg.Store, s.log, s.metrics)
	s.pk.Limits = serverPacketLimits
	if cfg.Cluster != nil {
		if err := s.joinCluster(*cfg.Cluster); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// serverPacketLimits are what the server builds: room for a region change.
var serverPacketLimits = replication.PacketLimits

// clientPacketLimits are what the server reads from a client: room for the largest
// client message (a 256 KiB live edit) and few messages per packet.
var clientPacketLimits = protocol.Limits{MaxPacketSize: 260 << 10, MaxMessageSize: 256 << 10, MaxMessages: 64}

// Started is closed once Run has started: from then on /healthz answers ok, so a
// caller can announce the server only when it is really up.
func (s *Server) Started() <-chan struct{} { return s.started }

// Run runs the frame loop until ctx ends, then shuts down: every session is closed
// (ERROR_CODE_SHUTDOWN), every avatar saved in one transaction, pending saves
// flushed, and connection goroutines awaited (up to five seconds). It returns nil
// after a clean shutdown.
func (s *Server) Run(ctx context.Context) error {
	if !s.running.CompareAndSwap(false, true) {
		return fmt.Errorf("gameserver: Run called twice")
	}
	close(s.started)
	saverDone := make(chan struct{})
	go func() { s.saver.run(); close(saverDone) }()
	s.lastSave = s.cfg.Clock.Now()
	drv := frameclock.New(s.cfg.Clock, frameclock.Config{Period: s.cfg.Period})
	var dropped uint64
	err := drv.Run(ctx, s.frame, func(r frameclock.Report) {
		s.metrics.frameDuration.Observe(r.Duration.Seconds())
		s.metrics.frameLateness.Observe(r.Lateness.Seconds())
		if r.Dropped > dropped {
			s.metrics.framesDropped.Add(float64(r.Dropped - dropped))
			dropped = r.Dropped
		}
		s.timings.add(r, s.regionSamples(r))
	})
	if !errors.Is(err, frameclock.ErrStopped) {
		s.log.Error("frame loop failed", "err", err)
	}
	// Shutdown: stop taking requests, run those already queued.
	close(s.done)
	s.runRequests()
	s.dropDumps()
	var saves []store.Save
	for _, c := range s.sessions {
		c.fail(pb.ErrorCode_ERROR_CODE_SHUTDOWN, "server shutting down")
		if sv, ok := s.packAvatar(c); ok {
			saves = append(saves, sv)
		}
	}
	ended := s.sessions
	s.sessions = nil
	s.metrics.sessions.Set(0)
	if s.cl != nil {
		s.failDoors()
	}
	s.saver.stop(saves)
	<-saverDone
	if s.cl != nil {
		// The players' saves are committed (or reported lost): let them go.
		// Requests being answered end first (a handoff refused now gives its
		// player's record back), then the sessions' last words reach their front
		// doors and nodes while NATS is still there; then the regions go.
		for _, c := range ended {
			s.releasePlayer(c)
		}
		s.stopRequests()
	}
	waited := make(chan struct{})
	go func() { s.conns.Wait(); s.dumpWG.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(5 * time.Second):
		s.log.Warn("connections still open after shutdown")
	}
	if s.cl != nil {
		s.releaseLeftovers()
		s.saveRegions()
		s.leaveCluster()
	}
	if err := s.saver.err(); err != nil {
		return err
	}
	if errors.Is(err, frameclock.ErrStopped) {
		return nil
	}
	return err
}

// do runs fn in the frame loop at the next frame boundary and waits for it. When
// ctx ends or the server stops before fn has started, fn never runs and do returns
// the error: a caller that gives up (a handoff that answers no) must not find fn
// done behind its back.
func (s *Server) do(ctx context.Context, fn func()) error {
	ran := make(chan struct{})
	var state atomic.Int32 // doPending, doStarted or doAbandoned
	req := func() {
		if state.CompareAndSwap(doPending, doStarted) {
			fn()
		}
		close(ran)
	}
	select {
	case s.reqs <- req:
	case <-s.done:
		return ErrStopped
	case <-ctx.Done():
		return ctx.Err()
	}
	var err error
	select {
	case <-ran:
		return nil
	case <-s.done:
		err = ErrStopped
	case <-ctx.Done():
		err = ctx.Err()
	}
	if state.CompareAndSwap(doPending, doAbandoned) {
		return err
	}
	<-ran // fn has started in the loop (or in shutdown's last requests): it ends
	return nil
}

const (
	doPending int32 = iota
	doStarted
	doAbandoned
)

func (s *Server) runRequests() {
	for {
		select {
		case fn := <-s.reqs:
			fn()
		default:
			return
		}
	}
}

// frame is one tick of the frame loop (docs/ARCHITECTURE.md §3).
func (s *Server) frame(loopFrame uint64) error {
	if s.cfg.FrameStart != nil {
		s.cfg.FrameStart(loopFrame)
	}
	s.loopFrame = loopFrame
	// Travel this frame: deity teleports (in the drain) and portals (after the step).
	s.travelled = s.travelled[:0]
	clear(s.handoffs)
	s.handoffs = s.handoffs[:0]
	s.runRequests()
	// 1. Inputs: drain the inboxes; drop sessions that ended.
	n := 0
	for _, c := range s.sessions {
		if c.closed() {
			s.leave(c)
			continue
		}
		s.sessions[n] = c
		n++
		s.drain(c)
	}
	clear(s.sessions[n:])
	s.sessions = s.sessions[:n]
	s.metrics.sessions.Set(float64(n))
	s.kickIdle()

	stepped := false
	var start time.Duration
	if !s.paused || s.stepLeft > 0 {
		if s.paused {
			s.stepLeft--
		}
		// 2–5: events, locomotion, physics, deferred work, every region in
		// parallel; then the avatars that entered a portal change region.
		start = s.stepRegions()
		s.travel()
		stepped = true
	} else {
		start = s.cfg.Clock.Now()
	}
	// 6. Replication (with the loop's timings once a second).
	s.queueFrameStats()
	s.prepareRegions(stepped, start)
	s.replicate()
	s.dispatchDumps()
	s.onFrame(stepped)
	if s.cfg.FrameWork != nil {
		s.cfg.FrameWork(loopFrame)
	}
	now := s.cfg.Clock.Now()
	s.autosaveStep(now - s.lastSave)
	s.regionSaveStep(now - s.lastSave)
	s.lastSave = now
	return nil
}

// join runs in the loop: it gives the session its avatar (the one of an older
// session with the same name, the saved one, or a new one at a spawn point) and
// queues the login result and region change.
func (s *Server) join(c *session, saved []byte) {
	if c.closed() {
		return
	}
	if old := s.byName[c.name]; old != nil && !old.closed() && old.avatar != 0 {
		old.fail(pb.ErrorCode_ERROR_CODE_REPLACED, "a newer session logged in as "+c.name)
		c.reg, c.avatar, old.avatar = old.reg, old.avatar, 0
		c.view.Resume(old.view.Ack())
	}
	if c.avatar == 0 && !s.admit(c) {
		return
	}
	if c.avatar == 0 {
		if b, ok := s.saver.latest(c.playerID); ok {
			saved = b
		}
		r, id, err := s.spawnAvatar(saved, c.playerID)
		if err != nil {
			s.log.Error("spawn avatar", "name", c.name, "err", err)
			c.fail(pb.ErrorCode_ERROR_CODE_INTERNAL, "no room for an avatar")
			return
		}
		c.reg, c.avatar = r, id
	}
	c.view.SetAvatar(c.avatar)
	c.reg.repl.Attach(&c.view)
	s.byName[c.name] = c
	s.sessions = append(s.sessions, c)
	c.joined = true
	s.autosave.add(c)
	s.sendRegion(c)
	if c.closed() {
		return
	}
	s.log.Info("login", "session", c.id, "name", c.name, "role", c.role, "avatar", c.avatar)
}

// leave runs in the loop for a session that ended: its avatar is saved and leaves
// the game (unless a newer session took it over).
func (s *Server) leave(c *session) {
	if !c.joined {
		return
	}
	c.joined = false
	if c.reg != nil {
		c.reg.repl.Detach(&c.view)
	}
	if s.byName[c.name] == c {
		delete(s.byName, c.name)
	}
	s.log.Info("logout", "session", c.id, "name", c.name, "reason", c.reason(), "detail", c.reasonText())
	if c.avatar == 0 {
		return
	}
	if sv, ok := s.packAvatar(c); ok {
		s.saver.queueThen(sv, func() { s.releasePlayer(c) })
	} else {
		go s.releasePlayer(c)
	}
	if err := c.reg.game.Destroy(c.avatar); err != nil {
		s.log.Warn("destroy avatar", "avatar", c.avatar, "err", err)
	}
	c.avatar = 0
}
