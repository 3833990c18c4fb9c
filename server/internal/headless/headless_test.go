package headless

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twinframe/twinframe/server/internal/harness"
	"github.com/twinframe/twinframe/shared/world"
	"github.com/twinframe/twinframe/shared/xdump"
)

// runArgs runs the command with args (without the command name) in-process.
func runArgs(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Command(args, &out, &errb)
	return code, out.String(), errb.String()
}

// runHeadlessArgs runs the headless command in-process and decodes its report.
func runHeadlessArgs(t *testing.T, args ...string) (int, string, headlessReport) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "out", "report.json") // the folder does not exist yet
	start := time.Now()
	code, out, errs := runArgs(append([]string{"-report", path}, args...)...)
	t.Logf("headless %s: exit %d in %v\n%s%s", strings.Join(args, " "), code, time.Since(start), out, errs)
	var rep headlessReport
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no report: %v", err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, b)
	}
	return code, out, rep
}

func TestHeadless(t *testing.T) {
	for _, net := range []string{"", "latency=80ms,jitter=20ms"} {
		t.Run("net="+net, func(t *testing.T) {
			// Under the race detector the run is too short for a walk to a portal:
			// TestHeadlessDeterministic travels there.
			travel := "0.3"
			if raceEnabled {
				travel = "0"
			}
			code, out, rep := runHeadlessArgs(t, "-frames", strconv.Itoa(testFrames), "-bots", "4", "-seed", "7", "-net", net, "-aoi-refresh", "1", "-travel", travel)
			if code != 0 || !rep.OK || rep.Violations != 0 {
				t.Fatalf("exit %d, ok %v, %d violations: %+v", code, rep.OK, rep.Violations, rep.Listed)
			}
			if !strings.HasPrefix(out, fmt.Sprintf("headless: ok: %d frames", testFrames)) {
				t.Errorf("summary: %q", out)
			}
			if rep.Frames != testFrames || rep.Bots != 4 || len(rep.BotReports) != 4 || rep.Seed != 7 || rep.Net != net {
				t.Errorf("report: frames %d, bots %d/%d, seed %d, net %q", rep.Frames, rep.Bots, len(rep.BotReports), rep.Seed, rep.Net)
			}
			if rep.LastFrame-rep.FirstFrame+1 != testFrames || rep.WallSeconds <= 0 || rep.FPS <= 0 || rep.ServerFrame.MaxMs <= 0 {
				t.Errorf("frames %d-%d, %g s, %g frames/s, server frame %+v", rep.FirstFrame, rep.LastFrame, rep.WallSeconds, rep.FPS, rep.ServerFrame)
			}
			// Every frame the server ran (joins included), and the final xdump.
			if rep.InvariantChecks < testFrames+1 || rep.XDumpFrame < rep.LastFrame {
				t.Errorf("%d invariant checks, final state at frame %d", rep.InvariantChecks, rep.XDumpFrame)
			}
			if rep.AOI.PlayerDumps != 4 {
				t.Errorf("%d player xdumps checked, want one per bot", rep.AOI.PlayerDumps)
			}
			if !raceEnabled && rep.Travel.Handoffs == 0 {
				t.Errorf("travel %+v: no handoff", rep.Travel)
			}
			if rep.AOI.Checks != 4*testFrames || rep.AOI.Remove != 50 || rep.Schedule.Source != "replayed" {
				t.Errorf("aoi %+v, schedule %+v", rep.AOI, rep.Schedule)
			}
			for i, b := range rep.BotReports {
				// Every bot got every frame, sent its inputs and compared its
				// prediction; the checked frames need no late input.
				if b.BytesIn == 0 || b.BytesOut == 0 || b.Compared < testFrames-10 || b.Errors != 0 {
					t.Errorf("bot %d: %+v", i, b)
				}
			}
			if net == "" && rep.Drift.LateInputs != 0 {
				t.Errorf("%d late inputs without latency", rep.Drift.LateInputs)
			}
			if rep.Drift.MaxPosError > rep.Drift.BoundM {
				t.Errorf("drift %+v", rep.Drift)
			}
			dump, err := os.ReadFile(rep.XDump)
			if err != nil || !strings.HasPrefix(string(dump), "XDUMP entity ") || !strings.Contains(string(dump), "XDUMP lost ") {
				t.Errorf("xdump %q: %v\n%.200s", rep.XDump, err, dump)
			}
		})
	}
}

// TestHeadlessViolation holds the server to a smaller AOI than it uses: the bots
// hold entities beyond it, and the run fails.
func TestHeadlessViolation(t *testing.T) {
	code, out, rep := runHeadlessArgs(t, "-frames", "60", "-bots", "2", "-check-aoi-remove", "10")
	if code != 1 || rep.OK || rep.Violations == 0 || rep.Listed[0].Check != "aoi" {
		t.Fatalf("exit %d, ok %v, %d violations %+v", code, rep.OK, rep.Violations, rep.Listed)
	}
	if !strings.HasPrefix(out, "headless: FAIL") || !strings.Contains(out, "beyond the remove radius 10") {
		t.Errorf("summary: %q", out)
	}
}

func TestHeadlessUsage(t *testing.T) {
	for _, args := range [][]string{
		{"-frames", "0"},
		{"-bots", "-1"},
		{"-net", "latency=fast"},
		{"-bogus"},
		{"extra"},
		{"-nodes", "3", "-net", "latency=80ms"},
		{"-nodes", "3", "-record", "x.rec"},
		{"-nodes", "-1"},
		{"-nodes", "4"}, // more nodes than the default world's three regions
		{"-nodes", "3", "-bots", "101"},
	} {
		if code, out, errs := runArgs(args...); code != 2 || out != "" || errs == "" {
			t.Errorf("run(%q) = %d, stdout %q, stderr %q; want 2 and a message", args, code, out, errs)
		}
	}
}

func TestReplaySchedule(t *testing.T) {
	// Frames that take 120 ms each cannot keep 20 Hz: the driver drops frames
	// and every frame starts late.
	slow := make([]time.Duration, 100)
	for i := range slow {
		slow[i] = 120 * time.Millisecond
	}
	h := &headlessRun{cfg: headlessConfig{spiral: 20}, rep: &headlessReport{OK: true}}
	h.schedule(replaySchedule(slow))
	if h.rep.OK || h.rep.Schedule.Dropped == 0 || h.rep.Schedule.LongestBehind <= 20 || h.rep.Listed[0].Check != "spiral" {
		t.Errorf("slow frames: %+v %+v", h.rep.Schedule, h.rep.Listed)
	}
	fast := make([]time.Duration, 100)
	for i := range fast {
		fast[i] = time.Millisecond
	}
	fast[50] = 400 * time.Millisecond // one stall: dropped frames, then caught up
	h = &headlessRun{cfg: headlessConfig{spiral: 20}, rep: &headlessReport{OK: true}}
	h.schedule(replaySchedule(fast))
	if !h.rep.OK || h.rep.Schedule.Dropped == 0 {
		t.Errorf("one stall: %+v %+v", h.rep.Schedule, h.rep.Listed)
	}
}

// TestCheckInvariants feeds the invariant check a deity dump with an avatar
// placed off the navmesh.
func TestCheckInvariants(t *testing.T) {
	w, err := world.LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := w.Xdump(&b, "xdump entity", xdump.Viewer{Deity: true}); err != nil {
		t.Fatal(err)
	}
	good := b.String()
	h := &headlessRun{rep: &headlessReport{OK: true}}
	h.checkInvariants(good)
	if !h.rep.OK || h.rep.InvariantChecks != 1 {
		t.Fatalf("the default world fails: %+v", h.rep.Listed)
	}
	// The bad row goes after the hub's last entity, with the next id of the hub's
	// block: ids ascend, and the regions' blocks follow each other.
	lines := strings.Split(strings.TrimSuffix(good, "\n"), "\n")
	last := 1
	for i := 1; i < len(lines)-1; i++ {
		if strings.Fields(lines[i])[2] == "0" { // region
			last = i
		}
	}
	row := strings.Fields(lines[last])
	id, err := strconv.ParseInt(row[0], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	row[0], row[1], row[3], row[4] = strconv.FormatInt(id+1, 10), "0", "-500", "-500" // id, prototype, x, y
	n := len(lines) - 2
	rows := slices.Insert(slices.Clone(lines[:len(lines)-1]), last+1, strings.Join(row, " "))
	bad := strings.Join(rows, "\n") + fmt.Sprintf("\n/%d\n", n+1)
	h.checkInvariants(bad)
	if h.rep.OK || h.rep.Violations == 0 || h.rep.Listed[0].Check != "invariants" || h.rep.Listed[0].Invariant != "walkable" ||
		h.rep.Listed[0].Entity != uint64(id+1) || !strings.Contains(h.rep.Listed[0].What, "outside walkable space") {
		t.Errorf("an avatar off the navmesh: %+v", h.rep.Listed)
	}
}

// TestHeadlessDeterministic runs the same seed twice: everything the report says
// that does not measure the machine (frames, entity ids, traffic, drift, checks)
// and the final state's xdump are the same.
func TestHeadlessDeterministic(t *testing.T) {
	t.Parallel()
	// Every goal choice a portal: 200 frames see handoffs (the travel checks must run).
	args := []string{"-frames", "200", "-bots", "3", "-seed", "5", "-net", "latency=40ms,jitter=10ms", "-travel", "1"}
	var reps [2]headlessReport
	var dumps [2][]byte
	for i := range reps {
		code, _, rep := runHeadlessArgs(t, args...)
		if code != 0 {
			t.Fatalf("run %d: exit %d: %+v", i, code, rep.Listed)
		}
		b, err := os.ReadFile(rep.XDump)
		if err != nil {
			t.Fatal(err)
		}
		dumps[i] = b
		// What measures the machine, and where the files went.
		rep.WallSeconds, rep.CPUSeconds, rep.FPS, rep.XDump = 0, 0, 0, ""
		rep.ServerFrame, rep.Frame = harness.Durations{}, harness.Durations{}
		rep.Schedule.Dropped, rep.Schedule.MaxBacklog, rep.Schedule.LongestBehind, rep.Schedule.Lateness = 0, 0, 0, harness.Durations{}
		reps[i] = rep
	}
	if reps[0].JoinFrames == 0 || len(reps[0].BotReports) != 3 || reps[0].BotReports[0].Player == 0 || reps[0].BytesIn == 0 || reps[0].Travel.Handoffs == 0 {
		t.Fatalf("report %+v", reps[0])
	}
	a, _ := json.MarshalIndent(reps[0], "", " ")
	b, _ := json.MarshalIndent(reps[1], "", " ")
	if string(a) != string(b) {
		t.Errorf("two runs of one seed differ:\n%s\n---\n%s", a, b)
	}
	if string(dumps[0]) != string(dumps[1]) {
		t.Errorf("the final states differ:\n%.300s\n---\n%.300s", dumps[0], dumps[1])
	}
}

// TestHeadlessExactWithoutLatency holds a zero-latency run to the exact check
// (exact.go): a prediction leaves the server's exact state only at a
// contact, and is back on it once the avatar rests at its goal. (A correction
// that did not keep the prediction's exact values would leave avatars resting
// on the wire's grid, up to 1/8 m off the server's.)
func TestHeadlessExactWithoutLatency(t *testing.T) {
	if raceEnabled {
		t.Skip("600 frames of 8 bots take a minute under the race detector; make test (test-headless) runs this test without it")
	}
	t.Parallel()
	const frames, bots = 600, 8
	code, _, rep := runHeadlessArgs(t, "-frames", strconv.Itoa(frames), "-bots", strconv.Itoa(bots), "-seed", "1")
	if code != 0 || rep.Violations != 0 {
		t.Fatalf("exit %d, %d violations: %+v", code, rep.Violations, rep.Listed)
	}
	d := rep.Drift
	t.Logf("%d of %d bot-frames exact, %d departures at contacts", d.ExactFrames, frames*bots, d.ContactDesyncs)
	if d.ExactFrames < frames*bots/4 || d.ContactDesyncs == 0 {
		t.Errorf("exact frames %d of %d, contact departures %d: the check did not run", d.ExactFrames, frames*bots, d.ContactDesyncs)
	}
}

// TestHeadlessFailsWhenACheckDoesNotRun: a run too short for one of its checks fails
// with a named violation instead of passing on a check that never ran. In one frame
// the players' xdumps (asked for half-way) are never answered: the deity check has
// nothing to check.
func TestHeadlessFailsWhenACheckDoesNotRun(t *testing.T) {
	t.Parallel()
	code, out, rep := runHeadlessArgs(t, "-frames", "1", "-bots", "1", "-seed", "3")
	if code != 1 || rep.OK || rep.AOI.PlayerDumps != 0 || len(rep.Listed) == 0 || rep.Listed[0].Check != "not-run" {
		t.Fatalf("exit %d, ok %v, %d player dumps; violations %+v", code, rep.OK, rep.AOI.PlayerDumps, rep.Listed)
	}
	if !strings.HasPrefix(out, "headless: FAIL") || !strings.Contains(out, "not-run: bot 0 entity 0: the deity check did not run") {
		t.Errorf("summary: %q", out)
	}
}

// TestChecksRan: each check the report counts is a not-run violation when it
// counted nothing; the exact check only where it applies (no added latency).
func TestChecksRan(t *testing.T) {
	t.Parallel()
	ran := func() headlessReport {
		r := headlessReport{OK: true, InvariantChecks: 1}
		r.AOI.Checks, r.AOI.PlayerDumps = 1, 1
		r.Drift.FramesCompared, r.Drift.ExactCheck, r.Drift.ExactFrames = 1, true, 1
		r.Travel.Chance, r.Travel.Handoffs, r.Travel.IDChecks, r.Travel.RegionChecks, r.Travel.AOIChecks = 0.3, 1, 1, 1, 1
		return r
	}
	tests := []struct {
		name  string
		unset func(*headlessReport)
		want  string // the check named not run ("": none)
	}{
		{"all ran", func(*headlessReport) {}, ""},
		{"exact", func(r *headlessReport) { r.Drift.ExactFrames = 0 }, "exact"},
		{"exact with latency", func(r *headlessReport) { r.Drift.ExactFrames, r.Drift.ExactCheck = 0, false }, ""},
		{"invariants", func(r *headlessReport) { r.InvariantChecks = 0 }, "invariants"},
		{"aoi", func(r *headlessReport) { r.AOI.Checks = 0 }, "aoi"},
		{"deity", func(r *headlessReport) { r.AOI.PlayerDumps = 0 }, "deity"},
		{"drift", func(r *headlessReport) { r.Drift.FramesCompared = 0 }, "drift"},
		{"ids", func(r *headlessReport) { r.Travel.IDChecks = 0 }, "ids"},
		{"region", func(r *headlessReport) { r.Travel.RegionChecks = 0 }, "region"},
		{"aoi-region", func(r *headlessReport) { r.Travel.AOIChecks = 0 }, "aoi-region"},
		{"handoff", func(r *headlessReport) { r.Travel.Handoffs = 0 }, "handoff"},
		{"handoff without travel", func(r *headlessReport) { r.Travel.Handoffs, r.Travel.Chance = 0, 0 }, ""},
	}
	for _, tc := range tests {
		r := ran()
		tc.unset(&r)
		r.checksRan()
		if tc.want == "" {
			if !r.OK || r.Violations != 0 {
				t.Errorf("%s: %+v", tc.name, r.Listed)
			}
			continue
		}
		if r.OK || r.Violations != 1 || r.Listed[0].Check != "not-run" || !strings.HasPrefix(r.Listed[0].What, "the "+tc.want+" check did not run") {
			t.Errorf("%s: ok %v, %+v", tc.name, r.OK, r.Listed)
		}
	}
}

// TestViolationList: both reports count every violation, list the first
// maxListed, fail, and carry the two in their JSON as "violations" and
// "violationList".
func TestViolationList(t *testing.T) {
	t.Parallel()
	hr := &headlessReport{OK: true}
	cr := &clusterReport{OK: true}
	var seen int
	hr.onViolate = func(headlessViolation) { seen++ }
	reports := []struct {
		name    string
		violate func(headlessViolation)
		ok      *bool
		report  any
	}{
		{"headless", hr.violate, &hr.OK, hr},
		{"cluster", cr.violate, &cr.OK, cr},
	}
	for _, r := range reports {
		for i := range maxListed + 3 {
			r.violate(headlessViolation{Frame: uint64(i), Check: "aoi"})
		}
		if *r.ok {
			t.Errorf("%s: still ok after violations", r.name)
		}
		b, err := json.Marshal(r.report)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Violations int                 `json:"violations"`
			Listed     []headlessViolation `json:"violationList"`
		}
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if got.Violations != maxListed+3 || len(got.Listed) != maxListed || got.Listed[maxListed-1].Frame != maxListed-1 {
			t.Errorf("%s: JSON has %d violations, %d listed; want %d, the first %d", r.name, got.Violations, len(got.Listed), maxListed+3, maxListed)
		}
	}
	if seen != maxListed+3 {
		t.Errorf("the headless report's onViolate saw %d violations, want %d", seen, maxListed+3)
	}
}
