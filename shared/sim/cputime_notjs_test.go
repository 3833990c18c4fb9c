//go:build !js

package sim

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used (user + system), which, unlike wall
// time, a loaded shared machine does not inflate much.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
