package gameserver

import (
	"syscall"
	"time"
	"unsafe"

	"github.com/twinframe/twinframe/shared/sim/frameclock"
)

// preciseClock adds a kernel sleep until an instant to the wall clock, and
// spins without yielding: the frame clock spins only for the last stretch
// (frameclock.Config.SpinFor) after a sleep that ended on time, and a yield
// there could hand the processor to a goroutine that runs past the deadline.
type preciseClock struct{ wallClock }

// Sleep sleeps d, or for a spin step (d ≤ 0) returns at once.
func (c preciseClock) Sleep(d time.Duration) {
	if d > 0 {
		c.wallClock.Sleep(d)
	}
}

func newWallClock(start time.Time) frameclock.Clock { return preciseClock{wallClock{start}} }

const (
	clockMonotonic = 1 // CLOCK_MONOTONIC
	timerAbstime   = 1 // TIMER_ABSTIME
)

// SleepUntil sleeps until t on the clock with clock_nanosleep(CLOCK_MONOTONIC,
// TIMER_ABSTIME): the thread is woken by the kernel's high-resolution timer.
// Go's monotonic clock is CLOCK_MONOTONIC, so the instant is t's distance from
// now added to the kernel's reading of now. The call is an ordinary blocking
// system call: the Go runtime gives the processor to other goroutines meanwhile.
func (c preciseClock) SleepUntil(t time.Duration) {
	var ts syscall.Timespec
	now := c.Now()
	if t <= now {
		return
	}
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockMonotonic, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		time.Sleep(t - now)
		return
	}
	at := syscall.NsecToTimespec(ts.Nano() + int64(t-now))
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_CLOCK_NANOSLEEP, clockMonotonic, timerAbstime, uintptr(unsafe.Pointer(&at)), 0, 0, 0)
		if e != syscall.EINTR {
			return
		}
	}
}
