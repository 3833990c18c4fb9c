package loadtest

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/twinframe/twinframe/server/internal/frameclock"
	"github.com/twinframe/twinframe/server/internal/gameserver"
	"github.com/twinframe/twinframe/server/internal/harness"
)

// holdsRule is what "holds 20 Hz" means in the reports and for -find-max.
const holdsRule = "p99 frame duration ≤ 50 ms, no dropped frame and every bot still connected over the measured time"

// loadReport is the load test's JSON report.
type loadReport struct {
	Holds     bool   `json:"holds20Hz"`
	HoldsRule string `json:"holdsRule"`
	// Failure says why the run stopped before its end (the figures are then
	// missing or partial).
	Failure   string `json:"failure,omitempty"`
	Bots      int    `json:"bots"`
	Connected int    `json:"connectedAtEnd"`
	Seed      uint64 `json:"seed"`
	// JoinSeconds is the time every bot took to get its avatar, before the
	// measured window.
	JoinSeconds float64 `json:"joinSeconds"`
	WallSeconds float64 `json:"wallSeconds"` // the measured window
	// Frames the server ran in the window; LostReports frame reports the
	// server's ring dropped before they were read (then the figures miss them).
	Frames        int               `json:"frames"`
	LostReports   int               `json:"lostReports"`
	FrameDuration harness.Durations `json:"frameDuration"` // inputs, step, replication (server frame loop)
	Lateness      harness.Durations `json:"frameStartLateness"`
	// FrameCPU is each frame's CPU time on the frame loop's thread (-frame-cpu).
	FrameCPU *harness.Durations `json:"frameCPU,omitempty"`
	// LateCauses says why frames started late (-frame-cpu, Linux).
	LateCauses    *lateCauses `json:"lateCauses,omitempty"`
	DroppedFrames uint64      `json:"droppedFrames"`
	MaxBacklog    int         `json:"maxBacklog"`
	CPU           struct {
		Seconds float64 `json:"seconds"` // the server process's user+system time over the window
		Cores   float64 `json:"cores"`   // seconds per second of wall time
	} `json:"cpu"`
	Memory struct { // the server process
		PeakRSSBytes  int64 `json:"peakRSSBytes"` // VmHWM of /proc/self/status at the end
		PeakRSSReset  bool  `json:"peakRSSReset"` // the high-water mark was reset at the window's start (else: since the process started)
		PeakHeapBytes int64 `json:"peakHeapBytes"`
	} `json:"memory"`
	Traffic struct {
		ToServerBytes   uint64 `json:"toServerBytes"` // websocket payload, all clients, over the window
		FromServerBytes uint64 `json:"fromServerBytes"`
		// per client per second of the window
		ToServerPerClient   float64 `json:"toServerBytesPerClientPerSecond"`
		FromServerPerClient float64 `json:"fromServerBytesPerClientPerSecond"`
	} `json:"traffic"`
	// Disconnects are the sessions the server ended, by its metrics' reason,
	// from the server's start (the join included) to the window's end.
	Disconnects map[string]uint64 `json:"disconnects"`
	// ClientsEnded are the bots whose connection ended, by the client's error.
	ClientsEnded map[string]int `json:"clientsEnded"`
	BotProcess   struct {
		Nice         int     `json:"nice"` // its niceness relative to the server's
		CPUSeconds   float64 `json:"cpuSeconds"`
		Cores        float64 `json:"cores"`
		PeakRSSBytes int64   `json:"peakRSSBytes"` // since it started
		StepErrs     int64   `json:"stepErrors"`
		LateTicks    int64   `json:"lateTicks"` // pacing ticks skipped: the bots could not keep 20 Hz
	} `json:"botProcess"`
	LoadAverage struct {
		Start string `json:"start"` // /proc/loadavg before the bots joined
		End   string `json:"end"`
	} `json:"loadAverage"`
	Overload *overloadReport `json:"overload,omitempty"`
	// Regions is the spread of the bots over the regions and each region's frame
	// times (-regions).
	Regions *regionsReport `json:"regions,omitempty"`
	// XDumpFlood is how many bots also flooded xdump requests (-xdump-flood), and
	// XDumps what the server made of them over the window.
	XDumpFlood int `json:"xdumpFlood,omitempty"`
	XDumps     *struct {
		OK      int64 `json:"ok"`
		Refused int64 `json:"refused"` // rate limited
	} `json:"xdumps,omitempty"`
}

func newLoadReport(cfg loadConfig) *loadReport {
	return &loadReport{HoldsRule: holdsRule, Bots: cfg.bots, Seed: cfg.seed, XDumpFlood: cfg.xdumpFlood,
		Disconnects: map[string]uint64{}, ClientsEnded: map[string]int{}}
}

// fill sets the window's figures.
func (r *loadReport) fill(w *window, reports []frameclock.Report, t gameserver.Traffic, bots0, bots1 botStatus) {
	r.WallSeconds = w.wall.Seconds()
	r.Frames, r.LostReports = len(reports), w.lost
	dur := make([]time.Duration, len(reports))
	late := make([]time.Duration, len(reports))
	for i, f := range reports {
		dur[i], late[i] = f.Duration, f.Lateness
		r.MaxBacklog = max(r.MaxBacklog, f.Backlog)
	}
	r.FrameDuration, r.Lateness = harness.Percentiles(dur), harness.Percentiles(late)
	// Dropped counts are cumulative: the window's are the last report's less
	// the last one's before the window.
	r.DroppedFrames = reports[len(reports)-1].Dropped - w.dropped
	r.CPU.Seconds = w.cpu.Seconds()
	if r.WallSeconds > 0 {
		r.CPU.Cores = r.CPU.Seconds / r.WallSeconds
	}
	r.Memory.PeakRSSBytes = peakRSS()
	r.Traffic.ToServerBytes = t.BytesIn - w.traffic.BytesIn
	r.Traffic.FromServerBytes = t.BytesOut - w.traffic.BytesOut
	if r.WallSeconds > 0 && r.Bots > 0 {
		per := float64(r.Bots) * r.WallSeconds
		r.Traffic.ToServerPerClient = float64(r.Traffic.ToServerBytes) / per
		r.Traffic.FromServerPerClient = float64(r.Traffic.FromServerBytes) / per
	}
	maps.Copy(r.Disconnects, t.Disconnects)
	r.Connected, r.ClientsEnded = bots1.Connected, bots1.Ended
	b := &r.BotProcess
	b.CPUSeconds = time.Duration(bots1.CPUNanos - bots0.CPUNanos).Seconds()
	if r.WallSeconds > 0 {
		b.Cores = b.CPUSeconds / r.WallSeconds
	}
	b.PeakRSSBytes, b.StepErrs, b.LateTicks = bots1.PeakRSSBytes, bots1.StepErrs-bots0.StepErrs, bots1.LateTicks-bots0.LateTicks
	if r.XDumpFlood > 0 {
		r.XDumps = &struct {
			OK      int64 `json:"ok"`
			Refused int64 `json:"refused"`
		}{bots1.XDumpsOK - bots0.XDumpsOK, bots1.XDumpsRefuse - bots0.XDumpsRefuse}
	}
}

// judge decides whether the run held 20 Hz (holdsRule).
func (r *loadReport) judge() {
	r.Holds = r.Frames > 0 && r.LostReports == 0 && r.FrameDuration.P99Ms <= float64(harness.FramePeriod)/1e6 &&
		r.DroppedFrames == 0 && r.Connected == r.Bots
}

func (r *loadReport) summary(w io.Writer) {
	if r.WallSeconds == 0 {
		fmt.Fprintf(w, "loadtest: %d bots: failed after %.1f s of joining: %s\n", r.Bots, r.JoinSeconds, r.Failure)
		return
	}
	fmt.Fprintf(w, "loadtest: %d bots for %.1f s (joined in %.1f s); load average at start %s\n",
		r.Bots, r.WallSeconds, r.JoinSeconds, r.LoadAverage.Start)
	fmt.Fprintf(w, "loadtest: %d frames: duration p50 %.2f ms p99 %.2f ms max %.2f ms; start lateness p50 %.3f ms p99 %.3f ms; %d dropped, max backlog %d\n",
		r.Frames, r.FrameDuration.P50Ms, r.FrameDuration.P99Ms, r.FrameDuration.MaxMs,
		r.Lateness.P50Ms, r.Lateness.P99Ms, r.DroppedFrames, r.MaxBacklog)
	if c := r.FrameCPU; c != nil {
		fmt.Fprintf(w, "loadtest: frame CPU time on the loop's thread: p50 %.2f ms p99 %.2f ms max %.2f ms\n", c.P50Ms, c.P99Ms, c.MaxMs)
	}
	if lc := r.LateCauses; lc != nil && lc.Late > 0 {
		lc.summary(w)
	}
	fmt.Fprintf(w, "loadtest: server CPU %.2f s (%.2f cores); peak RSS %.1f MiB, peak Go heap %.1f MiB; bot process (nice %d) CPU %.2f s (%.2f cores), peak RSS %.1f MiB\n",
		r.CPU.Seconds, r.CPU.Cores, float64(r.Memory.PeakRSSBytes)/(1<<20), float64(r.Memory.PeakHeapBytes)/(1<<20),
		r.BotProcess.Nice, r.BotProcess.CPUSeconds, r.BotProcess.Cores, float64(r.BotProcess.PeakRSSBytes)/(1<<20))
	fmt.Fprintf(w, "loadtest: per client per second: %.0f B to the server, %.0f B from it; %d of %d bots connected; disconnects: %s\n",
		r.Traffic.ToServerPerClient, r.Traffic.FromServerPerClient, r.Connected, r.Bots, countsText(r.Disconnects))
	if len(r.ClientsEnded) > 0 {
		fmt.Fprintf(w, "loadtest: clients ended: %s\n", countsText(r.ClientsEnded))
	}
	if b := r.BotProcess; b.LateTicks > 0 || b.StepErrs > 0 || r.LostReports > 0 {
		fmt.Fprintf(w, "loadtest: %d bot ticks skipped, %d bot step errors, %d frame reports lost\n", b.LateTicks, b.StepErrs, r.LostReports)
	}
	if d := r.XDumps; d != nil {
		fmt.Fprintf(w, "loadtest: xdump flood by %d bots: %d dumps answered, %d refused (rate limited) over the window\n", r.XDumpFlood, d.OK, d.Refused)
	}
	if g := r.Regions; g != nil {
		g.summary(w)
	}
	if o := r.Overload; o != nil {
		o.summary(w)
	}
	verdict := "yes"
	if !r.Holds {
		verdict = "NO"
	}
	fmt.Fprintf(w, "loadtest: holds 20 Hz: %s (%s)\n", verdict, holdsRule)
}

func countsText[V uint64 | int](m map[string]V) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
