// Package harness holds what the server's two test harnesses, the headless run
// (server/internal/headless) and the load test (server/internal/loadtest), share:
// the frame period they pace frames with, frame time percentiles
// and the JSON report files they write.
package harness

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/twinframe/twinframe/shared/sim"
)

// FramePeriod is the simulation's frame period (20 Hz).
const FramePeriod = sim.FrameMillis * time.Millisecond

// Durations are the percentiles of a set of durations, in milliseconds.
type Durations struct {
	P50Ms float64 `json:"p50Ms"`
	P90Ms float64 `json:"p90Ms"`
	P99Ms float64 `json:"p99Ms"`
	MaxMs float64 `json:"maxMs"`
}

// Percentiles returns the percentiles of d (zero when d is empty); d is not changed.
func Percentiles(d []time.Duration) Durations {
	if len(d) == 0 {
		return Durations{}
	}
	s := slices.Clone(d)
	slices.Sort(s)
	q := func(p float64) float64 { return float64(s[min(len(s)-1, int(p*float64(len(s))))]) / 1e6 }
	return Durations{q(.5), q(.9), q(.99), float64(s[len(s)-1]) / 1e6}
}

// WriteJSON writes v, indented, to the report file path (see WriteFile).
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return WriteFile(path, append(b, '\n'))
}

// WriteFile writes a report file, creating its folder: -report out/run.json should
// work in a fresh checkout.
func WriteFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
