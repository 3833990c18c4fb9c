//go:build linux && (amd64 || arm64)

package gameserver

import (
	"syscall"
	"time"
	"unsafe"
)

// schedAttr is the kernel's struct sched_attr (version 1, 56 bytes).
type schedAttr struct {
	size                      uint32
	policy                    uint32
	flags                     uint64
	nice                      int32
	priority                  uint32
	runtime, deadline, period uint64 // runtime: the requested slice, ns (0: the default)
	utilMin, utilMax          uint32
}

// setThreadSlice asks for a slice of d for the calling thread
// (sched_setattr's sched_runtime for SCHED_OTHER, honoured from Linux 6.12),
// keeping its policy and nice value, and returns a function that restores the
// old slice. Older kernels and other policies are left alone: nothing to undo.
func setThreadSlice(d time.Duration) (restore func()) {
	var old schedAttr
	if sched(sysSchedGetattr, &old) != nil || old.policy != 0 { // 0: SCHED_OTHER
		return func() {}
	}
	attr := old
	attr.size, attr.flags, attr.runtime = uint32(unsafe.Sizeof(attr)), 0, uint64(d)
	if sched(sysSchedSetattr, &attr) != nil {
		return func() {}
	}
	return func() {
		old.size, old.flags = uint32(unsafe.Sizeof(old)), 0
		_ = sched(sysSchedSetattr, &old)
	}
}

// sched calls sched_getattr or sched_setattr on the calling thread (pid 0).
func sched(trap uintptr, a *schedAttr) error {
	var e syscall.Errno
	if trap == sysSchedGetattr {
		_, _, e = syscall.Syscall6(trap, 0, uintptr(unsafe.Pointer(a)), unsafe.Sizeof(*a), 0, 0, 0)
	} else {
		_, _, e = syscall.Syscall(trap, 0, uintptr(unsafe.Pointer(a)), 0)
	}
	if e != 0 {
		return e
	}
	return nil
}

// setTimerSlack sets the calling thread's timer slack (prctl PR_SET_TIMERSLACK)
// and returns a function that restores the old one.
func setTimerSlack(d time.Duration) (restore func()) {
	const prSetTimerslack, prGetTimerslack = 29, 30
	old, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prGetTimerslack, 0, 0)
	if e != 0 {
		return func() {}
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetTimerslack, uintptr(d), 0); e != 0 {
		return func() {}
	}
	return func() { _, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetTimerslack, old, 0) }
}
