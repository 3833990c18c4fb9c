package recording_test

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/twinframe/twinframe/shared/recording"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
)

// TestMakeV1Golden writes testdata/v1.rec with the version 1 writer (run once,
// with TWINFRAME_MAKE_V1=1, before the writer moved to version 2), and
// testdata/v1-small.rec (smallRecording's server recording): v1.rec holds the default
// world's three regions stepped for 8 frames, key frames every 3, the last frame
// without one region (a key frame by the region change), one violation; v1.txt
// lists each frame's region states as the live games had them.
func TestMakeV1Golden(t *testing.T) {
	if os.Getenv("TWINFRAME_MAKE_V1") == "" {
		t.Skip("set TWINFRAME_MAKE_V1=1 to write testdata/v1.rec")
	}
	w, err := world.LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	h := recording.Header{Kind: recording.Server, Origin: "v1 golden", Seed: 7, KeyEvery: 3,
		Files: []recording.File{{Name: "note.config", Text: "# the default world's files are left out to keep the file small\n"}}}
	var games []*sim.Game
	for _, r := range w.Regions {
		h.Regions = append(h.Regions, recording.Region{ID: r.ID, Name: r.Name})
		g, err := sim.New(w, &sim.Options{Region: r.ID, Seed: sim.RegionSeed(7, r.ID)})
		if err != nil {
			t.Fatal(err)
		}
		games = append(games, g)
	}
	var buf, list bytes.Buffer
	wr, err := recording.NewWriter(&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	for f := 1; f <= 8; f++ {
		var fr recording.Frame
		for i, g := range games {
			if err := g.Step(); err != nil {
				t.Fatal(err)
			}
			if f == 8 && i == 1 {
				continue
			}
			snap, err := g.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			fr.Frame = g.Frame()
			fr.Regions = append(fr.Regions, recording.RegionState{Region: w.Regions[i].ID, Hash: g.StateHash(), Snapshot: snap})
			fmt.Fprintf(&list, "frame %d region %d size %d hash %016x\n", fr.Frame, w.Regions[i].ID, len(snap), g.StateHash())
		}
		if err := wr.WriteFrame(&fr); err != nil {
			t.Fatal(err)
		}
	}
	if err := wr.Close([]recording.Violation{{Frame: 5, Check: "invariants", Invariant: "interpenetration", What: "blocking entities 3 and 9 overlap by 0.2 m", Entities: []uint64{3, 9}}}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("testdata/v1.rec", buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("testdata/v1.txt", list.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// The fuzzer's seed of version 1: small enough to mutate quickly.
	if err := os.WriteFile("testdata/v1-small.rec", smallRecording(t, recording.Server), 0o644); err != nil {
		t.Fatal(err)
	}
}
