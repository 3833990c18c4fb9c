//go:build unix

package main

import (
	"syscall"
	"time"
)

// cpuTime returns the process's CPU time (user and system): on a loaded machine
// it says more about the run's cost than the wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
