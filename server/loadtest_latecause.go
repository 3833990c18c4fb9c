package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/twinframe/twinframe/shared/sim/frameclock"
)

// lateProbe finds out why frames start late (-frame-cpu, where the frame loop
// is locked to its OS thread). It wraps the loop's clock and records every wait
// the frame clock makes (a sleep, a spin): when it started and ended, and how long the loop's thread spent in
// that time runnable but not running (the kernel's run delay, which is other
// threads and processes holding the cores). The load test joins these records
// with the frame reports: the wait that straddled a late frame's deadline says
// whether the lateness was the kernel (the thread was runnable and waited for a
// core) or the rest: the Go runtime (a timer that fired late, a goroutine that
// held the processor the spin yielded) or the sleep's own overshoot.
type lateProbe struct {
	clock frameclock.Clock
	rd    runDelayReader // the loop thread's, opened on the loop's first wait

	// Loop goroutine only: the waits since the last frame started, and the
	// spin in progress (its first step's run delay).
	ops      []probeWait
	spinning bool
	spinRD   time.Duration

	mu     sync.Mutex
	frames map[uint64][]probeWait // by loop frame: the waits before it
}

type probeWait struct {
	kind       waitKind
	start, end time.Duration // on the clock
	osWait     time.Duration // run delay of the loop's thread during the wait
}

type waitKind uint8

const (
	waitSleep waitKind = iota // a sleep of the clock's, of a given duration
	waitYield                 // a spin: Sleep(0) steps, from the first to the frame's start
)

func (k waitKind) String() string {
	return [...]string{"sleep", "spin"}[k]
}

func newLateProbe(c frameclock.Clock) *lateProbe {
	return &lateProbe{clock: c, frames: map[uint64][]probeWait{}}
}

func (p *lateProbe) Now() time.Duration { return p.clock.Now() }

func (p *lateProbe) Sleep(d time.Duration) {
	if d > 0 {
		p.record(waitSleep, func() { p.clock.Sleep(d) })
		return
	}
	// A spin is one wait from its first step to the frame's start: reading
	// the run delay at every step would make the spin a loop of /proc reads.
	if n := len(p.ops); n > 0 && p.ops[n-1].kind == waitYield && p.spinning {
		p.clock.Sleep(0)
		p.ops[n-1].end = p.clock.Now()
		return
	}
	if !p.rd.open() {
		p.clock.Sleep(0)
		return
	}
	p.spinning, p.spinRD = true, p.rd.read()
	p.push(probeWait{kind: waitYield, start: p.clock.Now()})
	p.clock.Sleep(0)
	p.ops[len(p.ops)-1].end = p.clock.Now()
}

func (p *lateProbe) record(kind waitKind, wait func()) {
	if !p.rd.open() {
		wait()
		return
	}
	w := probeWait{kind: kind, start: p.clock.Now()}
	rd0 := p.rd.read()
	wait()
	rd1 := p.rd.read()
	w.end = p.clock.Now()
	if rd0 >= 0 && rd1 >= rd0 {
		w.osWait = rd1 - rd0
	}
	p.spinning = false
	p.push(w)
}

func (p *lateProbe) push(w probeWait) {
	if len(p.ops) == maxProbeWaits {
		p.ops = p.ops[:copy(p.ops, p.ops[len(p.ops)/2:])]
	}
	p.ops = append(p.ops, w)
}

// maxProbeWaits bounds the waits kept per frame: only the last ones before the
// deadline matter.
const maxProbeWaits = 64

// frameStart runs first in every frame (gameserver.Config.FrameStart): the
// waits recorded since the last frame are this frame's.
func (p *lateProbe) frameStart(frame uint64) {
	if n := len(p.ops); n > 0 && p.spinning {
		if rd := p.rd.read(); rd >= 0 && p.spinRD >= 0 && rd >= p.spinRD {
			p.ops[n-1].osWait = rd - p.spinRD
		}
		p.spinning = false
	}
	ops := slices.Clone(p.ops)
	p.ops = p.ops[:0]
	p.mu.Lock()
	p.frames[frame] = ops
	p.mu.Unlock()
}

// lateCauses sums up why frames started late.
type lateCauses struct {
	ThresholdMs float64 `json:"thresholdMs"` // frames at least this late are counted
	Late        int     `json:"late"`
	// Behind: the previous frame was still running at the deadline (its
	// lateness is the backlog's, not the wait's).
	Behind int `json:"behind"`
	// ByWait: the late frames whose deadline fell inside a wait of that kind,
	// with the lateness split into the time the loop's thread was runnable
	// and waited for a core (kernelMs) and the rest (the sleep's overshoot,
	// or the Go runtime handing the goroutine back to its thread: otherMs).
	ByWait map[string]lateShare `json:"byWait"`
}

type lateShare struct {
	Frames   int     `json:"frames"`
	KernelMs float64 `json:"kernelMs"` // summed over those frames
	OtherMs  float64 `json:"otherMs"`
}

// causes joins the waits with the frame reports.
func (p *lateProbe) causes(reports []frameclock.Report, threshold time.Duration) *lateCauses {
	p.mu.Lock()
	defer p.mu.Unlock()
	lc := &lateCauses{ThresholdMs: float64(threshold) / 1e6, ByWait: map[string]lateShare{}}
	for _, r := range reports {
		if r.Lateness < threshold {
			continue
		}
		lc.Late++
		ops, ok := p.frames[r.Frame]
		if !ok || len(ops) == 0 || r.Backlog > 1 {
			lc.Behind++
			continue
		}
		// The last wait ended just before the frame started; the frame's
		// deadline is its start less its lateness, and the start is at most
		// a clock read after the last wait's end.
		last := ops[len(ops)-1]
		deadline := last.end - r.Lateness
		k := last.kind.String()
		if deadline >= last.end-time.Microsecond {
			k = "between" // the deadline passed after the last wait, while the loop ran
		}
		sh := lc.ByWait[k]
		sh.Frames++
		late := last.end - max(deadline, last.start)
		os := min(last.osWait, late)
		sh.KernelMs += float64(os) / 1e6
		sh.OtherMs += float64(late-os) / 1e6
		lc.ByWait[k] = sh
	}
	return lc
}

// lateCauseThreshold: frames at least this late are explained (half the
// lateness target).
const lateCauseThreshold = time.Millisecond

func (lc *lateCauses) summary(w io.Writer) {
	fmt.Fprintf(w, "loadtest: %d frames started ≥ %.1f ms late: %d behind a long frame", lc.Late, lc.ThresholdMs, lc.Behind)
	for _, k := range slices.Sorted(maps.Keys(lc.ByWait)) {
		s := lc.ByWait[k]
		fmt.Fprintf(w, "; %d in a %s (waiting for a core %.1f ms, other %.1f ms)", s.Frames, k, s.KernelMs, s.OtherMs)
	}
	fmt.Fprintln(w)
}
