package frameclock

import (
	"runtime"
	"time"
)

// Wall returns the real clock: monotonic time since the call. A sleep of zero or
// less (a spin step of the driver's wait) yields the processor instead of sleeping,
// because a Go sleep overshoots by a scheduler quantum and the spin exists to start
// the frame on its deadline. The server's frame loop uses it by default
// (gameserver.Config.Clock); the headless run's -realtime driver and the load test
// use it too, so every paced loop waits the way `server serve` does.
func Wall() Clock { return wall{start: time.Now()} }

type wall struct{ start time.Time }

func (c wall) Now() time.Duration { return time.Since(c.start) }

func (c wall) Sleep(d time.Duration) {
	if d <= 0 {
		runtime.Gosched()
		return
	}
	time.Sleep(d)
}
