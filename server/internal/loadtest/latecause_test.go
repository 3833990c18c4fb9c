package loadtest

import (
	"runtime"
	"testing"
	"time"

	"github.com/twinframe/twinframe/internal/testenv"
	"github.com/twinframe/twinframe/server/internal/frameclock"
)

// causes finds each late frame's last wait and splits its lateness into the
// kernel's run delay and the rest.
func TestLateCauses(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	p := newLateProbe(nil)
	// Frame deadlines at 50, 100, 150, 200 ms; every frame starts at the end of
	// its last wait.
	p.frames = map[uint64]probeWait{
		1: {kind: waitYield, start: 48 * ms, end: 50*ms + 100*time.Microsecond}, // on time
		2: {kind: waitSleep, start: 98 * ms, end: 103 * ms, osWait: 1 * ms},     // 3 ms late: 1 kernel, 2 other
		3: {kind: waitYield, start: 149 * ms, end: 154 * ms, osWait: 9 * ms},    // 4 ms late, all kernel (capped)
		4: {kind: waitSleep, start: 180 * ms, end: 190 * ms},                    // behind: ran back to back
	}
	reports := []frameclock.Report{
		{Frame: 1, Lateness: 100 * time.Microsecond, Backlog: 1},
		{Frame: 2, Lateness: 3 * ms, Backlog: 1},
		{Frame: 3, Lateness: 4 * ms, Backlog: 1},
		{Frame: 4, Lateness: 20 * ms, Backlog: 2},
		{Frame: 5, Lateness: 2 * ms, Backlog: 1}, // no waits recorded: behind
	}
	got := p.causes(reports, ms)
	if got.Late != 4 || got.Behind != 2 {
		t.Errorf("late %d behind %d, want 4 and 2", got.Late, got.Behind)
	}
	want := map[string]lateShare{
		"sleep": {Frames: 1, KernelMs: 1, OtherMs: 2},
		"spin":  {Frames: 1, KernelMs: 4, OtherMs: 0},
	}
	if len(got.ByWait) != len(want) {
		t.Errorf("by wait %+v, want %+v", got.ByWait, want)
	}
	for k, w := range want {
		g := got.ByWait[k]
		if g.Frames != w.Frames || !near(g.KernelMs, w.KernelMs) || !near(g.OtherMs, w.OtherMs) {
			t.Errorf("%s: %+v, want %+v", k, g, w)
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// probeClock is a fake clock for the probe: sleeps and spin steps move it.
type probeClock struct{ now time.Duration }

func (c *probeClock) Now() time.Duration { return c.now }
func (c *probeClock) Sleep(d time.Duration) {
	c.now += max(d, 10*time.Microsecond)
}

// The probe keeps the last wait before each frame: a sleep, or a spin as one
// wait from its first step to the frame's start.
func TestLateProbeRecordsSleepsAndOneSpin(t *testing.T) {
	t.Parallel()
	c := &probeClock{}
	p := newLateProbe(c)
	if !p.rd.open() {
		if runtime.GOOS == "linux" {
			testenv.Missing(t, "/proc/thread-self/schedstat cannot be read: no run delay to read")
		}
		t.Skip("no run delay to read on " + runtime.GOOS + ": the Linux run (CI) checks it")
	}
	for range 3 {
		p.Sleep(time.Millisecond)
	}
	for range 100 {
		p.Sleep(0)
	}
	p.frameStart(7)
	p.Sleep(time.Millisecond)
	p.frameStart(8)
	spin := p.frames[7]
	if spin.kind != waitYield || spin.start != 3*time.Millisecond || spin.end != 4*time.Millisecond {
		t.Errorf("frame 7's last wait %+v, want the spin from 3 ms to 4 ms (100 steps of 10 µs)", spin)
	}
	if sleep := p.frames[8]; sleep.kind != waitSleep || sleep.start != 4*time.Millisecond || sleep.end != 5*time.Millisecond {
		t.Errorf("frame 8's last wait %+v, want the sleep from 4 ms to 5 ms", sleep)
	}
	p.frameStart(9)
	if len(p.frames) != 2 {
		t.Errorf("a frame with no wait before it was recorded: %+v", p.frames)
	}
}
