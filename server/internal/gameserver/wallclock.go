package gameserver

import (
	"runtime"
	"time"

	"github.com/twinframe/twinframe/shared/sim/frameclock"
)

// WallClock returns the frame loop's real clock (the default Config.Clock):
// monotonic time since the call. Where the platform can (Linux), it is also a
// frameclock.UntilSleeper whose sleeps until an instant are the kernel's
// (clock_nanosleep), so the loop sleeps through the last stretch before a
// deadline and wakes within tens of microseconds of it, instead of spinning.
//
// Why: a Go timer fires only when one of the runtime's threads checks its
// timers (in steps of a millisecond, and later when every processor is busy),
// and a spin that yields (runtime.Gosched) hands the processor to whatever
// goroutine is runnable; the load test measured both starting frames late by
// several milliseconds at 200 clients (BENCHMARKS.md, "Load test", round 3).
func WallClock() frameclock.Clock { return newWallClock(time.Now()) }

// wallClock is the portable part: monotonic time since start; a sleep of zero
// yields the processor.
type wallClock struct{ start time.Time }

func (c wallClock) Now() time.Duration { return time.Since(c.start) }
func (c wallClock) Sleep(d time.Duration) {
	if d <= 0 {
		runtime.Gosched()
		return
	}
	time.Sleep(d)
}
