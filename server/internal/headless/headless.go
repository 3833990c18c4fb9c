// Package headless is `server headless`: the real game server in-process with
// bot clients over loopback websockets, run in lockstep for N frames with the
// invariants, AOI, prediction drift and frame schedule checked every frame.
// It tests the whole system without a screen, reproducibly from a seed, and
// fails (exit 1) on any violation.
//
// With -nodes N it runs a cluster instead (cluster.go): a real nats-server and a
// real PostgreSQL started by the run, N gameserver nodes in this process (so that
// the checks can hold every node's loop at one instant; everything between nodes
// still goes over NATS and PostgreSQL), bots that travel between nodes, in real
// time; it checks player ownership, entity ids across nodes, handoffs and the
// AOI, and reports the handoffs and their latency.
package headless

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/client"
	"github.com/twinframe/twinframe/client/bot"
	"github.com/twinframe/twinframe/client/netsim"
	"github.com/twinframe/twinframe/internal/cputime"
	"github.com/twinframe/twinframe/server/internal/cli"
	"github.com/twinframe/twinframe/server/internal/frameclock"
	"github.com/twinframe/twinframe/server/internal/gameserver"
	"github.com/twinframe/twinframe/server/internal/harness"
	"github.com/twinframe/twinframe/server/internal/store"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/replication"
	"github.com/twinframe/twinframe/shared/world"
	"github.com/twinframe/twinframe/shared/xdump"
	"google.golang.org/protobuf/proto"
)

// The headless run (docs/ARCHITECTURE.md §1 job 4): the real server in-process on a loopback
// port, M bot clients over real websockets, N frames, checks every frame.
//
// Design note: the run is lockstep. The server's frame loop gets a stepClock
// (gameserver.Config.Clock) and runs one frame per grant; between frames the
// driver delivers the frame's packets to every client through a virtual-time
// link (netsim Shapers on game time, so -net latency=80ms is 80 ms of game time
// even when a frame takes 1 ms of wall time), waits until every client has
// processed them, steps every bot (client Update, a seeded random input), runs
// the checks, writes what is due to the server and waits until the server's
// session readers have consumed every byte the clients wrote. Only then is the
// next frame granted. Nothing depends on wall-clock timing, so a run is
// reproducible from its seed and a zero-latency run has no late inputs. Without
// -realtime the frames run back to back; with it, a frameclock.Driver on the wall
// clock paces them at 20 Hz, and its lateness and dropped frames are the death
// spiral check. Without -realtime the server frames' measured wall times are
// replayed through a frameclock.Driver on a simulated clock, which says what a
// 20 Hz server would have done with them.

const framePeriod = harness.FramePeriod

var protocolReadLimits = client.ReadLimits

const headlessUsage = `usage: server headless [-frames N] [-bots M] [-seed S] [-net CONDITIONS] [-report FILE] [-record FILE] [-realtime] [-travel P] [-nodes N]`

type headlessConfig struct {
	frames, bots int
	seed         uint64
	net          netsim.Conditions
	netText      string
	report       string
	record       string // -record: the recording's file
	origin       string // the command line, for the recording's header
	realtime     bool
	driftBound   float32 // metres; negative: the default for the conditions
	aoiRemove    float32 // the remove radius the AOI check holds the server to (0: the server's)
	aoiRefresh   int     // the server's AOIRefresh (0: its default)
	spiral       int     // frames a backlog may last before it is a death spiral
	timeout      time.Duration
	verbose      bool
	travel       float64 // chance per travel decision that a bot walks to a portal
}

// Command runs `server headless ARGS...` (args without the command name) and
// returns the exit status: 0 when every check held, 1 on a violation or a
// failed run, 2 for a usage error.
func Command(args []string, stdout, stderr io.Writer) int {
	fl := cli.New("headless", stderr)
	fl.Synopsis, fl.Prefix = headlessUsage, "server: headless: "
	var cfg headlessConfig
	fl.IntVar(&cfg.frames, "frames", 1200, "`frames` to run after every bot has joined")
	fl.IntVar(&cfg.bots, "bots", 8, "bot `clients`")
	fl.Uint64Var(&cfg.seed, "seed", 1, "`seed` of the game, the bots and the network simulation")
	fl.StringVar(&cfg.netText, "net", "", "network `conditions` per direction, e.g. latency=80ms,jitter=20ms (game time)")
	fl.StringVar(&cfg.report, "report", "", "write the JSON report to `file`, and the final state's xdump next to it (.xdump)")
	fl.StringVar(&cfg.record, "record", "", "write the whole run (every region's state every frame, and the violations) as a recording to `file` (docs/RECORDING.md)")
	fl.BoolVar(&cfg.realtime, "realtime", false, "run at 20 Hz instead of as fast as possible")
	bound := fl.Float64("drift-bound", -1, "prediction error bound in `metres` (default 1 without added latency, 4 with)")
	aoi := fl.Float64("check-aoi-remove", 0, "hold the server to this AOI remove `radius` (default: the one it uses; smaller makes the check fail, for testing it)")
	fl.IntVar(&cfg.aoiRefresh, "aoi-refresh", 0, "the server's AOI refresh period in `frames` (default: the server's); 1 recomputes every view every frame")
	fl.IntVar(&cfg.spiral, "spiral-frames", 20, "`frames` in a row a frame may start a full period late before it is a death spiral")
	fl.DurationVar(&cfg.timeout, "timeout", 20*time.Second, "longest wait for the server or a client before the run fails")
	fl.Float64Var(&cfg.travel, "travel", 0.3, "`chance`, per goal a bot chooses, that it walks to a portal of its region instead (0: no travel)")
	fl.BoolVar(&cfg.verbose, "v", false, "log the server's and clients' messages")
	profile := fl.String("cpuprofile", "", "write a CPU profile of the run to `file`")
	nodes := fl.Int("nodes", 0, "run a cluster of `N` nodes (NATS and PostgreSQL started by the run, the nodes in-process, in real time: cluster.go) instead of one lockstep server")
	if status, ok := fl.Parse(args); !ok {
		return status
	}
	if cfg.frames <= 0 || cfg.bots <= 0 || cfg.bots > 1000 || cfg.timeout <= 0 || cfg.spiral <= 0 || cfg.aoiRefresh < 0 ||
		!(cfg.travel >= 0 && cfg.travel <= 1) {
		fmt.Fprintf(stderr, "server: headless: -frames, -bots (at most 1000), -timeout and -spiral-frames must be positive, -travel between 0 and 1\n")
		return 2
	}
	if *nodes != 0 {
		return clusterFlags(fl, *nodes, cfg, stdout, stderr)
	}
	var err error
	if cfg.net, err = netsim.ParseConditions(cfg.netText); err == nil {
		err = cfg.net.Validate()
	}
	if err != nil {
		fmt.Fprintf(stderr, "server: headless: -net: %v\n", err)
		return 2
	}
	cfg.driftBound, cfg.aoiRemove = float32(*bound), float32(*aoi)
	cfg.origin = strings.TrimSpace("server headless " + strings.Join(args, " "))
	if cfg.driftBound < 0 {
		cfg.driftBound = 1
		if cfg.net != (netsim.Conditions{}) {
			cfg.driftBound = 4
		}
	}
	if *profile != "" {
		f, err := os.Create(*profile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(stderr, "server: headless: %v\n", err)
			return 1
		}
		defer f.Close()
		defer pprof.StopCPUProfile()
	}
	rep, err := runHeadless(cfg, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "server: headless: %v\n", err)
		if rep == nil {
			return 1
		}
		rep.Failure = err.Error()
		rep.OK = false
	}
	if err == nil {
		rep.checksRan()
	}
	if rerr := rep.rec.close(rep.LastFrame, rep.Failure); rerr != nil {
		fmt.Fprintf(stderr, "server: headless: -record: %v\n", rerr)
		return 1
	}
	rep.summary(stdout)
	if cfg.report != "" {
		if werr := rep.write(cfg.report); werr != nil {
			fmt.Fprintf(stderr, "server: headless: %v\n", werr)
			return 1
		}
	}
	if !rep.OK {
		return 1
	}
	return 0
}

// checksRan adds a "not-run" violation for every check the report counts that
// checked nothing: a check that never ran proves nothing, so the run must not pass
// on it (the exact check, for one, finds nothing to flag when no prediction was ever
// exact). The AOI check's projectiles are not among them: a run may see none.
func (r *headlessReport) checksRan() {
	checks := []struct {
		name string
		n    int
		what string
	}{
		{"invariants", r.InvariantChecks, "states checked for the simulation invariants (invariantChecks)"},
		{"aoi", r.AOI.Checks, "bot-frames checked against the AOI (aoi.checks)"},
		{"deity", r.AOI.PlayerDumps, "players' xdumps checked for deity fields (aoi.playerDumpsChecked)"},
		{"drift", r.Drift.FramesCompared, "predicted frames compared with the server's (drift.framesCompared)"},
		{"ids", r.Travel.IDChecks, "frames checked for an entity id in two regions (travel.idChecks)"},
		{"region", r.Travel.RegionChecks, "bot-frames checked for the player in exactly one region (travel.regionChecks)"},
		{"aoi-region", r.Travel.AOIChecks, "bot-frames checked for entities of another region (travel.aoiRegionChecks)"},
	}
	if r.Travel.Chance > 0 {
		checks = append(checks, struct {
			name string
			n    int
			what string
		}{"handoff", r.Travel.Handoffs, "handoffs whose saved fields were compared (travel.handoffs)"})
	}
	if r.Drift.ExactCheck {
		checks = append(checks, struct {
			name string
			n    int
			what string
		}{"exact", r.Drift.ExactFrames, "bot-frames whose prediction was the server's exact state (drift.exactFrames)"})
	}
	for _, c := range checks {
		if c.n == 0 {
			r.violate(headlessViolation{Frame: r.LastFrame, Check: "not-run",
				What: fmt.Sprintf("the %s check did not run: 0 %s", c.name, c.what)})
		}
	}
}

// headlessViolation is one failed check.
type headlessViolation struct {
	Frame uint64 `json:"frame"`
	Check string `json:"check"` // aoi, aoi-region, deity, drift, exact, handoff, ids, invariants, region, spiral, client, not-run
	// Invariant names the simulation invariant a Check "invariants" violation
	// breaks: ids, finite, region, walkable, interpenetration, or xdump (the
	// final state's dump does not rebuild a game).
	Invariant string `json:"invariant,omitempty"`
	Bot       int    `json:"bot,omitempty"`
	Entity    uint64 `json:"entity,omitempty"`
	What      string `json:"what"`
}

// maxListed caps the violations the report lists (all are counted).
const maxListed = 200

// violationList is a report's violations: all counted, the first maxListed
// listed. The reports embed it where their JSON has its two fields.
type violationList struct {
	Violations int                 `json:"violations"`
	Listed     []headlessViolation `json:"violationList"`
}

func (l *violationList) add(v headlessViolation) {
	l.Violations++
	if len(l.Listed) < maxListed {
		l.Listed = append(l.Listed, v)
	}
}

// summary writes the count and the first ten violations.
func (l *violationList) summary(w io.Writer) {
	fmt.Fprintf(w, "headless: %d violations\n", l.Violations)
	for i, v := range l.Listed {
		if i == 10 {
			fmt.Fprintf(w, "headless:   ... (%d more in the report)\n", l.Violations-10)
			break
		}
		fmt.Fprintf(w, "headless:   frame %d: %s: bot %d entity %d: %s\n", v.Frame, v.Check, v.Bot, v.Entity, firstLine(v.What))
	}
}

// okOrFail is a summary's status word.
func okOrFail(ok bool) string {
	if ok {
		return "ok"
	}
	return "FAIL"
}

// headlessReport is the JSON report.
type headlessReport struct {
	OK       bool   `json:"ok"`
	Failure  string `json:"failure,omitempty"`
	Seed     uint64 `json:"seed"`
	Bots     int    `json:"bots"`
	Frames   int    `json:"frames"`   // frames run and checked
	Net      string `json:"net"`      // the conditions on each direction ("" : none)
	Realtime bool   `json:"realtime"` // paced at 20 Hz
	// JoinFrames ran before the checked frames while the bots logged in.
	JoinFrames  int     `json:"joinFrames"`
	FirstFrame  uint64  `json:"firstFrame"` // server frame of the first checked frame
	LastFrame   uint64  `json:"lastFrame"`
	WallSeconds float64 `json:"wallSeconds"` // the checked frames
	CPUSeconds  float64 `json:"cpuSeconds"`  // process CPU time over them (user+system)
	FPS         float64 `json:"framesPerSecond"`
	// ServerFrame is the wall time of the server's frame (inputs, step,
	// replication); Frame the whole lockstep frame (server, delivery, bots, checks).
	ServerFrame harness.Durations `json:"serverFrameTime"`
	Frame       harness.Durations `json:"frameTime"`
	Schedule    struct {
		Source        string            `json:"source"` // "measured" (-realtime) or "replayed" (server frame times through a 20 Hz driver)
		Dropped       uint64            `json:"droppedFrames"`
		MaxBacklog    int               `json:"maxBacklog"`
		LongestBehind int               `json:"longestBehindFrames"` // frames in a row that started a full period late
		SpiralFrames  int               `json:"spiralFrames"`        // the limit
		Lateness      harness.Durations `json:"lateness"`
	} `json:"schedule"`
	AOI struct {
		Add    float32 `json:"addM"`
		Remove float32 `json:"removeM"` // what the check holds the server to
		Slack  float32 `json:"slackM"`
		Checks int     `json:"checks"` // bot-frames checked
		// Projectiles counts the projectiles held over the bot-frames checked:
		// each is judged where its flight has it at that frame (bot.InFlight),
		// with ProjectileSlack for the quantized ends of its flight.
		Projectiles     int     `json:"projectilesChecked"`
		ProjectileSlack float32 `json:"projectileSlackM"`
		// PlayerDumps counts the players' own xdumps of the entities (one per
		// bot, half-way) checked for deity fields; every message every bot
		// received is checked for deity-only messages.
		PlayerDumps int `json:"playerDumpsChecked"`
	} `json:"aoi"`
	Drift struct {
		BoundM           float32 `json:"boundM"`
		FramesCompared   int     `json:"framesCompared"`
		FramesMismatched int     `json:"framesMismatched"`
		Corrections      int     `json:"corrections"`
		// Corrections in the second after a region change, counted apart.
		CorrectionsAfterTravel int     `json:"correctionsAfterTravel"`
		MaxPosError            float32 `json:"maxPositionErrorM"`
		MaxYawError            float32 `json:"maxYawErrorRad"`
		MaxCorrection          float32 `json:"maxCorrectionM"`
		LateInputs             int     `json:"lateInputs"`
		// Without added latency (the exact check, exact.go): bot-frames
		// whose prediction was the server's state bit for bit, and how often an
		// exact prediction left it at a contact with another entity (any other
		// departure is a violation).
		ExactCheck     bool `json:"exactCheck"` // the check applies: no added latency
		ExactFrames    int  `json:"exactFrames"`
		ContactDesyncs int  `json:"contactDesyncs"`
	} `json:"drift"`
	Invariants string       `json:"invariants"` // how the simulation invariants were checked
	BytesIn    int64        `json:"bytesIn"`    // all bots
	BytesOut   int64        `json:"bytesOut"`
	BotReports []bot.Report `json:"bot"`
	violationList
	XDump      string `json:"xdump,omitempty"`      // the final state's file
	XDumpFrame uint64 `json:"xdumpFrame,omitempty"` // the frame the final state is at
	// InvariantChecks counts the states checked: every frame the server ran, and
	// the final state's xdump.
	InvariantChecks int `json:"invariantChecks"`
	// Travel is the bots' travel between regions and its checks (travel.go).
	Travel travelReport `json:"travel"`

	rec       *frameRecorder          // -record (nil without)
	onViolate func(headlessViolation) // sees every violation (the recording lists them)
}

// travelReport is the report's travel section.
type travelReport struct {
	Chance float64 `json:"chance"`      // -travel
	Walks  int     `json:"portalWalks"` // walks to a portal the bots set out on
	// Handoffs counts the avatars seen in another region than the frame before,
	// each with its saved fields compared (HandoffCompared says which).
	Handoffs        int    `json:"handoffs"`
	HandoffCompared string `json:"handoffCompared"`
	IDChecks        int    `json:"idChecks"`        // frames checked for an id in two regions
	RegionChecks    int    `json:"regionChecks"`    // bot-frames checked for the player in exactly one region
	AOIChecks       int    `json:"aoiRegionChecks"` // bot-frames checked for a client holding another region's entity
	// Regions are the world's regions with the bot-frames spent in each.
	Regions []regionFrames `json:"regions"`
}

// regionFrames is a region's share of a run.
type regionFrames struct {
	ID        int32  `json:"id"`
	Name      string `json:"name"`
	BotFrames int    `json:"botFrames"`
}

func (r *headlessReport) violate(v headlessViolation) {
	if r.onViolate != nil {
		r.onViolate(v)
	}
	r.OK = false
	r.add(v)
}

func (r *headlessReport) summary(w io.Writer) {
	status := okOrFail(r.OK)
	net := r.Net
	if net == "" {
		net = "none"
	}
	fmt.Fprintf(w, "headless: %s: %d frames (server frames %d-%d), %d bots, seed %d, net %s\n",
		status, r.Frames, r.FirstFrame, r.LastFrame, r.Bots, r.Seed, net)
	fmt.Fprintf(w, "headless: %.2f s wall, %.2f s CPU, %.0f frames/s; server frame p50 %.2f ms p99 %.2f ms max %.2f ms; %s schedule: %d dropped, longest behind %d frames\n",
		r.WallSeconds, r.CPUSeconds, r.FPS, r.ServerFrame.P50Ms, r.ServerFrame.P99Ms, r.ServerFrame.MaxMs,
		r.Schedule.Source, r.Schedule.Dropped, r.Schedule.LongestBehind)
	fmt.Fprintf(w, "headless: drift: %d frames compared, %d mismatched, %d corrections (%d more after travel), max error %.3f m (bound %g m), %d late inputs; traffic %d B in, %d B out\n",
		r.Drift.FramesCompared, r.Drift.FramesMismatched, r.Drift.Corrections, r.Drift.CorrectionsAfterTravel, r.Drift.MaxPosError, r.Drift.BoundM,
		r.Drift.LateInputs, r.BytesIn, r.BytesOut)
	if r.Drift.ExactCheck {
		fmt.Fprintf(w, "headless: exact: %d bot-frames predicted exactly, %d departures at contacts\n", r.Drift.ExactFrames, r.Drift.ContactDesyncs)
	}
	var per []string
	for _, g := range r.Travel.Regions {
		per = append(per, fmt.Sprintf("%s %d", g.Name, g.BotFrames))
	}
	fmt.Fprintf(w, "headless: travel: chance %g, %d portal walks, %d handoffs compared; bot-frames per region: %s\n",
		r.Travel.Chance, r.Travel.Walks, r.Travel.Handoffs, strings.Join(per, ", "))
	if r.Failure != "" {
		fmt.Fprintf(w, "headless: failed: %s\n", r.Failure)
	}
	r.violationList.summary(w)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
}

func (r *headlessReport) write(path string) error { return harness.WriteJSON(path, r) }

// headlessBot is one bot and what the driver tracks of it.
type headlessBot struct {
	n       int
	b       *bot.Bot
	c       *client.Client
	link    *vlink
	mu      sync.Mutex // guards bad (written by the client's reader)
	bad     []headlessViolation
	dumps   int        // player xdumps received and checked
	drift   uint64     // newest drift-log frame checked
	exact   bool       // its prediction was the server's exact state at the last frame checked
	touched bool       // its avatar touched another entity (either side) since its last command
	predEnd mgl32.Vec2 // where the prediction's path ended when it last walked
	closed  bool
	trv     traveller
}

// run holds one headless run's parts.
type headlessRun struct {
	cfg    headlessConfig
	log    *slog.Logger
	rep    *headlessReport
	vt     vtime
	clk    *stepClock
	table  *connTable
	notify chan struct{}
	bots   []*headlessBot
	aoi    replication.AOI
	url    string
	token  string

	srv     *gameserver.Server
	inv     frameChecker   // the OnFrame hook: invariants
	avatars avatarWatch    // the OnFrame hook: the avatars' exact states (zero latency)
	regions regionWatch    // the OnFrame hook: the travel checks
	rec     *frameRecorder // the OnFrame hook: -record (nil without)
	portals map[int32][]portalGoal
	// regionFrames counts the bot-frames in each region, by region id.
	regionFrames map[int32]int
	world        *world.World

	serverFrame uint64          // the server's newest frame
	serverTimes []time.Duration // wall time of each checked server frame
	frameTimes  []time.Duration // wall time of each checked lockstep frame
}

func runHeadless(cfg headlessConfig, stderr io.Writer) (_ *headlessReport, err error) {
	level := slog.LevelWarn + 100
	if cfg.verbose {
		level = slog.LevelInfo
	}
	h := &headlessRun{cfg: cfg, log: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})),
		rep:    &headlessReport{OK: true, Seed: cfg.seed, Bots: cfg.bots, Net: cfg.netText, Realtime: cfg.realtime},
		notify: make(chan struct{}, 1), aoi: replication.DefaultAOI, token: "headless"}
	h.table = newConnTable(h.notify)
	h.clk = newStepClock(framePeriod)
	h.rep.Invariants = "sim CheckInvariants on the server's game after every frame (gameserver OnFrame), and on the final state's xdump"
	w, err := world.LoadDefault()
	if err != nil {
		return nil, err
	}
	h.world, h.portals, h.regionFrames = w, portalGoals(w), map[int32]int{}
	if cfg.record != "" {
		if h.rec, err = newFrameRecorder(cfg.record, cfg.origin, cfg.seed, w); err != nil {
			return nil, fmt.Errorf("-record: %w", err)
		}
		h.rep.rec, h.rep.onViolate = h.rec, h.recordViolation
		defer func() {
			if err != nil && h.rec != nil { // a run that failed before it had a report: close the file here
				if rerr := h.rec.close(h.serverFrame, err.Error()); rerr != nil {
					fmt.Fprintf(stderr, "server: headless: -record: %v\n", rerr)
				}
			}
		}()
	}
	h.rep.Travel.Chance = cfg.travel
	h.rep.Travel.HandoffCompared = "every Database-archive field of the avatar its source game packed (Migration) against the immigrant, but the region, position, move, follow target, changed, command and wake frames"

	dir, err := os.MkdirTemp("", "twinframe-headless-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := store.Open(ctx, filepath.Join(dir, "headless.db"))
	if err != nil {
		return nil, err
	}
	defer st.Close()
	srv, err := gameserver.New(gameserver.Config{Store: st, Seed: cfg.seed, DeityToken: h.token,
		Clock: h.clk, OnFrame: func(v gameserver.FrameView) {
			h.inv.onFrame(v)
			h.avatars.onFrame(v)
			h.regions.onFrame(v)
			h.rec.onFrame(v)
		}, AOI: h.aoi, AOIRefresh: cfg.aoiRefresh, Logger: h.log, SaveEvery: 24 * time.Hour,
		// Every bot gets in; all connect from 127.0.0.1. Bots send an input at
		// least every 2×MoveEvery+1 frames, far inside the idle timeout.
		MaxPlayers: cfg.bots, MaxConns: cfg.bots + 64, MaxConnsPerAddr: cfg.bots + 64})
	if err != nil {
		return nil, err
	}
	h.srv = srv
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	hs := srv.HTTPServer(nil)
	go func() { _ = hs.Serve(countListener{ln, h.table}) }()
	h.url = "http://" + ln.Addr().String()
	runCtx, stopLoop := context.WithCancel(ctx)
	runDone := make(chan error, 1)
	go func() { runDone <- srv.Run(runCtx) }()
	shutdown := func() error {
		for _, b := range h.bots {
			if !b.closed {
				b.closed = true
				_ = b.c.Close()
			}
		}
		stopLoop()
		h.clk.halt()
		err := <-runDone
		sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer scancel()
		_ = hs.Shutdown(sctx)
		return err
	}
	// The loop runs its first frame on its own.
	if _, err := h.clk.wait(cfg.timeout); err != nil {
		_ = shutdown()
		return nil, err
	}
	h.serverFrame = 1
	err = h.join(ctx)
	if err == nil {
		err = h.loop(ctx)
	}
	if err == nil {
		err = h.finalDump(ctx)
	}
	h.takeInvariants()
	h.inv.close()
	h.regions.close()
	h.collect()
	if serr := shutdown(); err == nil && serr != nil {
		err = serr
	}
	return h.rep, err
}

// frameWait waits until cond holds, waking on every link or connection change.
func (h *headlessRun) frameWait(what string, cond func() (bool, error), timeout ...time.Duration) error {
	t := h.cfg.timeout
	if len(timeout) > 0 {
		t = timeout[0]
	}
	deadline := time.NewTimer(t)
	defer deadline.Stop()
	for {
		ok, err := cond()
		if err != nil || ok {
			return err
		}
		select {
		case <-h.notify:
		case <-time.After(5 * time.Millisecond): // a state change may have poked before cond read it
		case <-deadline.C:
			return fmt.Errorf("headless: timed out waiting for %s", what)
		}
	}
}

// barriers are the waits of a lockstep frame.
type barriers uint8

const (
	// inputsIn: before the step, the server has read every byte the clients
	// wrote and its session readers have handled it.
	inputsIn barriers = 1 << iota
	// packetsOut: after the step, every client's link has the frame's packet
	// (and whatever the server sent before it) from its socket.
	packetsOut
	allBarriers = inputsIn | packetsOut
)

// frame runs one lockstep frame: the server's step, then delivery, with the
// barriers in sync; with play, the bots and the checks too.
func (h *headlessRun) frame(ctx context.Context, sync barriers, play bool) error {
	// Everything the clients wrote must be in the sessions' inboxes.
	if sync&inputsIn != 0 {
		if err := h.frameWait("the server to read the clients' inputs", func() (bool, error) { return h.table.received(), nil }); err != nil {
			return err
		}
	}
	h.vt.running.Store(h.serverFrame + 1)
	d, err := h.clk.step(h.cfg.timeout)
	if err != nil {
		return err
	}
	d -= h.inv.hookTime() + h.rec.hookTime()
	if play {
		h.serverTimes = append(h.serverTimes, d)
	}
	h.serverFrame++
	f := h.serverFrame
	now := time.Duration(f) * framePeriod
	h.vt.set(now)
	if sync&packetsOut != 0 {
		// Every client's link has frame f's packet from its socket.
		if err := h.frameWait(fmt.Sprintf("frame %d to reach the clients", f), func() (bool, error) {
			for _, b := range h.bots {
				got, _, err := b.link.state()
				if err != nil {
					return false, fmt.Errorf("bot %d: %w", b.n, err)
				}
				if got < f {
					return false, nil
				}
				if got > f {
					return false, fmt.Errorf("headless: lockstep lost: bot %d has server frame %d at frame %d", b.n, got, f)
				}
			}
			return true, nil
		}); err != nil {
			return err
		}
	}
	for _, b := range h.bots {
		if err := b.link.deliver(ctx, now); err != nil {
			return fmt.Errorf("bot %d: %w", b.n, err)
		}
	}
	if err := h.frameWait(fmt.Sprintf("the clients to process frame %d", f), func() (bool, error) {
		for _, b := range h.bots {
			if _, settled, err := b.link.state(); err != nil {
				return false, fmt.Errorf("bot %d: %w", b.n, err)
			} else if !settled {
				return false, nil
			}
		}
		return true, nil
	}); err != nil {
		return err
	}
	if !play {
		return nil
	}
	if h.rep.Drift.ExactCheck {
		h.checkExact(f)
	}
	for _, b := range h.bots {
		if err := h.play(b); err != nil && !errors.Is(err, replica.ErrTooManyInputs) {
			return fmt.Errorf("bot %d: step: %w", b.n, err)
		}
	}
	h.check(f, len(h.frameTimes)+1 == h.cfg.frames)
	// Zero-latency inputs went out in Step; delayed ones leave when due.
	for _, b := range h.bots {
		if err := b.link.deliver(ctx, now); err != nil {
			return fmt.Errorf("bot %d: %w", b.n, err)
		}
	}
	return nil
}

// onMessage sees every message a bot's client decodes (on its reader goroutine):
// a player must never receive a deity-only message or a deity field.
func (b *headlessBot) onMessage(m proto.Message) {
	id, ok := protocol.IDOf(m)
	info, _ := protocol.Lookup(id)
	var what string
	switch {
	case !ok:
		what = fmt.Sprintf("unknown message %T", m)
	case !info.AllowedFor(pb.Role_ROLE_PLAYER):
		what = "received " + info.Name() + ", a deity-only message"
	default:
		if r, isDump := m.(*pb.NetMessageXDumpResponse); isDump {
			what = deityFieldsIn(r.GetText())
			if r.GetError() != "" {
				what = "a player's xdump failed: " + r.GetError()
			}
			b.mu.Lock()
			b.dumps++
			b.mu.Unlock()
		}
	}
	if what != "" {
		b.mu.Lock()
		b.bad = append(b.bad, headlessViolation{Check: "deity", Bot: b.n, What: what})
		b.mu.Unlock()
	}
}

// loop runs the checked frames, back to back or paced at 20 Hz.
func (h *headlessRun) loop(ctx context.Context) error {
	h.rep.FirstFrame = h.serverFrame + 1
	h.rep.AOI.Add, h.rep.AOI.Remove, h.rep.AOI.Slack = h.aoi.Add, h.aoi.Remove, replication.WireSlack
	h.rep.AOI.ProjectileSlack = bot.ProjectileSlack
	if h.cfg.aoiRemove > 0 {
		h.rep.AOI.Remove = h.cfg.aoiRemove
	}
	h.rep.Drift.BoundM = h.cfg.driftBound
	h.rep.Drift.ExactCheck = h.cfg.net == (netsim.Conditions{})
	cpu0 := cputime.Process()
	start := time.Now()
	var reports []frameclock.Report
	step := func(uint64) error {
		t := time.Now()
		if err := h.frame(ctx, allBarriers, true); err != nil {
			return err
		}
		h.frameTimes = append(h.frameTimes, time.Since(t))
		// Half-way, every bot asks for a player's xdump of the entities: the deity
		// check reads the answer.
		if len(h.frameTimes) == h.cfg.frames/2 {
			for _, b := range h.bots {
				if err := b.c.Send(&pb.NetMessageXDumpRequest{RequestId: 1, Command: "xdump entity"}); err != nil {
					return fmt.Errorf("bot %d: %w", b.n, err)
				}
			}
		}
		if len(h.frameTimes) == h.cfg.frames {
			return errRunDone
		}
		return nil
	}
	var err error
	if h.cfg.realtime {
		h.rep.Schedule.Source = "measured"
		drv := frameclock.New(frameclock.Wall(), frameclock.Config{Period: framePeriod})
		err = drv.Run(ctx, step, func(r frameclock.Report) { reports = append(reports, r) })
	} else {
		h.rep.Schedule.Source = "replayed"
		for err == nil {
			err = step(0)
		}
	}
	if errors.Is(err, errRunDone) {
		err = nil
	}
	h.rep.WallSeconds = time.Since(start).Seconds()
	h.rep.CPUSeconds = (cputime.Process() - cpu0).Seconds()
	h.rep.Frames = len(h.frameTimes)
	h.rep.LastFrame = h.serverFrame
	if h.rep.WallSeconds > 0 {
		h.rep.FPS = float64(h.rep.Frames) / h.rep.WallSeconds
	}
	h.rep.ServerFrame, h.rep.Frame = harness.Percentiles(h.serverTimes), harness.Percentiles(h.frameTimes)
	if !h.cfg.realtime {
		reports = replaySchedule(h.serverTimes)
	}
	h.schedule(reports)
	return err
}

var errRunDone = errors.New("headless: done")

// fakeClock is a simulated clock: Sleep only moves it.
type fakeClock struct{ now time.Duration }

func (c *fakeClock) Now() time.Duration    { return c.now }
func (c *fakeClock) Sleep(d time.Duration) { c.now += max(d, time.Microsecond) }

// replaySchedule runs frames that take the given wall times through a 20 Hz
// frameclock.Driver on a simulated clock: the lateness and dropped frames a real
// time server would have had with them.
func replaySchedule(took []time.Duration) []frameclock.Report {
	if len(took) == 0 {
		return nil
	}
	clk := &fakeClock{}
	drv := frameclock.New(clk, frameclock.Config{Period: framePeriod})
	var out []frameclock.Report
	_ = drv.Run(context.Background(), func(n uint64) error {
		clk.now += took[n]
		if int(n)+1 == len(took) {
			return errRunDone
		}
		return nil
	}, func(r frameclock.Report) { out = append(out, r) })
	return out
}

// schedule fills the report's schedule and flags a death spiral: more than
// SpiralFrames frames in a row that started a full period late.
func (h *headlessRun) schedule(reports []frameclock.Report) {
	s := &h.rep.Schedule
	s.SpiralFrames = h.cfg.spiral
	late := make([]time.Duration, len(reports))
	run := 0
	for i, r := range reports {
		late[i] = r.Lateness
		s.Dropped = max(s.Dropped, r.Dropped)
		s.MaxBacklog = max(s.MaxBacklog, r.Backlog)
		if r.Lateness >= framePeriod {
			run++
		} else {
			run = 0
		}
		s.LongestBehind = max(s.LongestBehind, run)
	}
	s.Lateness = harness.Percentiles(late)
	if s.LongestBehind > h.cfg.spiral {
		h.rep.violate(headlessViolation{Frame: h.rep.LastFrame, Check: "spiral",
			What: fmt.Sprintf("%d frames in a row started a full period late (limit %d): the server cannot keep 20 Hz", s.LongestBehind, h.cfg.spiral)})
	}
}

// driftEvery is how often, in frames, the drift logs are read: CheckDrift copies
// the whole rolling log (DriftLogFrames, 30 s), so reading it every frame would
// cost more than the bots; every 100 frames loses nothing.
const driftEvery = 100

// checkDrift reports the drift samples over the bound that are new since the
// last call.
func (h *headlessRun) checkDrift(b *headlessBot, f uint64) {
	newest := b.drift
	for _, v := range bot.CheckDrift(b.c, h.cfg.driftBound) {
		if v.Frame > b.drift || v.Frame == 0 {
			h.rep.violate(headlessViolation{Frame: v.Frame, Check: "drift", Bot: b.n, Entity: v.Entity, What: v.What})
		}
		newest = max(newest, v.Frame)
	}
	b.drift = max(newest, f)
}

// check runs the checks of every bot at server frame f; final is the last frame.
func (h *headlessRun) check(f uint64, final bool) {
	h.takeInvariants()
	h.checkRegions(f)
	aoi := h.aoi
	if h.cfg.aoiRemove > 0 {
		aoi.Remove = min(h.cfg.aoiRemove, aoi.Remove)
		aoi.Add = min(aoi.Add, aoi.Remove)
	}
	for _, b := range h.bots {
		for _, v := range bot.CheckAOI(b.c, aoi) {
			h.rep.violate(headlessViolation{Frame: v.Frame, Check: "aoi", Bot: b.n, Entity: v.Entity, What: v.What + describe(b.c, v.Entity)})
		}
		h.rep.AOI.Projectiles += heldProjectiles(b.c)
		h.rep.AOI.Checks++
		if final || f%driftEvery == 0 {
			h.checkDrift(b, f)
		}
		b.mu.Lock()
		bad := b.bad
		b.bad = nil
		b.mu.Unlock()
		for _, v := range bad {
			v.Frame = f
			h.rep.violate(v)
		}
		if err := b.c.Err(); err != nil {
			h.rep.violate(headlessViolation{Frame: f, Check: "client", Bot: b.n, What: err.Error()})
		}
	}
}

// takeInvariants adds the frame checker's findings to the report.
func (h *headlessRun) takeInvariants() {
	n, bad := h.inv.take()
	h.rep.InvariantChecks += n
	for _, v := range bad {
		h.rep.violate(v)
	}
}

// collect adds the bots' reports.
func (h *headlessRun) collect() {
	for _, r := range h.world.Regions {
		h.rep.Travel.Regions = append(h.rep.Travel.Regions, regionFrames{ID: r.ID, Name: r.Name, BotFrames: h.regionFrames[r.ID]})
	}
	d := &h.rep.Drift
	for _, b := range h.bots {
		b.mu.Lock()
		h.rep.AOI.PlayerDumps += b.dumps
		b.mu.Unlock()
		r := b.b.Report()
		h.rep.BotReports = append(h.rep.BotReports, r)
		h.rep.BytesIn += r.BytesIn
		h.rep.BytesOut += r.BytesOut
		d.FramesCompared += r.Compared
		d.FramesMismatched += r.Mismatched
		d.Corrections += r.Corrections
		d.CorrectionsAfterTravel += r.CorrectionsAfterTravel
		d.MaxPosError = max(d.MaxPosError, r.MaxPosError)
		d.MaxYawError = max(d.MaxYawError, r.MaxYawError)
		d.MaxCorrection = max(d.MaxCorrection, r.MaxCorrection)
		d.LateInputs += r.LateInputs
	}
}

// dumpAnswer is the deity's xdump of a table, or why there is none.
type dumpAnswer struct {
	text string
	err  error
}

// requestDump asks the server's /xdump, as the deity, for table; the answer
// comes on the returned channel. The server answers at its next frame boundary:
// in the lockstep, once the driver grants a frame.
func (h *headlessRun) requestDump(ctx context.Context, table string) <-chan dumpAnswer {
	got := make(chan dumpAnswer, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "GET", h.url+"/xdump?q="+url.QueryEscape("xdump "+table), nil)
		req.Header.Set("Authorization", "Bearer "+h.token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			got <- dumpAnswer{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("xdump %s: %s: %s", table, resp.Status, strings.TrimSpace(string(b)))
		}
		got <- dumpAnswer{string(b), err}
	}()
	return got
}

// awaitDump waits for an answer, granting frames (without the bots) as the
// server needs them: one once the request is queued for the frame loop, so that
// the answer's frame does not depend on timing.
func (h *headlessRun) awaitDump(ctx context.Context, got <-chan dumpAnswer) (string, error) {
	for {
		var a dumpAnswer
		answered := false
		if err := h.frameWait("the server to take the xdump request", func() (bool, error) {
			select {
			case a = <-got:
				answered = true
			default:
			}
			return answered || h.srv.PendingRequests() > 0, nil
		}); err != nil {
			return "", err
		}
		if answered {
			return a.text, a.err
		}
		if err := h.frame(ctx, allBarriers, false); err != nil {
			return "", err
		}
	}
}

// dumpFrame returns the frame in a dump's header ("XDUMP entity 305").
func dumpFrame(text string) uint64 {
	line, _, _ := strings.Cut(text, "\n")
	var table string
	var f uint64
	fmt.Sscanf(line, "XDUMP %s %d", &table, &f)
	return f
}

// finalDump checks the invariants of the final state and, with -report, writes
// its xdump (entities and lost entities) next to the report.
func (h *headlessRun) finalDump(ctx context.Context) error {
	var out strings.Builder
	for _, table := range []string{"entity", "lost"} {
		text, err := h.awaitDump(ctx, h.requestDump(ctx, table))
		if err != nil {
			return err
		}
		if table == "entity" {
			h.checkInvariants(text)
			h.rep.XDumpFrame = dumpFrame(text)
		}
		out.WriteString(text)
	}
	if h.cfg.report == "" {
		return nil
	}
	path := strings.TrimSuffix(h.cfg.report, filepath.Ext(h.cfg.report)) + ".xdump"
	if err := harness.WriteFile(path, []byte(out.String())); err != nil {
		return err
	}
	h.rep.XDump = path
	return nil
}

// deityFieldsIn returns what is wrong with a player's xdump of the entity table:
// more columns than a player's dump has (the deity's entity seed), or "" when
// nothing is.
func deityFieldsIn(text string) string {
	want, err := playerEntityColumns()
	if err != nil {
		return "cannot check the xdump: " + err.Error()
	}
	for i, line := range strings.Split(text, "\n") {
		if i == 0 || line == "" || strings.HasPrefix(line, "/") {
			continue
		}
		if n := len(strings.Fields(line)); n != want {
			return fmt.Sprintf("a player's xdump entity row has %d columns, a player's dump %d (a deity field leaked): %q", n, want, line)
		}
	}
	return ""
}

// playerEntityColumns counts the columns of a player's dump of the default
// world's entity table.
var playerEntityColumns = sync.OnceValues(func() (int, error) {
	w, err := world.LoadDefault()
	if err != nil {
		return 0, err
	}
	var b strings.Builder
	if err := w.Xdump(&b, "xdump entity", xdump.Viewer{ID: 1}); err != nil {
		return 0, err
	}
	lines := strings.Split(b.String(), "\n")
	if len(lines) < 2 {
		return 0, errors.New("the default world has no entity")
	}
	return len(strings.Fields(lines[1])), nil
})

// describe names what a bot holds of entity id: its prototype, motion and last
// server state.
func describe(c *client.Client, id uint64) string {
	for _, v := range c.View(nil) {
		if v.ID == id {
			return fmt.Sprintf(" (prototype %d, moving %v, server position %v at frame %d)",
				v.Prototype, v.Moving, v.Server.Position.Vec2(), v.Server.Frame)
		}
	}
	return ""
}

// heldProjectiles counts the projectiles a bot holds.
func heldProjectiles(c *client.Client) int {
	n := 0
	c.With(func(r *replica.Replica) {
		for _, id := range r.IDs(nil) {
			if r.IsProjectile(id) {
				n++
			}
		}
	})
	return n
}

// recordViolation lists v in the recording, with the avatar of the bot that saw it.
func (h *headlessRun) recordViolation(v headlessViolation) {
	var avatar uint64
	switch v.Check {
	case "aoi", "aoi-region", "deity", "drift", "exact", "region", "client": // a bot's checks (Bot 0 is a bot)
		if v.Bot >= 0 && v.Bot < len(h.bots) && h.bots[v.Bot].c != nil {
			h.bots[v.Bot].c.With(func(r *replica.Replica) { avatar = r.Player() })
		}
	}
	h.rec.violate(v, avatar)
}
