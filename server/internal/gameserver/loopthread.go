package gameserver

import (
	"runtime"
	"time"
)

// loopSlice is the CPU slice the frame loop's thread asks the kernel for.
//
// Why: on Linux's EEVDF scheduler (6.6 and later) a thread that wakes up waits
// for the running thread to use its slice (a few milliseconds) unless its own
// requested slice is shorter (6.12 and later): the load test measured the
// loop's thread waiting 2–3 ms for a core after its timer woke it at a frame's
// deadline. A short slice does not raise the thread's share of the CPU (its
// weight, the nice value, is unchanged); it gets the same share in shorter
// pieces, sooner. No privilege is needed.
const loopSlice = 200 * time.Microsecond

// loopTimerSlack is how late the kernel may fire the loop thread's timers to
// group wake-ups (Linux's default slack is 50 µs): a frame's deadline is not
// worth saving the kernel a wake-up.
const loopTimerSlack = time.Microsecond

// lockLoopThread runs on the frame loop's goroutine before the first frame: it
// locks it to its OS thread (so that what is set on the thread stays the
// loop's) and asks the kernel for a short slice and timer slack for that thread. The returned
// function undoes both.
func lockLoopThread() (unlock func()) {
	runtime.LockOSThread()
	restoreSlice := setThreadSlice(loopSlice)
	restoreSlack := setTimerSlack(loopTimerSlack)
	return func() {
		restoreSlack()
		restoreSlice()
		runtime.UnlockOSThread()
	}
}
