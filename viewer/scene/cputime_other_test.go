//go:build !linux

package scene

import "time"

func threadCPU() (time.Duration, bool) { return 0, false }
