package recording_test

import (
	"testing"

	"github.com/twinframe/twinframe/shared/recording"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
)

// countingWriter counts the bytes written to it.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(b []byte) (int, error) { c.n += int64(len(b)); return len(b), nil }

// BenchmarkWriteFrame is the per-frame cost of a server recording: one frame of the
// default world's three regions (states of a run stepped ahead, key frames every
// DefaultKeyEvery), written to a writer that only counts.
func BenchmarkWriteFrame(b *testing.B) {
	w, err := world.LoadDefault()
	if err != nil {
		b.Fatal(err)
	}
	const stepped = 200
	frames := make([]recording.Frame, stepped)
	var regions []recording.Region
	for _, r := range w.Regions {
		regions = append(regions, recording.Region{ID: r.ID, Name: r.Name})
		g, err := sim.New(w, &sim.Options{Region: r.ID, Seed: sim.RegionSeed(7, r.ID)})
		if err != nil {
			b.Fatal(err)
		}
		for f := range frames {
			if err := g.Step(); err != nil {
				b.Fatal(err)
			}
			snap, err := g.Snapshot()
			if err != nil {
				b.Fatal(err)
			}
			frames[f].Regions = append(frames[f].Regions, recording.RegionState{Region: r.ID, Hash: g.StateHash(), Snapshot: snap})
		}
	}
	var out countingWriter
	wr, err := recording.NewWriter(&out, recording.Header{Kind: recording.Server, Regions: regions})
	if err != nil {
		b.Fatal(err)
	}
	start := out.n
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		f := &frames[n%stepped]
		f.Frame = uint64(n + 1)
		if err := wr.WriteFrame(f); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(out.n-start)/float64(n), "B/frame-written")
	if err := wr.Close(nil); err != nil {
		b.Fatal(err)
	}
}
