package loadtest

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/twinframe/twinframe/server/internal/frameclock"
)

// lateProbe finds out why frames start late (-frame-cpu, where the frame loop
// is locked to its OS thread). It wraps the loop's clock and records the last
// wait before each frame (a sleep, or the spin from its first step to the
// frame's start): when it started and ended, and how long the loop's thread
// spent in it runnable but not running (the kernel's run delay: other threads
// and processes held the cores). Joined with the frame reports, the wait that
// straddled a late frame's deadline says whether the lateness was the kernel's
// or the rest: the Go runtime (a timer that fired late, a goroutine that held
// the processor the spin yielded) or the sleep's own overshoot.
type lateProbe struct {
	clock frameclock.Clock
	rd    runDelayReader // the loop thread's, opened on the loop's first wait

	// Loop goroutine only: the last wait since the last frame started, and
	// for a spin in progress, the run delay at its first step.
	last     probeWait
	hasLast  bool
	spinning bool
	spinRD   time.Duration

	mu     sync.Mutex
	frames map[uint64]probeWait // by loop frame: the last wait before it
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
	return &lateProbe{clock: c, frames: map[uint64]probeWait{}}
}

func (p *lateProbe) Now() time.Duration { return p.clock.Now() }

func (p *lateProbe) Sleep(d time.Duration) {
	if !p.rd.open() {
		p.clock.Sleep(d)
		return
	}
	if d > 0 {
		w := probeWait{kind: waitSleep, start: p.clock.Now()}
		rd0 := p.rd.read()
		p.clock.Sleep(d)
		rd1 := p.rd.read()
		w.end = p.clock.Now()
		if rd0 >= 0 && rd1 >= rd0 {
			w.osWait = rd1 - rd0
		}
		p.last, p.hasLast, p.spinning = w, true, false
		return
	}
	// A spin is one wait from its first step to the frame's start: reading
	// the run delay at every step would make the spin a loop of /proc reads.
	if !p.spinning {
		p.spinning, p.spinRD = true, p.rd.read()
		p.last, p.hasLast = probeWait{kind: waitYield, start: p.clock.Now()}, true
	}
	p.clock.Sleep(0)
	p.last.end = p.clock.Now()
}

// frameStart runs first in every frame (gameserver.Config.FrameStart): the
// last wait since the last frame is this frame's.
func (p *lateProbe) frameStart(frame uint64) {
	if p.spinning {
		if rd := p.rd.read(); rd >= 0 && p.spinRD >= 0 && rd >= p.spinRD {
			p.last.osWait = rd - p.spinRD
		}
		p.spinning = false
	}
	if !p.hasLast {
		return
	}
	p.hasLast = false
	p.mu.Lock()
	p.frames[frame] = p.last
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
		last, ok := p.frames[r.Frame]
		if !ok || r.Backlog > 1 {
			lc.Behind++
			continue
		}
		// The last wait ended just before the frame started: the frame's
		// deadline is its start less its lateness, and the start is at most
		// a clock read after the wait's end.
		deadline := last.end - r.Lateness
		late := max(0, last.end-max(deadline, last.start))
		os := min(last.osWait, late)
		sh := lc.ByWait[last.kind.String()]
		sh.Frames++
		sh.KernelMs += float64(os) / 1e6
		sh.OtherMs += float64(late-os) / 1e6
		lc.ByWait[last.kind.String()] = sh
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
