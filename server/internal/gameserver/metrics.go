package gameserver

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twinframe/twinframe/shared/sim/frameclock"
)

// metrics are the server's Prometheus metrics, written in the Prometheus text
// exposition format (version 0.0.4). They are implemented here rather than with
// prometheus/client_golang, whose dependencies go.sum does not list.
type metrics struct {
	frameDuration *histogram
	frameLateness *histogram
	framesDropped counter
	sessions      gauge
	bytesIn       counter
	bytesOut      counter
	messagesIn    counter
	messagesOut   counter

	mu          sync.Mutex
	disconnects map[string]uint64
}

func newMetrics() *metrics {
	buckets := []float64{.0005, .001, .002, .005, .01, .02, .035, .05, .1, .25}
	return &metrics{frameDuration: newHistogram(buckets), frameLateness: newHistogram(buckets),
		disconnects: map[string]uint64{}}
}

func (m *metrics) disconnect(reason string) {
	m.mu.Lock()
	m.disconnects[reason]++
	m.mu.Unlock()
}

// Disconnects returns how many connections ended for reason.
func (m *metrics) disconnectCount(reason string) uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.disconnects[reason]
}

func (m *metrics) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	m.write(w)
}

func (m *metrics) write(w io.Writer) {
	m.frameDuration.write(w, "twinframe_frame_duration_seconds", "Time one frame (inputs, step, replication) took.")
	m.frameLateness.write(w, "twinframe_frame_lateness_seconds", "How long after its deadline a frame started.")
	writeScalar(w, "twinframe_frames_dropped_total", "counter", "Frames of real time dropped instead of caught up.", m.framesDropped.get())
	writeScalar(w, "twinframe_sessions", "gauge", "Sessions in the game.", m.sessions.get())
	writeScalar(w, "twinframe_bytes_in_total", "counter", "Websocket payload bytes received.", m.bytesIn.get())
	writeScalar(w, "twinframe_bytes_out_total", "counter", "Websocket payload bytes queued for sending.", m.bytesOut.get())
	writeScalar(w, "twinframe_messages_in_total", "counter", "Protocol messages received.", m.messagesIn.get())
	writeScalar(w, "twinframe_messages_out_total", "counter", "Protocol messages queued for sending.", m.messagesOut.get())
	m.mu.Lock()
	reasons := make([]string, 0, len(m.disconnects))
	for r := range m.disconnects {
		reasons = append(reasons, r)
	}
	slices.Sort(reasons)
	fmt.Fprintf(w, "# HELP twinframe_disconnects_total Connections ended, by reason.\n# TYPE twinframe_disconnects_total counter\n")
	for _, r := range reasons {
		fmt.Fprintf(w, "twinframe_disconnects_total{reason=%q} %d\n", r, m.disconnects[r])
	}
	m.mu.Unlock()
}

func writeScalar(w io.Writer, name, typ, help string, v float64) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n%s %s\n", name, help, name, typ, name, formatFloat(v))
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// counter and gauge are float64s updated atomically.
type counter struct{ bits atomic.Uint64 }

func (c *counter) Add(v float64) {
	for {
		old := c.bits.Load()
		if c.bits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}
func (c *counter) Inc()         { c.Add(1) }
func (c *counter) get() float64 { return math.Float64frombits(c.bits.Load()) }

type gauge struct{ bits atomic.Uint64 }

func (g *gauge) Set(v float64) { g.bits.Store(math.Float64bits(v)) }
func (g *gauge) get() float64  { return math.Float64frombits(g.bits.Load()) }

// histogram is a cumulative-bucket histogram.
type histogram struct {
	mu     sync.Mutex
	upper  []float64
	counts []uint64 // per bucket, non-cumulative; last is +Inf
	sum    float64
	n      uint64
}

func newHistogram(upper []float64) *histogram {
	return &histogram{upper: upper, counts: make([]uint64, len(upper)+1)}
}

func (h *histogram) Observe(v float64) {
	i, _ := slices.BinarySearch(h.upper, v)
	h.mu.Lock()
	h.counts[i]++
	h.sum += v
	h.n++
	h.mu.Unlock()
}

func (h *histogram) write(w io.Writer, name, help string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name)
	var cum uint64
	for i, u := range h.upper {
		cum += h.counts[i]
		fmt.Fprintf(w, "%s_bucket{le=\"%s\"} %d\n", name, formatFloat(u), cum)
	}
	fmt.Fprintf(w, "%s_bucket{le=\"+Inf\"} %d\n%s_sum %s\n%s_count %d\n", name, h.n, name, formatFloat(h.sum), name, h.n)
}

// timingRing keeps the last frames' reports for the status page.
type timingRing struct {
	mu   sync.Mutex
	r    [200]frameclock.Report
	n    int
	last frameclock.Report
}

func (t *timingRing) add(r frameclock.Report) {
	t.mu.Lock()
	t.r[t.n%len(t.r)] = r
	t.n++
	t.last = r
	t.mu.Unlock()
}

// frameTimings summarizes the recent frames.
type frameTimings struct {
	Frames                    int
	LastFrame                 uint64
	DurP50, DurP99, DurMax    time.Duration
	LateP50, LateP99, LateMax time.Duration
	Dropped                   uint64
}

func (t *timingRing) summary() frameTimings {
	t.mu.Lock()
	n := min(t.n, len(t.r))
	d := make([]time.Duration, n)
	l := make([]time.Duration, n)
	for i := range n {
		d[i], l[i] = t.r[i].Duration, t.r[i].Lateness
	}
	out := frameTimings{Frames: t.n, LastFrame: t.last.Frame, Dropped: t.last.Dropped}
	t.mu.Unlock()
	if n == 0 {
		return out
	}
	slices.Sort(d)
	slices.Sort(l)
	q := func(s []time.Duration, p float64) time.Duration { return s[min(len(s)-1, int(p*float64(len(s))))] }
	out.DurP50, out.DurP99, out.DurMax = q(d, .5), q(d, .99), d[n-1]
	out.LateP50, out.LateP99, out.LateMax = q(l, .5), q(l, .99), l[n-1]
	return out
}
