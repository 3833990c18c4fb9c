//go:build !linux || !(amd64 || arm64)

package gameserver

import "time"

// setThreadSlice: only Linux has per-thread slices (loopthread_linux.go).
func setThreadSlice(time.Duration) (restore func()) { return func() {} }

func setTimerSlack(time.Duration) (restore func()) { return func() {} }
