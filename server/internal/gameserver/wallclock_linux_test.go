package gameserver

import (
	"testing"
	"time"

	"github.com/twinframe/twinframe/shared/sim/frameclock"
)

// SleepUntil never returns before its instant, and returns at once for one
// that has passed.
func TestPreciseClockSleepsUntilTheInstant(t *testing.T) {
	t.Parallel()
	c := WallClock()
	u, ok := c.(frameclock.UntilSleeper)
	if !ok {
		t.Fatal("the Linux wall clock has no SleepUntil")
	}
	for _, ahead := range []time.Duration{-time.Second, 0, 300 * time.Microsecond, 3 * time.Millisecond} {
		at := c.Now() + ahead
		u.SleepUntil(at)
		if now := c.Now(); now < at {
			t.Errorf("SleepUntil(now%+v) returned %v early", ahead, at-now)
		}
	}
}
