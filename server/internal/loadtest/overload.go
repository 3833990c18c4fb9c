package loadtest

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/twinframe/twinframe/server/internal/frameclock"
	"github.com/twinframe/twinframe/server/internal/gameserver"
	"github.com/twinframe/twinframe/server/internal/harness"
)

// overload injects work into the server's frames (gameserver.Config.FrameWork):
// while the clock is inside the burst's window, every frame also spends work.
// The real run spins on the wall clock; a test passes a fake clock whose burn
// only moves it, and so drives the real frame loop through the same burst.
type overload struct {
	clock frameclock.Clock
	burn  func(c frameclock.Clock, d time.Duration)
	work  time.Duration

	mu          sync.Mutex
	from, until time.Duration // the burst's window on clock (empty: none)
	first, last uint64        // loop frames that burned
	burned      int
}

func newOverload(c frameclock.Clock, burn func(frameclock.Clock, time.Duration), work time.Duration) *overload {
	return &overload{clock: c, burn: burn, work: work}
}

// start schedules a burst of d beginning now.
func (o *overload) start(d time.Duration) {
	now := o.clock.Now()
	o.mu.Lock()
	o.from, o.until, o.burned = now, now+d, 0
	o.mu.Unlock()
}

// frameWork runs inside every frame (in the frame loop).
func (o *overload) frameWork(frame uint64) {
	now := o.clock.Now()
	o.mu.Lock()
	on := now >= o.from && now < o.until
	if on {
		if o.burned == 0 {
			o.first = frame
		}
		o.last = frame
		o.burned++
	}
	o.mu.Unlock()
	if on {
		o.burn(o.clock, o.work)
	}
}

// burnt returns the loop frames of the burst so far.
func (o *overload) burnt() (first, last uint64, n int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.first, o.last, o.burned
}

// spin spends d of wall-clock time busy, reading the clock: the frame loop's
// goroutine keeps its processor, as real work would.
func spin(c frameclock.Clock, d time.Duration) {
	for end := c.Now() + d; c.Now() < end; {
	}
}

// onTime is the lateness under which a frame counts as on time after an
// overload: the load test's lateness target.
const onTime = 2 * time.Millisecond

// overloadReport says what a burst did to the schedule.
type overloadReport struct {
	Multiple      float64 `json:"multiple"` // of the frame budget, per frame
	WorkMs        float64 `json:"workPerFrameMs"`
	BurstSeconds  float64 `json:"burstSeconds"`
	BurstFrames   int     `json:"burstFrames"` // frames that ran inside the burst
	DroppedFrames uint64  `json:"droppedFrames"`
	MaxBacklog    int     `json:"maxBacklog"` // frames due at once (the driver runs at most MaxCatchUp)
	// RecoverySeconds runs from the end of the burst's last frame to the start of
	// the first frame after it that started on time (lateness ≤ OnTimeMs); -1: none did.
	RecoverySeconds float64 `json:"recoverySeconds"`
	OnTimeMs        float64 `json:"onTimeMs"`
	// LateAfter counts frames after recovery that started later than OnTimeMs.
	LateAfter int `json:"lateAfterRecovery"`
	Frames    int `json:"frames"` // frames reported, burst and recovery
}

// analyzeOverload judges reports, which cover the burst whose frames are
// first..last and what followed. A frame's start on the schedule is
// (Frame+Dropped)·Period + Lateness from the driver's origin (Dropped counts the
// frames dropped before it ran: the driver drops only between frames).
func analyzeOverload(reports []frameclock.Report, first, last uint64, period time.Duration) overloadReport {
	o := overloadReport{RecoverySeconds: -1, OnTimeMs: float64(onTime) / 1e6, Frames: len(reports)}
	start := func(r frameclock.Report) time.Duration {
		return time.Duration(r.Frame+r.Dropped)*period + r.Lateness
	}
	var before uint64
	var burstEnd time.Duration
	recovered := false
	for _, r := range reports {
		switch {
		case r.Frame < first:
			before = r.Dropped
			continue
		case r.Frame <= last:
			o.BurstFrames++
			o.MaxBacklog = max(o.MaxBacklog, r.Backlog)
			burstEnd = start(r) + r.Duration
			continue
		}
		o.MaxBacklog = max(o.MaxBacklog, r.Backlog)
		switch {
		case !recovered && r.Lateness <= onTime:
			recovered = true
			o.RecoverySeconds = max(0, start(r)-burstEnd).Seconds()
			o.DroppedFrames = r.Dropped - before
		case recovered && r.Lateness > onTime:
			o.LateAfter++
		}
	}
	if !recovered && len(reports) > 0 {
		o.DroppedFrames = reports[len(reports)-1].Dropped - before
	}
	return o
}

// runOverloadPhase runs a burst of burstFor on a running server and watches
// recoverFor after it.
func runOverloadPhase(srv *gameserver.Server, ov *overload, burstFor, recoverFor time.Duration) (*overloadReport, error) {
	_, cursor, _ := srv.FrameReports(1 << 62)
	if cursor > 0 {
		cursor-- // the frame before the burst: the drops before it
	}
	ov.start(burstFor)
	var reports []frameclock.Report
	lost := 0
	end := time.Now().Add(burstFor + recoverFor)
	for left := time.Until(end); left > 0; left = time.Until(end) {
		time.Sleep(min(left, time.Second))
		r, next, l := srv.FrameReports(cursor)
		reports, cursor, lost = append(reports, r...), next, lost+l
	}
	first, last, n := ov.burnt()
	if n == 0 {
		return nil, fmt.Errorf("loadtest: overload: no frame ran during the %v burst", burstFor)
	}
	if lost > 0 {
		return nil, fmt.Errorf("loadtest: overload: %d frame reports lost", lost)
	}
	rep := analyzeOverload(reports, first, last, harness.FramePeriod)

	rep.Multiple = float64(ov.work) / float64(harness.FramePeriod)
	rep.WorkMs = float64(ov.work) / 1e6
	rep.BurstSeconds = burstFor.Seconds()
	return &rep, nil
}

func (o *overloadReport) summary(w io.Writer) {
	rec := "never, in the time watched"
	if o.RecoverySeconds >= 0 {
		rec = fmt.Sprintf("%.0f ms after the burst", o.RecoverySeconds*1000)
	}
	fmt.Fprintf(w, "loadtest: overload %.1f× the frame budget (%.0f ms of work a frame) for %.1f s: %d frames ran in it, %d dropped, max backlog %d; on time (≤ %.0f ms late) again %s; %d late frames after\n",
		o.Multiple, o.WorkMs, o.BurstSeconds, o.BurstFrames, o.DroppedFrames, o.MaxBacklog, o.OnTimeMs, rec, o.LateAfter)
}
