package gameserver

import (
	"runtime"
	"time"

	"github.com/twinframe/twinframe/shared/sim/frameclock"
)

// WallClock returns the frame loop's real clock (the default Config.Clock):
// monotonic time since the call; a sleep of zero yields the processor. The load
// test wraps it to see how the loop waits (server/internal/loadtest/latecause.go).
func WallClock() frameclock.Clock { return wallClock{start: time.Now()} }

type wallClock struct{ start time.Time }

func (c wallClock) Now() time.Duration { return time.Since(c.start) }
func (c wallClock) Sleep(d time.Duration) {
	if d <= 0 {
		runtime.Gosched()
		return
	}
	time.Sleep(d)
}
