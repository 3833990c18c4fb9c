package loadtest

import (
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Process figures for the load test, read from Linux's /proc (zero or empty
// elsewhere) and the Go runtime.

// peakRSS returns the process's resident set high-water mark (VmHWM), in bytes.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// resetPeakRSS resets VmHWM to the current RSS (Linux clear_refs 5), so that a
// run's peak does not include an earlier run's in the same process. It reports
// whether it could.
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// loadAverage returns the first three fields of /proc/loadavg ("" elsewhere):
// how busy the shared machine was.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// heapSampler tracks the peak of the Go heap (bytes in live and unswept
// objects, runtime/metrics) by sampling it.
type heapSampler struct {
	peak   atomic.Int64
	stopCh chan struct{}
	done   chan struct{}
}

const heapMetric = "/memory/classes/heap/objects:bytes"

func startHeapSampler(every time.Duration) *heapSampler {
	h := &heapSampler{stopCh: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(h.done)
		s := []metrics.Sample{{Name: heapMetric}}
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			metrics.Read(s)
			if s[0].Value.Kind() == metrics.KindUint64 {
				h.peak.Store(max(h.peak.Load(), int64(s[0].Value.Uint64())))
			}
			select {
			case <-h.stopCh:
				return
			case <-t.C:
			}
		}
	}()
	return h
}

// stop ends the sampling and returns the peak.
func (h *heapSampler) stop() int64 {
	close(h.stopCh)
	<-h.done
	return h.peak.Load()
}
