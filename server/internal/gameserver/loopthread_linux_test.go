//go:build linux && (amd64 || arm64)

package gameserver

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// threadField reads a number from the calling thread's /proc files: name in
// /proc/thread-self/sched ("se.slice"), or the whole of a one-value file.
func threadField(t *testing.T, file, name string) (int64, bool) {
	t.Helper()
	b, err := os.ReadFile("/proc/thread-self/" + file)
	if err != nil {
		return 0, false
	}
	text := strings.TrimSpace(string(b))
	if name != "" {
		_, rest, ok := strings.Cut(text, "\n"+name)
		if !ok {
			return 0, false
		}
		_, v, _ := strings.Cut(rest, ":")
		v, _, _ = strings.Cut(v, "\n")
		text = strings.TrimSpace(v)
	}
	n, err := strconv.ParseFloat(text, 64)
	return int64(n), err == nil
}

// The frame loop's thread gets the short slice and the tight timer slack while
// the loop runs, and the thread gets its old ones back afterwards.
func TestLockLoopThreadSetsAndRestoresSliceAndSlack(t *testing.T) {
	runtime.LockOSThread() // keep this thread for the reads after unlock
	defer runtime.UnlockOSThread()
	slice0, okSlice := threadField(t, "sched", "se.slice")
	slack0, okSlack := threadField(t, "timerslack_ns", "")
	if !okSlice && !okSlack {
		t.Skip("no /proc/thread-self/sched se.slice or timerslack_ns here")
	}
	unlock := lockLoopThread()
	checks := []struct {
		file, name string
		ok         bool
		during     int64
		before     int64
	}{
		{"sched", "se.slice", okSlice, int64(loopSlice), slice0},
		{"timerslack_ns", "", okSlack, int64(loopTimerSlack), slack0},
	}
	for _, c := range checks {
		if !c.ok {
			continue
		}
		if got, _ := threadField(t, c.file, c.name); got != c.during {
			// Kernels before 6.12 keep the default slice: say so rather than fail.
			if c.name == "se.slice" && got == c.before {
				t.Logf("the kernel kept the slice at %d ns (custom slices need Linux 6.12)", got)
				continue
			}
			t.Errorf("%s %s = %d while the loop runs, want %d", c.file, c.name, got, c.during)
		}
	}
	unlock()
	for _, c := range checks {
		if !c.ok {
			continue
		}
		if got, _ := threadField(t, c.file, c.name); got != c.before {
			t.Errorf("%s %s = %d after the loop, want the old %d", c.file, c.name, got, c.before)
		}
	}
}

// SleepUntil never returns before its instant, and returns at once for one
// that has passed.
func TestPreciseClockSleepsUntilTheInstant(t *testing.T) {
	t.Parallel()
	c, ok := WallClock().(interface {
		Now() time.Duration
		SleepUntil(time.Duration)
	})
	if !ok {
		t.Fatal("the Linux wall clock has no SleepUntil")
	}
	for _, ahead := range []time.Duration{-time.Second, 0, 300 * time.Microsecond, 3 * time.Millisecond} {
		at := c.Now() + ahead
		c.SleepUntil(at)
		if now := c.Now(); now < at {
			t.Errorf("SleepUntil(now%+v) returned %v early", ahead, at-now)
		}
	}
}
