//go:build !linux

package loadtest

import "time"

// runDelayReader reads nothing here: the lateness causes stay empty.
type runDelayReader struct{}

func (r *runDelayReader) open() bool          { return false }
func (r *runDelayReader) read() time.Duration { return -1 }
