package scene

import (
	"strings"
	"testing"

	"github.com/twinframe/twinframe/shared/replica"
)

// TestGraphDriftCountsSamples: the drift graph and the log take each compared sample
// once, also when two samples share a frame (a rewind compares a frame again) and
// when a new connection's replica counts from zero; one log line per correction, so
// the log agrees with Status.Corrections.
func TestGraphDriftCountsSamples(t *testing.T) {
	t.Parallel()
	g := netGraphs{drift: newSeries("drift", "m", graphFrames)}
	var log eventLog
	corrections := func() int {
		c := 0
		for _, e := range log.entries {
			if strings.HasPrefix(e.Text, "correction ") {
				c++
			}
		}
		return c
	}
	steps := []struct {
		name     string
		log      []replica.DriftSample // the replica's whole rolling log at this poll
		compared int
		graphed  int // series length after the poll
		logged   int // correction lines after the poll
	}{
		{"first samples", []replica.DriftSample{{Frame: 10}, {Frame: 11, Corrected: true}}, 2, 2, 1},
		{"nothing new", []replica.DriftSample{{Frame: 10}, {Frame: 11, Corrected: true}}, 2, 2, 1},
		{"same frame again", []replica.DriftSample{{Frame: 10}, {Frame: 11, Corrected: true}, {Frame: 11, Corrected: true}}, 3, 3, 2},
		{"new connection", []replica.DriftSample{{Frame: 400, Corrected: true}}, 1, 4, 3},
		{"more than the ring holds", []replica.DriftSample{{Frame: 401}, {Frame: 402, Corrected: true}}, 9, 6, 4},
	}
	for _, s := range steps {
		g.drifts = s.log
		g.graphDrift(s.compared, &log)
		if got := g.drift.Len(); got != s.graphed {
			t.Errorf("%s: %d samples graphed, want %d", s.name, got, s.graphed)
		}
		if got := corrections(); got != s.logged {
			t.Errorf("%s: %d correction lines, want %d", s.name, got, s.logged)
		}
	}
}
