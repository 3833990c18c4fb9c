package loadtest

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// runDelayReader reads one thread's run delay: the time it spent runnable but
// waiting for a core (the second field of /proc/<pid>/task/<tid>/schedstat).
type runDelayReader struct {
	f     *os.File
	tried bool
	buf   [128]byte
}

// open binds the reader to the calling thread the first time (the caller must
// be locked to its thread) and reports whether it can read.
func (r *runDelayReader) open() bool {
	if !r.tried {
		r.tried = true
		// thread-self resolves at open time: the file stays this thread's.
		r.f, _ = os.Open("/proc/thread-self/schedstat")
	}
	return r.f != nil
}

// read returns the run delay so far, or -1.
func (r *runDelayReader) read() time.Duration {
	n, err := r.f.ReadAt(r.buf[:], 0)
	if n == 0 && err != nil {
		return -1
	}
	f := bytes.Fields(r.buf[:n])
	if len(f) < 2 {
		return -1
	}
	v, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil {
		return -1
	}
	return time.Duration(v)
}
