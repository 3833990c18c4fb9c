package frameclock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twinframe/twinframe/server/internal/frameclock"
)

// fakeClock models a machine: sleeps overshoot by a fixed amount, a spin step
// costs a small quantum, and the step function advances time by the work it does.
type fakeClock struct {
	now       time.Duration
	overshoot time.Duration // added to every non-zero sleep
	spin      time.Duration // cost of Sleep(0)
	sleeps    int
}

func (c *fakeClock) Now() time.Duration { return c.now }
func (c *fakeClock) Sleep(d time.Duration) {
	c.sleeps++
	if d <= 0 {
		c.now += c.spin
		return
	}
	c.now += d + c.overshoot
}

// runFrames runs the driver until frame n has run, with work(frame, start) as the
// cost of each frame, and returns every report.
func runFrames(t *testing.T, c *fakeClock, cfg frameclock.Config, n uint64, work func(start time.Duration) time.Duration) []frameclock.Report {
	t.Helper()
	d := frameclock.New(c, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var reports []frameclock.Report
	err := d.Run(ctx, func(frame uint64) error {
		c.now += work(c.now)
		if frame+1 == n {
			cancel()
		}
		return nil
	}, func(r frameclock.Report) { reports = append(reports, r) })
	if !errors.Is(err, frameclock.ErrStopped) {
		t.Fatalf("Run: %v", err)
	}
	return reports
}

func TestOnTimeFramesAreNotLate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		overshoot time.Duration
		work      time.Duration
	}{
		{"exact sleeps", 0, 5 * time.Millisecond},
		{"sleeps overshoot 1ms", time.Millisecond, 5 * time.Millisecond},
		{"heavy but within budget", 900 * time.Microsecond, 45 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := &fakeClock{now: 7 * time.Second, overshoot: tc.overshoot, spin: 20 * time.Microsecond}
			reports := runFrames(t, c, frameclock.Config{}, 200, func(time.Duration) time.Duration { return tc.work })
			for _, r := range reports {
				if r.Lateness > 20*time.Microsecond || r.Dropped != 0 || r.Backlog != 1 {
					t.Fatalf("frame %d: %+v", r.Frame, r)
				}
				if r.Duration != tc.work {
					t.Fatalf("frame %d duration %v, want %v", r.Frame, r.Duration, tc.work)
				}
			}
			if want := 7*time.Second + 199*50*time.Millisecond; c.now < want || c.now > want+tc.work+time.Millisecond {
				t.Errorf("200 frames ended at %v, want ≈ %v", c.now, want)
			}
		})
	}
}

// A 2 s burst of frames costing 3× the budget: the driver must drop backlog (never
// run more than MaxCatchUp frames back to back) and be on time again within 1 s.
func TestOverloadBurstDropsBacklogAndRecovers(t *testing.T) {
	t.Parallel()
	const origin = time.Second
	burstStart, burstEnd := origin+time.Second, origin+3*time.Second
	c := &fakeClock{now: origin, overshoot: 500 * time.Microsecond, spin: 20 * time.Microsecond}
	cfg := frameclock.Config{}
	reports := runFrames(t, c, cfg, 120, func(start time.Duration) time.Duration {
		if start >= burstStart && start < burstEnd {
			return 150 * time.Millisecond
		}
		return 5 * time.Millisecond
	})
	last := reports[len(reports)-1]
	if last.Dropped == 0 {
		t.Fatal("no frames dropped during a 3× overload")
	}
	// Without dropping, 2 s at 3× would leave ≈ 80 frames of backlog.
	if last.Dropped < 20 || last.Dropped > 40 {
		t.Errorf("dropped %d frames, want about 2 s × (1 - 1/3) × 20 Hz ≈ 27", last.Dropped)
	}
	var recovered time.Duration = -1
	starts := frameStarts(reports, origin, cfg)
	for i, r := range reports {
		if r.Backlog > 3 {
			t.Errorf("frame %d ran with backlog %d > MaxCatchUp", r.Frame, r.Backlog)
		}
		if starts[i] >= burstEnd && r.Lateness <= time.Millisecond && recovered < 0 {
			recovered = starts[i]
		}
		if recovered >= 0 && r.Lateness > time.Millisecond {
			t.Errorf("frame %d late by %v after recovery at %v", r.Frame, r.Lateness, recovered)
		}
	}
	if recovered < 0 || recovered-burstEnd > time.Second {
		t.Errorf("recovered at %v, want within 1 s of the burst's end at %v", recovered, burstEnd)
	}
	t.Logf("dropped %d frames; on time again %v after the burst", last.Dropped, recovered-burstEnd)
}

// frameStarts reconstructs each frame's start from its reports: the deadline
// schedule moves forward by the frames dropped before it.
func frameStarts(reports []frameclock.Report, origin time.Duration, cfg frameclock.Config) []time.Duration {
	out := make([]time.Duration, len(reports))
	for i, r := range reports {
		out[i] = origin + time.Duration(r.Frame+r.Dropped)*50*time.Millisecond + r.Lateness
	}
	return out
}

func TestDue(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	tests := []struct {
		name        string
		at          time.Duration
		wantDue     int
		wantDropped uint64
	}{
		{"first call starts frame 0", 0, 1, 0},
		{"before the next deadline", 49 * ms, 1, 0},
		{"two periods late", 100 * ms, 3, 0},
		{"one over the catch-up limit", 150 * ms, 3, 1},
		{"a second late", 1000 * ms, 3, 18},
	}
	for _, tc := range tests {
		c := &fakeClock{}
		d := frameclock.New(c, frameclock.Config{})
		d.Due(0)
		if got := d.Due(tc.at); got != tc.wantDue || d.Dropped() != tc.wantDropped {
			t.Errorf("%s: Due(%v) = %d dropped %d, want %d dropped %d", tc.name, tc.at, got, d.Dropped(), tc.wantDue, tc.wantDropped)
		}
	}
}

func TestStepErrorStopsRun(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	c := &fakeClock{spin: time.Microsecond}
	d := frameclock.New(c, frameclock.Config{})
	err := d.Run(context.Background(), func(frame uint64) error {
		if frame == 4 {
			return boom
		}
		return nil
	}, nil)
	if !errors.Is(err, boom) || d.Frame() != 5 {
		t.Fatalf("Run = %v after %d frames", err, d.Frame())
	}
}

func TestSleepsInShortSteps(t *testing.T) {
	t.Parallel()
	c := &fakeClock{spin: 20 * time.Microsecond}
	runFrames(t, c, frameclock.Config{}, 10, func(time.Duration) time.Duration { return 0 })
	// 9 waits of 50 ms: ≈ 48 sleeps of ≤ 1 ms and ≈ 100 spins of 20 µs each.
	if c.sleeps < 9*48 || c.sleeps > 9*200 {
		t.Errorf("%d sleeps for 9 frame waits", c.sleeps)
	}
}
