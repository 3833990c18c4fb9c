//go:build !linux

package cputime

import "time"

// Thread is not available on this platform: it reports false.
func Thread() (time.Duration, bool) { return 0, false }
