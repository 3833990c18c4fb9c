package gameserver

import (
	"runtime"
	"time"

	"github.com/twinframe/twinframe/shared/sim/frameclock"
)

// WallClock returns the frame loop's real clock (the default Config.Clock):
// monotonic time since the call. Where the platform can (Linux), it is also a
// frameclock.UntilSleeper whose sleeps are the kernel's (clock_nanosleep until
// an instant) and whose spin steps do not yield.
//
// Why (BENCHMARKS.md, "Load test", round 3): a Go timer fires only when one of
// the runtime's threads checks its timers, in steps of a millisecond and later
// when the processors are busy, so the loop's last 1 ms sleep before its spin
// sometimes ended after the deadline; and a spin step that yields
// (runtime.Gosched) hands the processor to any runnable goroutine, which then
// runs past the deadline. Either was most of a late frame's lateness at 200
// clients, apart from waiting for a core.
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
