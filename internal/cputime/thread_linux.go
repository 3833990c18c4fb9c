package cputime

import (
	"syscall"
	"time"
	"unsafe"
)

// Thread returns the CPU time of the calling OS thread (CLOCK_THREAD_CPUTIME_ID)
// and whether it could be read. Differences mean something only while the
// goroutine is locked to its thread (runtime.LockOSThread).
func Thread() (time.Duration, bool) {
	const clockThreadCPUTime = 3
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
