//go:build !linux

package navi

import "time"

func threadCPU() (time.Duration, bool) { return 0, false }
