package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twinframe/twinframe/server/internal/frameclock"
	"github.com/twinframe/twinframe/server/internal/gameserver"
	"github.com/twinframe/twinframe/server/internal/harness"
	"github.com/twinframe/twinframe/server/internal/store"
	"go.uber.org/goleak"
)

// TestMain lets the test binary stand in for the server binary as the load
// test's bot process (it re-executes itself, os.Executable, as
// `BINARY loadtest-bots ARGS...`).
func TestMain(m *testing.M) {
	if os.Getenv(botProcEnv) != "" {
		if len(os.Args) < 2 || os.Args[1] != "loadtest-bots" {
			fmt.Fprintf(os.Stderr, "loadtest test binary as the bot process: want loadtest-bots, got %q\n", os.Args[1:])
			os.Exit(2)
		}
		os.Exit(BotsCommand(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// runArgs runs the command with args (without the command name) in-process.
func runArgs(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Command(args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestLoadtest runs the command for real (a few bots, two seconds of wall time)
// and checks that the report is complete and consistent. It asserts no speed:
// the figures depend on the machine.
func TestLoadtest(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the server in real time for about 4 s; make test runs it")
	}
	path := filepath.Join(t.TempDir(), "out", "load.json")
	defer checkNoLeak(t, goleak.IgnoreCurrent())
	code, out, errs := runArgs("-bots", "3", "-duration", "2s", "-overload", "3", "-overload-for", "500ms", "-recover-for", "1s", "-frame-cpu", "-report", path)
	t.Logf("exit %d\n%s%s", code, out, errs)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"loadtest: 3 bots for 2.0 s", "duration p50", "lateness p50", "peak RSS", "per client per second", "overload 3.0×", "holds 20 Hz: "} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep loadReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, b)
	}
	if rep.Bots != 3 || rep.Connected != 3 || len(rep.Disconnects) != 0 || len(rep.ClientsEnded) != 0 || rep.BotProcess.StepErrs != 0 || rep.LostReports != 0 {
		t.Errorf("bots %d, connected %d, disconnects %v, clients ended %v, step errors %d, lost reports %d",
			rep.Bots, rep.Connected, rep.Disconnects, rep.ClientsEnded, rep.BotProcess.StepErrs, rep.LostReports)
	}
	// The driver accounts for every period of the window: a frame ran or was dropped.
	periods := int(rep.WallSeconds / harness.FramePeriod.Seconds())
	if got := rep.Frames + int(rep.DroppedFrames); got < periods-4 || got > periods+4 {
		t.Errorf("%d frames and %d dropped in %.2f s, want about %d periods", rep.Frames, rep.DroppedFrames, rep.WallSeconds, periods)
	}
	d, l := rep.FrameDuration, rep.Lateness
	if !(0 < d.P50Ms && d.P50Ms <= d.P90Ms && d.P90Ms <= d.P99Ms && d.P99Ms <= d.MaxMs) || !(0 <= l.P50Ms && l.P50Ms <= l.P99Ms && l.P99Ms <= l.MaxMs) {
		t.Errorf("frame duration %+v, lateness %+v", d, l)
	}
	if rep.CPU.Seconds <= 0 || rep.Memory.PeakHeapBytes <= 0 || rep.Memory.PeakRSSBytes < rep.Memory.PeakHeapBytes {
		t.Errorf("cpu %+v, memory %+v", rep.CPU, rep.Memory)
	}
	// A frame's CPU time on its thread is at most its wall time.
	if c := rep.FrameCPU; runtime.GOOS == "linux" && (c == nil || c.P50Ms <= 0 || c.MaxMs > d.MaxMs+0.01) {
		t.Errorf("frame CPU %+v, frame duration %+v", c, d)
	}
	if b := rep.BotProcess; b.CPUSeconds <= 0 || b.PeakRSSBytes <= 0 {
		t.Errorf("bot process %+v", b)
	}
	// Every bot pings and moves; the server sends each a packet every frame.
	if rep.Traffic.ToServerPerClient <= 0 || rep.Traffic.FromServerPerClient <= rep.Traffic.ToServerPerClient {
		t.Errorf("traffic %+v", rep.Traffic)
	}
	if rep.LoadAverage.Start == "" || rep.HoldsRule == "" {
		t.Errorf("load average %+v, rule %q", rep.LoadAverage, rep.HoldsRule)
	}
	o := rep.Overload
	if o == nil {
		t.Fatal("no overload report")
	}
	// 0.5 s at 3×: the frames of the burst run a third as often; the rest are dropped.
	if o.BurstFrames == 0 || o.DroppedFrames == 0 || o.MaxBacklog > 3 || o.WorkMs != 150 {
		t.Errorf("overload %+v", *o)
	}
	if o.RecoverySeconds < 0 {
		t.Errorf("no on-time frame in the second after the overload: %+v", *o)
	}
}

// checkNoLeak fails t if goroutines started since ignore was taken (the test's start)
// still run once the server's have had a few seconds to end: idle HTTP connections
// close on their own, later than goleak's own retries wait.
func checkNoLeak(t *testing.T, ignore goleak.Option) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	err := goleak.Find(ignore)
	for err != nil && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		err = goleak.Find(ignore)
	}
	if err != nil {
		t.Errorf("goroutines of the load test still run: %v", err)
	}
}

func TestLoadtestUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"-bots", "0"},
		{"-duration", "-1s"},
		{"-find-max", "-bots", "100", "-max-bots", "50"},
		{"extra"},
	} {
		if code, _, errs := runArgs(args...); code != 2 || !strings.Contains(errs, "loadtest") {
			t.Errorf("%q: exit %d, stderr %q", args, code, errs)
		}
	}
	if code, _, errs := runArgs("-h"); code != 0 || !strings.Contains(errs, loadtestUsage) {
		t.Errorf("-h: exit %d, stderr %q", code, errs)
	}
}

// A run whose bots cannot join in time fails, saying so, and writes a report
// that says why.
func TestLoadtestJoinFailure(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts the server and the bot process; make test runs it")
	}
	path := filepath.Join(t.TempDir(), "load.json")
	code, out, errs := runArgs("-bots", "2", "-join-timeout", "1ns", "-report", path)
	if code != 1 || !strings.Contains(out, "failed after") || !strings.Contains(errs, "not every bot joined") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep loadReport
	if err := json.Unmarshal(b, &rep); err != nil || rep.Holds || !strings.Contains(rep.Failure, "2 of 2 bots did not join") {
		t.Errorf("report %v: holds %v, failure %q", err, rep.Holds, rep.Failure)
	}
}

// burnClock is a machine in a test: sleeps overshoot, a spin step costs a
// quantum, and work (burn) moves time by exactly its length. The frame loop is
// its only user while the server runs.
type burnClock struct {
	now atomic.Int64
}

func (c *burnClock) Now() time.Duration { return time.Duration(c.now.Load()) }
func (c *burnClock) Sleep(d time.Duration) {
	if d <= 0 {
		d = 20 * time.Microsecond
	} else {
		d += 500 * time.Microsecond
	}
	c.now.Add(int64(d))
}
func burnFake(c frameclock.Clock, d time.Duration) { c.(*burnClock).now.Add(int64(d)) }

// TestOverloadThroughServerLoop drives the real server's frame loop on a fake
// clock through a 2 s burst of 3× the frame budget (the load test's overload
// hook, gameserver.Config.FrameWork): the loop must drop backlog instead of
// spiralling, and start frames on time again within 1 s of the burst's end.
func TestOverloadThroughServerLoop(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "load.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	clk := &burnClock{}
	ov := newOverload(clk, burnFake, 3*harness.FramePeriod)
	const burstAt, burstFor, stopAt = time.Second, 2 * time.Second, 5 * time.Second
	started := false
	srv, err := gameserver.New(gameserver.Config{Store: st, DeityToken: "t", Clock: clk, SaveEvery: time.Hour,
		FrameWork: func(frame uint64) {
			if now := clk.Now(); !started && now >= burstAt {
				started = true
				ov.start(burstFor)
			}
			ov.frameWork(frame)
			if clk.Now() >= stopAt {
				cancel()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Run(ctx); err != nil {
		t.Fatal(err)
	}
	reports, _, lost := srv.FrameReports(0)
	first, last, n := ov.burnt()
	if lost != 0 || n == 0 {
		t.Fatalf("%d reports lost, %d frames burned", lost, n)
	}
	o := analyzeOverload(reports, first, last, harness.FramePeriod)
	t.Logf("%+v", o)
	// Without dropping, 2 s at 3× leaves ≈ 80 frames of backlog; the driver runs
	// at most 3 back to back and drops the rest: ≈ 2 s × (1 − 1/3) × 20 Hz.
	if o.DroppedFrames < 20 || o.DroppedFrames > 40 || o.MaxBacklog > 3 {
		t.Errorf("dropped %d frames, max backlog %d; want ≈ 27 and ≤ 3", o.DroppedFrames, o.MaxBacklog)
	}
	if o.BurstFrames < 10 || o.BurstFrames > 16 {
		t.Errorf("%d frames ran in the burst, want ≈ 2 s / 150 ms ≈ 13", o.BurstFrames)
	}
	if o.RecoverySeconds < 0 || o.RecoverySeconds > 1 || o.LateAfter != 0 {
		t.Errorf("on time again after %.3f s, %d late frames after; want within 1 s and none", o.RecoverySeconds, o.LateAfter)
	}
}

// TestAnalyzeOverload checks the arithmetic on a schedule written by hand.
func TestAnalyzeOverload(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	reports := []frameclock.Report{
		{Frame: 9, Duration: ms, Dropped: 2},
		// The burst: frames 10 and 11 take 150 ms each.
		{Frame: 10, Duration: 150 * ms, Dropped: 2, Backlog: 1},
		{Frame: 11, Duration: 150 * ms, Lateness: 100 * ms, Dropped: 2, Backlog: 3},
		// Frame 11 ends at (11+2)·50+100+150 = 900 ms; at 900 ms frames 12-16
		// are due: 2 are dropped, 12-14 catch up (1 ms each) and 14 starts at
		// 902 ms, 2 ms late: on time, 2 ms after the burst. 15 is 3 ms late.
		{Frame: 12, Duration: ms, Lateness: 100 * ms, Dropped: 4, Backlog: 3},
		{Frame: 13, Duration: ms, Lateness: 51 * ms, Dropped: 4, Backlog: 2},
		{Frame: 14, Duration: ms, Lateness: 2 * ms, Dropped: 4, Backlog: 1},
		{Frame: 15, Duration: ms, Lateness: 3 * ms, Dropped: 4, Backlog: 1},
	}
	o := analyzeOverload(reports, 10, 11, 50*ms)
	want := overloadReport{BurstFrames: 2, DroppedFrames: 2, MaxBacklog: 3, RecoverySeconds: 0.002, OnTimeMs: 2, LateAfter: 1, Frames: 7}
	if o != want {
		t.Errorf("got %+v\nwant %+v", o, want)
	}
}

func TestSearchMax(t *testing.T) {
	t.Parallel()
	tests := []struct {
		start, step, limit, capacity int // n holds when n ≤ capacity
		wantOK, wantFail             int
	}{
		{100, 100, 1000, 437, 425, 450}, // up to 500, bisect 400-500 to a gap of 25
		{100, 100, 1000, 99, 75, 100},   // not the first: bisect 0-100 to a gap of 25
		{100, 100, 300, 5000, 300, 0},   // everything tried holds
		{10, 4, 100, 37, 37, 38},        // gap 1: exact
		{50, 50, 1000, 50, 50, 62},      // 50 holds, 100 not: 75, 62 fail; gap 12
	}
	for _, tc := range tests {
		var tried []int
		ok, fail, err := searchMax(tc.start, tc.step, tc.limit, func(n int) (bool, error) {
			tried = append(tried, n)
			return n <= tc.capacity, nil
		})
		if err != nil || ok != tc.wantOK || fail != tc.wantFail {
			t.Errorf("%+v: got %d, %d, %v after %v", tc, ok, fail, err, tried)
		}
	}
}
