package headless

import (
	"errors"
	"sync/atomic"
	"time"
)

// stepClock is the frameclock.Clock the headless run gives the server
// (gameserver.Config.Clock): time stands still while the frame loop waits, and
// each grant from the driver moves it to the next deadline, so the loop runs
// exactly one frame per grant, as fast as the machine allows. The wall time from
// a grant to the loop's next wait is the frame's duration.
//
// The frame loop calls Now and Sleep from its own goroutine; the driver calls
// step from another.
type stepClock struct {
	period  time.Duration
	now     atomic.Int64
	grant   chan struct{}
	idle    chan time.Duration // the wall duration of each frame that ran
	stop    chan struct{}
	running bool // loop goroutine only: a frame is running
	started time.Time
}

func newStepClock(period time.Duration) *stepClock {
	return &stepClock{period: period, grant: make(chan struct{}), idle: make(chan time.Duration, 1),
		stop: make(chan struct{}), running: true, started: time.Now()}
}

func (c *stepClock) Now() time.Duration { return time.Duration(c.now.Load()) }

// Sleep is where the frame loop waits between frames: it reports the frame that
// ran and waits for the next grant (or, once stopped, lets time pass).
func (c *stepClock) Sleep(d time.Duration) {
	if c.running {
		c.running = false
		select {
		case c.idle <- time.Since(c.started):
		case <-c.stop:
		}
	}
	select {
	case <-c.grant:
		c.now.Add(int64(c.period))
		c.running, c.started = true, time.Now()
	case <-c.stop:
		c.now.Add(int64(max(d, time.Microsecond)))
	}
}

var errLoopStuck = errors.New("headless: the server's frame loop did not finish a frame in time")

// wait waits for the frame that is running to finish and returns its wall time.
func (c *stepClock) wait(timeout time.Duration) (time.Duration, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case d := <-c.idle:
		return d, nil
	case <-t.C:
		return 0, errLoopStuck
	}
}

// step runs one server frame and returns its wall time.
func (c *stepClock) step(timeout time.Duration) (time.Duration, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case c.grant <- struct{}{}:
	case <-t.C:
		return 0, errLoopStuck
	}
	return c.wait(timeout)
}

// halt lets the loop run free so that it sees its context end.
func (c *stepClock) halt() { close(c.stop) }
