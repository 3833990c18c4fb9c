// Package frameclock drives a fixed-rate simulation (20 Hz by default) from an
// injected clock: it decides when each frame starts, how late it is, and when a
// backlog is dropped instead of caught up.
//
// # Design note
//
// Frame n is due at Base + n·Period. The driver sleeps in short steps while the next
// deadline is far, then spins (re-reading the clock) for the last stretch, because
// sleeps overshoot by a scheduler quantum. When frames fall behind it runs at most
// MaxCatchUp of them back to back; if more are due it drops the rest and moves the
// schedule forward (Base += dropped·Period), so an overloaded server slows its world
// down instead of spiralling (every frame that would have had to run later makes the
// next one later still). Game time stays whole frames: a dropped frame is never
// simulated, it is a frame of real time the world did not use.
//
// The clock is an interface so that the server passes wall time (Wall) and tests pass
// a fake clock; the driver reads time only through it. The package sits under
// server/internal because only the server paces frames: the simulation in shared/
// counts frames and never reads a clock.
package frameclock

import (
	"context"
	"errors"
	"time"
)

// Clock is the time source. Now must be monotonic.
type Clock interface {
	Now() time.Duration // time since an arbitrary fixed origin
	Sleep(d time.Duration)
}

// Config tunes the driver; zero fields take the defaults in parentheses.
type Config struct {
	Period     time.Duration // frame length (50 ms: 20 Hz)
	MaxCatchUp int           // frames run back to back before the backlog is dropped (3)
	SleepStep  time.Duration // longest single sleep (1 ms)
	SpinFor    time.Duration // last stretch before a deadline spent spinning (2 ms)
}

func (c Config) withDefaults() Config {
	if c.Period <= 0 {
		c.Period = 50 * time.Millisecond
	}
	if c.MaxCatchUp <= 0 {
		c.MaxCatchUp = 3
	}
	if c.SleepStep <= 0 {
		c.SleepStep = time.Millisecond
	}
	if c.SpinFor <= 0 {
		c.SpinFor = 2 * time.Millisecond
	}
	return c
}

// Report describes one frame after it ran.
type Report struct {
	Frame    uint64        // the frame's number, counting from 0
	Lateness time.Duration // how long after its deadline the frame started (≥ 0)
	Duration time.Duration // how long the step took
	Dropped  uint64        // frames dropped so far, in total
	Backlog  int           // frames that were due when this one started, itself included
}

// Driver runs frames on schedule. Create it with New; it is not safe for
// concurrent use.
type Driver struct {
	clock   Clock
	cfg     Config
	base    time.Duration // deadline of frame 0, moved forward by dropped frames
	frame   uint64        // next frame to run
	dropped uint64
	started bool
}

// New returns a driver whose frame 0 is due at the first call to Run or Due.
func New(clock Clock, cfg Config) *Driver {
	return &Driver{clock: clock, cfg: cfg.withDefaults()}
}

// Frame returns the number of the next frame to run.
func (d *Driver) Frame() uint64 { return d.frame }

// Dropped returns how many frames have been dropped in total.
func (d *Driver) Dropped() uint64 { return d.dropped }

// Config returns the configuration in use, defaults filled in.
func (d *Driver) Config() Config { return d.cfg }

func (d *Driver) start(now time.Duration) {
	if !d.started {
		d.started, d.base = true, now
	}
}

// deadline returns when frame n is due.
func (d *Driver) deadline(n uint64) time.Duration {
	return d.base + time.Duration(n)*d.cfg.Period
}

// Due returns how many frames are due at now (0 if the next is in the future),
// after dropping any backlog beyond MaxCatchUp. Run calls it; a caller with its own
// loop (a browser's animation frame, a test) can call it and then Step.
func (d *Driver) Due(now time.Duration) int {
	d.start(now)
	late := now - d.deadline(d.frame)
	if late < 0 {
		return 0
	}
	due := int(late/d.cfg.Period) + 1
	if due > d.cfg.MaxCatchUp {
		drop := due - d.cfg.MaxCatchUp
		d.dropped += uint64(drop)
		d.base += time.Duration(drop) * d.cfg.Period
		due = d.cfg.MaxCatchUp
	}
	return due
}

// Step runs the next frame through step and reports it. backlog is the Due count
// the frame belongs to.
func (d *Driver) Step(step func(frame uint64) error, backlog int) (Report, error) {
	start := d.clock.Now()
	d.start(start)
	r := Report{Frame: d.frame, Lateness: max(0, start-d.deadline(d.frame)), Backlog: backlog}
	err := step(d.frame)
	r.Duration = d.clock.Now() - start
	d.frame++
	r.Dropped = d.dropped
	return r, err
}

// ErrStopped is returned by Run when its context ends.
var ErrStopped = errors.New("frameclock: stopped")

// Run runs frames on schedule until ctx is done (returning ErrStopped wrapped with
// the context's cause) or step returns an error (returned as is). report, if not
// nil, receives every frame's Report.
func (d *Driver) Run(ctx context.Context, step func(frame uint64) error, report func(Report)) error {
	for {
		if ctx.Err() != nil {
			return errors.Join(ErrStopped, context.Cause(ctx))
		}
		due := d.Due(d.clock.Now())
		for i := 0; i < due; i++ {
			r, err := d.Step(step, due-i)
			if report != nil {
				report(r)
			}
			if err != nil {
				return err
			}
		}
		if due == 0 {
			d.wait(ctx)
		}
	}
}

// wait sleeps in short steps until SpinFor before the next deadline, then spins on
// the clock until the deadline (or until ctx is done).
func (d *Driver) wait(ctx context.Context) {
	next := d.deadline(d.frame)
	for ctx.Err() == nil {
		left := next - d.clock.Now()
		switch {
		case left <= 0:
			return
		case left > d.cfg.SpinFor:
			d.clock.Sleep(min(d.cfg.SleepStep, left-d.cfg.SpinFor))
		default:
			d.clock.Sleep(0) // a spin step: the real clock yields the processor
		}
	}
}
