package gameserver

import (
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"

	"github.com/twinframe/twinframe/server/internal/frameclock"
)

// metrics are the server's Prometheus metrics, in a registry of the server's own
// (not the global default), so that several servers in one process — tests, the
// headless run — do not collide. The Go runtime and process collectors come with it.
type metrics struct {
	registry      *prometheus.Registry
	handler       http.Handler
	frameDuration prometheus.Histogram
	frameLateness prometheus.Histogram
	framesDropped prometheus.Counter
	sessions      prometheus.Gauge
	bytesIn       prometheus.Counter
	bytesOut      prometheus.Counter
	messagesIn    prometheus.Counter
	messagesOut   prometheus.Counter
	disconnects   *prometheus.CounterVec
	xdumps        *prometheus.CounterVec
	inputsDropped *prometheus.CounterVec
	storeSaves    prometheus.Counter
	storeFailures prometheus.Counter
	// Regions (regions.go): each region's share of a frame, and travel.
	regionDuration *prometheus.HistogramVec
	regionLateness *prometheus.HistogramVec
	handoffs       *prometheus.CounterVec
	handoffSeconds prometheus.Histogram
	// Cluster (clusternet.go, regionsave.go).
	clusterHandoffSeconds prometheus.Histogram
	regionSaves           *prometheus.CounterVec
}

func newMetrics() *metrics {
	// Frame budget is 50 ms: fine buckets below it, coarse ones for overload.
	buckets := []float64{.0005, .001, .002, .005, .01, .02, .035, .05, .1, .25}
	r := prometheus.NewRegistry()
	f := func(c prometheus.Collector) { r.MustRegister(c) }
	m := &metrics{
		registry: r,
		frameDuration: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "twinframe_frame_duration_seconds",
			Help: "Time one frame (inputs, step, replication) took.", Buckets: buckets}),
		frameLateness: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "twinframe_frame_lateness_seconds",
			Help: "How long after its deadline a frame started.", Buckets: buckets}),
		framesDropped: prometheus.NewCounter(prometheus.CounterOpts{Name: "twinframe_frames_dropped_total",
			Help: "Frames of real time dropped instead of caught up."}),
		sessions: prometheus.NewGauge(prometheus.GaugeOpts{Name: "twinframe_sessions", Help: "Sessions in the game."}),
		bytesIn: prometheus.NewCounter(prometheus.CounterOpts{Name: "twinframe_bytes_in_total",
			Help: "Websocket payload bytes received."}),
		bytesOut: prometheus.NewCounter(prometheus.CounterOpts{Name: "twinframe_bytes_out_total",
			Help: "Websocket payload bytes queued for sending."}),
		messagesIn: prometheus.NewCounter(prometheus.CounterOpts{Name: "twinframe_messages_in_total",
			Help: "Protocol messages received."}),
		messagesOut: prometheus.NewCounter(prometheus.CounterOpts{Name: "twinframe_messages_out_total",
			Help: "Protocol messages queued for sending."}),
		disconnects: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "twinframe_disconnects_total",
			Help: "Connections ended, by reason."}, []string{"reason"}),
		xdumps: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "twinframe_xdump_requests_total",
			Help: "Xdump requests (websocket and HTTP), by result: ok, rate_limited, busy."}, []string{"result"}),
		inputsDropped: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "twinframe_inputs_dropped_total",
			Help: "Player inputs dropped, by reason (rate: over the per-frame cap)."}, []string{"reason"}),
		storeSaves: prometheus.NewCounter(prometheus.CounterOpts{Name: "twinframe_store_saves_total",
			Help: "Avatar saves committed to the store."}),
		storeFailures: prometheus.NewCounter(prometheus.CounterOpts{Name: "twinframe_store_save_failures_total",
			Help: "Save attempts (batches) that failed and will be retried."}),
		regionDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "twinframe_region_frame_duration_seconds",
			Help: "Time a region's step and replication took in a frame (regions step in parallel).", Buckets: buckets}, []string{"region"}),
		regionLateness: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "twinframe_region_frame_lateness_seconds",
			Help: "How far past the frame's budget a region's work ended (0: within it).", Buckets: buckets}, []string{"region"}),
		handoffs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "twinframe_region_handoffs_total",
			Help: "Avatars handed from one region's game to another's, by result (ok, refused)."}, []string{"result"}),
		handoffSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "twinframe_region_handoff_seconds",
			Help:    "Server time one handoff took (pack, unpack, view and save queued).",
			Buckets: []float64{.00001, .00002, .00005, .0001, .0002, .0005, .001, .002, .005}}),
		clusterHandoffSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "twinframe_cluster_handoff_seconds",
			Help:    "Time a handoff to another node took, from packing the avatar to the target's answer.",
			Buckets: []float64{.0005, .001, .002, .005, .01, .02, .05, .1, .2, .5, 1, 2}}),
		regionSaves: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "twinframe_region_saves_total",
			Help: "Region states saved to the store in a cluster, by result (ok, fenced, failed)."}, []string{"result"}),
	}
	for _, c := range []prometheus.Collector{m.frameDuration, m.frameLateness, m.framesDropped, m.sessions,
		m.bytesIn, m.bytesOut, m.messagesIn, m.messagesOut, m.disconnects, m.xdumps, m.inputsDropped, m.storeSaves, m.storeFailures,
		m.regionDuration, m.regionLateness, m.handoffs, m.handoffSeconds, m.clusterHandoffSeconds, m.regionSaves,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})} {
		f(c)
	}
	m.handler = promhttp.HandlerFor(r, promhttp.HandlerOpts{})
	return m
}

// registerStore adds the gauges that read the saver's state when scraped.
func (m *metrics) registerStore(v *saver) {
	m.registry.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "twinframe_store_degraded",
			Help: "1 while the last save attempt failed (saves are kept and retried), else 0."},
			func() float64 {
				if v.health().degraded != nil {
					return 1
				}
				return 0
			}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "twinframe_store_unsaved_avatars",
			Help: "Avatar saves queued or being written, not yet committed."},
			func() float64 { return float64(v.health().waiting) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "twinframe_store_oldest_unsaved_seconds",
			Help: "Age of the oldest avatar progress queued for saving and not yet committed (0: none)."},
			func() float64 { return v.health().oldest.Seconds() }),
	)
}

func (m *metrics) disconnect(reason string) { m.disconnects.WithLabelValues(reason).Inc() }

// disconnectCount returns how many connections ended for reason.
func (m *metrics) disconnectCount(reason string) uint64 {
	var out dto.Metric
	if err := m.disconnects.WithLabelValues(reason).Write(&out); err != nil {
		return 0
	}
	return uint64(out.GetCounter().GetValue())
}

func (m *metrics) ServeHTTP(w http.ResponseWriter, r *http.Request) { m.handler.ServeHTTP(w, r) }

// timingRing keeps the last frames' reports for the status page, with each
// region's share of them.
type timingRing struct {
	mu   sync.Mutex
	r    [200]frameclock.Report
	regs [200][]regionSample // beside r: one sample per region, in region order
	n    int
	last frameclock.Report
}

// regionSample is a region's share of one frame.
type regionSample struct {
	Duration, Lateness time.Duration
}

func (t *timingRing) add(r frameclock.Report, regs []regionSample) {
	t.mu.Lock()
	i := t.n % len(t.r)
	t.r[i] = r
	t.regs[i] = append(t.regs[i][:0], regs...)
	t.n++
	t.last = r
	t.mu.Unlock()
}

// regionSummary returns the median and 99th percentile of region k's durations
// over the frames in the ring.
func (t *timingRing) regionSummary(k int) (p50, p99 time.Duration) {
	t.mu.Lock()
	n := min(t.n, len(t.r))
	d := make([]time.Duration, 0, n)
	for i := range n {
		if k < len(t.regs[i]) {
			d = append(d, t.regs[i][k].Duration)
		}
	}
	t.mu.Unlock()
	if len(d) == 0 {
		return 0, 0
	}
	slices.Sort(d)
	return d[len(d)/2], d[min(len(d)-1, len(d)*99/100)]
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
