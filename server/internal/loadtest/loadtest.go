// Package loadtest is `server loadtest`: the real game server at 20 Hz in real
// time with N bot clients over loopback websockets (in a child process,
// `server loadtest-bots`), reporting frame duration and lateness, dropped
// frames, CPU, memory, bytes per client and disconnects. It measures how many
// players one server holds (-find-max) and how the frame loop recovers from
// frames over budget (-overload).
package loadtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/twinframe/twinframe/internal/cputime"
	"github.com/twinframe/twinframe/server/internal/cli"
	"github.com/twinframe/twinframe/server/internal/frameclock"
	"github.com/twinframe/twinframe/server/internal/gameserver"
	"github.com/twinframe/twinframe/server/internal/harness"
	"github.com/twinframe/twinframe/server/internal/store"
)

// The load test: the real server, frame loop on the wall clock at
// 20 Hz, with N bot clients over loopback websockets for D of real time.
//
// Design note: unlike the headless run nothing is lockstep here. The server runs
// exactly as `server serve` does (its own wall clock, its own frameclock.Driver);
// the bots are the viewer's client code (client.Client with its replica and
// prediction, driven by client/bot) stepped together at 20 Hz by one pacing
// goroutine in a child process (botproc.go), so that the server's CPU,
// memory and scheduler are its own. The figures come from the server's own
// bookkeeping (gameserver.FrameReports, gameserver.Traffic) over the measured
// window, which starts once every bot has its avatar. The overload phase comes
// after that window, so that it does not colour the load figures: work is
// injected inside the frame through gameserver.Config.FrameWork.

const loadtestUsage = `usage: server loadtest -bots N -duration D [-report FILE] [-find-max] [-overload X] [-xdump-flood N] [-regions] [-cpuprofile F] [-memprofile F]`

type loadConfig struct {
	bots       int
	xdumpFlood int // bots that also flood xdump requests
	duration   time.Duration
	report     string
	seed       uint64
	// find-max: start at bots, add step until a run does not hold 20 Hz (or
	// maxBots), then bisect down to step/4.
	findMax bool
	step    int
	maxBots int
	// overload: after the window, inject overload × the frame budget of work in
	// every frame for overloadFor, and watch the recovery for recoverFor.
	overload    float64
	overloadFor time.Duration
	recoverFor  time.Duration
	joinTimeout time.Duration
	botsNice    int
	frameCPU    bool
	cpuProfile  string
	memProfile  string
	verbose     bool
	regions     bool      // spread the bots over the regions (regions.go)
	stderr      io.Writer // the bot process's
}

// Command runs `server loadtest ARGS...` (args without the command name) and
// returns the exit status: 0 when the run completed, 1 when it failed, 2 for a
// usage error.
func Command(args []string, stdout, stderr io.Writer) int {
	fl := cli.New("loadtest", stderr)
	fl.Synopsis, fl.Prefix = loadtestUsage, "server: loadtest: "
	var cfg loadConfig
	fl.IntVar(&cfg.bots, "bots", 50, "bot `clients` (with -find-max: the first count tried)")
	fl.IntVar(&cfg.xdumpFlood, "xdump-flood", 0, "this many of the `bots` also dump the whole world, table after table, as fast as the xdump rate limits allow")
	fl.DurationVar(&cfg.duration, "duration", 10*time.Second, "measured `time` once every bot has joined (each run, with -find-max)")
	fl.StringVar(&cfg.report, "report", "", "write the JSON report to `file`")
	fl.Uint64Var(&cfg.seed, "seed", 1, "`seed` of the game and the bots")
	fl.BoolVar(&cfg.findMax, "find-max", false, "find the largest bot count that holds 20 Hz: p99 frame duration ≤ 50 ms, no dropped frame, no bot disconnected")
	fl.IntVar(&cfg.step, "step", 50, "with -find-max: `bots` added per run before bisecting")
	fl.IntVar(&cfg.maxBots, "max-bots", 1000, "with -find-max: the largest `count` tried")
	fl.Float64Var(&cfg.overload, "overload", 0, "after the measured time, inject this `multiple` of the frame budget of work into every frame (3: 150 ms a frame)")
	fl.DurationVar(&cfg.overloadFor, "overload-for", 2*time.Second, "how long the overload lasts")
	fl.DurationVar(&cfg.recoverFor, "recover-for", 3*time.Second, "how long to watch the frames after the overload")
	fl.DurationVar(&cfg.joinTimeout, "join-timeout", 5*time.Minute, "longest time for every bot to get its avatar (each bot builds the region's navmesh: about a minute for 400 on a loaded machine)")
	fl.IntVar(&cfg.botsNice, "bots-nice", 10, "run the bots' process under nice(1) with this `increment` (0: the server's priority)")
	fl.BoolVar(&cfg.frameCPU, "frame-cpu", false, "lock the frame loop to its OS thread and report each frame's CPU time on it (Linux), which other processes' load does not inflate, and why frames started late; the lock itself makes frames start later than in serve")
	fl.StringVar(&cfg.cpuProfile, "cpuprofile", "", "write a CPU profile of the measured time to `file`")
	fl.StringVar(&cfg.memProfile, "memprofile", "", "write an allocation profile (pprof allocs) to `file` at the end")
	fl.BoolVar(&cfg.regions, "regions", false, "once joined, spread the bots over the world's regions round-robin (a deity's teleport) and report each region's frame time")
	fl.BoolVar(&cfg.verbose, "v", false, "log the server's and clients' messages")
	if status, ok := fl.Parse(args); !ok {
		return status
	}
	if cfg.bots <= 0 || cfg.bots > 5000 || cfg.duration <= 0 || cfg.step <= 0 || cfg.maxBots < cfg.bots ||
		cfg.overload < 0 || cfg.xdumpFlood < 0 || cfg.xdumpFlood > cfg.bots || cfg.overloadFor <= 0 || cfg.recoverFor <= 0 || cfg.joinTimeout <= 0 {
		fmt.Fprintf(stderr, "server: loadtest: -bots (1 to 5000), -duration, -step, -overload-for, -recover-for and -join-timeout must be positive, -max-bots at least -bots, -overload not negative, -xdump-flood 0 to -bots\n")
		return 2
	}
	level := slog.LevelWarn + 100
	if cfg.verbose {
		level = slog.LevelInfo
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	cfg.stderr = stderr
	var out any
	var err error
	if cfg.findMax {
		var fm *findMaxReport
		fm, err = findMax(cfg, log, stdout)
		if fm != nil {
			fm.summary(stdout)
			out = fm
		}
	} else {
		var rep *loadReport
		rep, err = runLoad(cfg, log)
		if rep != nil {
			rep.summary(stdout)
			out = rep
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "server: loadtest: %v\n", err)
	}
	if cfg.report != "" && out != nil {
		if werr := harness.WriteJSON(cfg.report, out); werr != nil {
			fmt.Fprintf(stderr, "server: loadtest: %v\n", werr)
			return 1
		}
	}
	if err != nil {
		return 1
	}
	return 0
}

// deityToken is the load test server's deity token (-regions connects as a deity).
const deityToken = "loadtest"

// runLoad runs one load test: a fresh server and store, cfg.bots bots.
func runLoad(cfg loadConfig, log *slog.Logger) (*loadReport, error) {
	rep := newLoadReport(cfg)
	ls, err := startLoadServer(cfg, log)
	if err != nil {
		return nil, err
	}
	rep.LoadAverage.Start = loadAverage()
	joinStart := time.Now()
	bots, bots0, err := startBotProc(ls.url, cfg.bots, cfg.xdumpFlood, cfg.seed, cfg.joinTimeout, cfg.botsNice, cfg.verbose, cfg.stderr)
	rep.JoinSeconds = time.Since(joinStart).Seconds()
	if err != nil {
		err = fmt.Errorf("%w: %w", errNotJoined, err)
		rep.Failure = err.Error()
		_ = ls.close()
		return rep, err
	}
	rep.BotProcess.Nice = bots.nice
	var sp *spreader
	if cfg.regions {
		ctx, cancel := context.WithTimeout(context.Background(), cfg.joinTimeout)
		sp, rep.Regions, err = spread(ctx, ls.url, deityToken, cfg.bots)
		cancel()
		if err != nil {
			rep.Failure = err.Error()
			_, _ = bots.stop()
			_ = ls.close()
			return rep, err
		}
		sp.startRecording()
	}
	err = measure(cfg, ls, bots, bots0, rep)
	if sp != nil {
		sp.finish(rep.Regions)
	}
	if err == nil && cfg.overload > 0 {
		rep.Overload, err = runOverloadPhase(ls.srv, ls.ov, cfg.overloadFor, cfg.recoverFor)
	}
	rep.LoadAverage.End = loadAverage()
	if cfg.memProfile != "" {
		if werr := writeAllocsProfile(cfg.memProfile); err == nil {
			err = werr
		}
	}
	if _, serr := bots.stop(); err == nil && serr != nil {
		err = serr
	}
	if serr := ls.close(); err == nil && serr != nil {
		err = serr
	}
	if err != nil {
		rep.Failure = err.Error()
	}
	rep.judge()
	return rep, err
}

// loadServer is the server under test: a fresh store, the game server with the
// load test's hooks, its HTTP listener and its frame loop.
type loadServer struct {
	srv      *gameserver.Server
	url      string // the websocket endpoint
	ov       *overload
	fc       *frameCPU  // nil without -frame-cpu
	probe    *lateProbe // nil without -frame-cpu
	hs       *http.Server
	st       *store.SQLite
	dir      string
	stopLoop context.CancelFunc
	runDone  chan error
}

func startLoadServer(cfg loadConfig, log *slog.Logger) (*loadServer, error) {
	dir, err := os.MkdirTemp("", "twinframe-loadtest-")
	if err != nil {
		return nil, err
	}
	ls := &loadServer{dir: dir, runDone: make(chan error, 1)}
	fail := func(err error) (*loadServer, error) {
		if ls.st != nil {
			ls.st.Close()
		}
		os.RemoveAll(dir)
		return nil, err
	}
	if ls.st, err = store.Open(context.Background(), filepath.Join(dir, "loadtest.db")); err != nil {
		return fail(err)
	}
	ls.ov = newOverload(frameclock.Wall(), spin, time.Duration(cfg.overload*float64(harness.FramePeriod)))
	// Every bot gets in; all connect from 127.0.0.1. Bots send an input at least
	// every 2×MoveEvery+1 frames, far inside the idle timeout.
	scfg := gameserver.Config{Store: ls.st, Seed: cfg.seed, DeityToken: deityToken, Logger: log, FrameWork: ls.ov.frameWork,
		MaxPlayers: cfg.bots + 1, MaxConns: cfg.bots + 64, MaxConnsPerAddr: cfg.bots + 64} // +1: the deity of -regions
	if cfg.frameCPU {
		fc := newFrameCPU()
		ls.fc = fc
		ls.probe = newLateProbe(frameclock.Wall())
		scfg.Clock = ls.probe
		scfg.FrameStart = func(n uint64) { ls.probe.frameStart(n); fc.frameStart(n) }
		scfg.FrameWork = func(n uint64) { fc.frameEnd(n); ls.ov.frameWork(n) }
		// A frame's CPU is read on the loop's thread: the regions step there too
		// (one worker) rather than on a pool whose threads it would not see.
		scfg.Workers = 1
	}
	if ls.srv, err = gameserver.New(scfg); err != nil {
		return fail(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fail(err)
	}
	ls.url = "ws://" + ln.Addr().String() + "/ws"
	ls.hs = ls.srv.HTTPServer(nil)
	go func() { _ = ls.hs.Serve(ln) }()
	var runCtx context.Context
	runCtx, ls.stopLoop = context.WithCancel(context.Background())
	go func() {
		if ls.fc != nil {
			runtime.LockOSThread() // Run runs the frame loop on this goroutine
		}
		ls.runDone <- ls.srv.Run(runCtx)
	}()
	return ls, nil
}

// close stops the frame loop (which closes the sessions and saves the avatars),
// the HTTP server and the store, and removes the store's folder.
func (ls *loadServer) close() error {
	ls.stopLoop()
	err := <-ls.runDone
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = ls.hs.Shutdown(ctx)
	if cerr := ls.st.Close(); err == nil {
		err = cerr
	}
	os.RemoveAll(ls.dir)
	return err
}

// measure runs the measured window: cfg.duration once every bot has joined,
// with the CPU profile if asked for, and fills rep.
func measure(cfg loadConfig, ls *loadServer, bots *botProc, bots0 botStatus, rep *loadReport) error {
	runtime.GC()
	rep.Memory.PeakRSSReset = resetPeakRSS()
	if cfg.cpuProfile != "" {
		prof, err := os.Create(cfg.cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(prof)
		}
		if err != nil {
			return err
		}
		defer prof.Close()
		defer pprof.StopCPUProfile()
	}
	w := startWindow(ls.srv)
	heap := startHeapSampler(20 * time.Millisecond)
	reports, err := w.collect(ls.srv, cfg.duration)
	rep.Memory.PeakHeapBytes = heap.stop()
	if err != nil {
		return err
	}
	bots1, err := bots.status()
	if err != nil {
		return err
	}
	rep.fill(w, reports, ls.srv.Traffic(), bots0, bots1)
	if ls.fc != nil {
		d := harness.Percentiles(ls.fc.of(reports))
		rep.FrameCPU = &d
		rep.LateCauses = ls.probe.causes(reports, lateCauseThreshold)
	}
	return nil
}

// errNotJoined is the error of a run whose bots did not all join.
var errNotJoined = errors.New("loadtest: not every bot joined")

// window is the measured stretch of a run: the server's counters at its start.
type window struct {
	start   time.Time
	cpu0    time.Duration
	cursor  int
	dropped uint64 // frames dropped before the window
	traffic gameserver.Traffic
	lost    int
	wall    time.Duration
	cpu     time.Duration
}

func startWindow(srv *gameserver.Server) *window {
	w := &window{start: time.Now(), cpu0: cputime.Process(), traffic: srv.Traffic()}
	_, w.cursor, _ = srv.FrameReports(1 << 62) // only what comes next
	if w.cursor > 0 {
		if before, _, _ := srv.FrameReports(w.cursor - 1); len(before) > 0 {
			w.dropped = before[0].Dropped
		}
	}
	return w
}

// collect gathers the frame reports for d, reading the server's ring often
// enough (every 2 s; it holds 10 s of frames) to miss none.
func (w *window) collect(srv *gameserver.Server, d time.Duration) ([]frameclock.Report, error) {
	var all []frameclock.Report
	end := w.start.Add(d)
	read := func() {
		r, next, lost := srv.FrameReports(w.cursor)
		all = append(all, r...)
		w.cursor, w.lost = next, w.lost+lost
	}
	for left := time.Until(end); left > 0; left = time.Until(end) {
		time.Sleep(min(left, 2*time.Second))
		read()
	}
	w.wall, w.cpu = time.Since(w.start), cputime.Process()-w.cpu0
	if len(all) == 0 {
		return nil, errors.New("loadtest: the server ran no frame in the measured time")
	}
	return all, nil
}

func writeAllocsProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
