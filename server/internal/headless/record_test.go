package headless

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"github.com/twinframe/twinframe/server/internal/gameserver"
	"github.com/twinframe/twinframe/shared/recording"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
)

// TestHeadlessRecord: -record writes every frame the server stepped with every
// region's state (restorable, and at the hash the server computed), and the
// violations of a failing run with the entities they name.
func TestHeadlessRecord(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		ok   bool
	}{
		{"passing", nil, true},
		// A remove radius of 5 m for the AOI check: the server keeps what is
		// within 50 m, so the check must fail, on entities the bots hold.
		{"failing", []string{"-check-aoi-remove", "5"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "out", "run.rec")
			args := append([]string{"-frames", strconv.Itoa(testFrames / 2), "-bots", "2", "-seed", "3", "-travel", "0", "-record", path}, tt.args...)
			code, _, rep := runHeadlessArgs(t, args...)
			if (code == 0) != tt.ok {
				t.Fatalf("exit %d, want ok %v", code, tt.ok)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			rec, err := recording.Decode(data)
			if err != nil {
				t.Fatal(err)
			}
			h := rec.Header
			if h.Kind != recording.Server || h.Seed != 3 || len(h.Regions) != 3 || len(h.Files) == 0 || h.Origin == "" {
				t.Errorf("header: kind %v seed %d, %d regions, %d files, origin %q", h.Kind, h.Seed, len(h.Regions), len(h.Files), h.Origin)
			}
			// Every frame from the server's first to the run's last, once.
			if n := len(rec.Entries); n == 0 || rec.Entries[0].Frame != 1 || rec.Entries[n-1].Frame < rep.LastFrame {
				t.Fatalf("%d frames recorded, want 1..%d", n, rep.LastFrame)
			}
			for i, e := range rec.Entries {
				if e.Frame != uint64(i+1) {
					t.Fatalf("entry %d is frame %d", i, e.Frame)
				}
			}
			w, err := h.World()
			if err != nil {
				t.Fatal(err)
			}
			last, err := rec.Frame(rec.Find(rep.LastFrame))
			if err != nil {
				t.Fatal(err)
			}
			for _, rs := range last.Regions {
				g, err := sim.Restore(w, rs.Snapshot, &sim.Options{Region: rs.Region, Seed: sim.RegionSeed(3, rs.Region)})
				if err != nil {
					t.Fatalf("region %d at frame %d: %v", rs.Region, last.Frame, err)
				}
				if g.StateHash() != rs.Hash || g.Frame() != last.Frame {
					t.Errorf("region %d: restored frame %d hash %x, recorded frame %d hash %x", rs.Region, g.Frame(), g.StateHash(), last.Frame, rs.Hash)
				}
			}
			if tt.ok {
				if len(rec.Violations) != 0 {
					t.Errorf("a passing run recorded violations: %+v", rec.Violations[:1])
				}
				return
			}
			if len(rec.Violations) != min(rep.Violations, maxRecordedViolations) {
				t.Errorf("%d violations recorded, the report counts %d", len(rec.Violations), rep.Violations)
			}
			first, ok := rec.FirstViolation()
			want := rep.Listed[0]
			if !ok || first.Frame != want.Frame || first.Check != "aoi" {
				t.Fatalf("first recorded violation %+v, the report's %+v", first, want)
			}
			// The entity held too far, then the avatar of the bot that held it.
			if len(first.Entities) != 2 || first.Entities[0] != want.Entity || !slices.Contains(rec.Violations[0].Entities, want.Entity) {
				t.Errorf("violation entities %v, want [%d, the bot's avatar]", first.Entities, want.Entity)
			}
		})
	}
}

func TestViolationEntities(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v     headlessViolation
		extra []uint64
		want  []uint64
	}{
		{headlessViolation{Check: "invariants", What: "sim: invariant: frame 3: blocking entities 12 and 40 overlap by 0.2 m", Entity: 0}, nil, []uint64{12, 40}},
		{headlessViolation{Check: "invariants", What: "entity 9 outside walkable space", Entity: 9}, nil, []uint64{9}},
		{headlessViolation{Check: "aoi", Entity: 44}, []uint64{7}, []uint64{44, 7}},
		{headlessViolation{Check: "aoi", Entity: 7}, []uint64{7, 0}, []uint64{7}},
		{headlessViolation{Check: "not-run"}, nil, nil},
	}
	for _, tt := range tests {
		if got := violationEntities(tt.v, tt.extra); !slices.Equal(got, tt.want) {
			t.Errorf("violationEntities(%+v, %v) = %v, want %v", tt.v, tt.extra, got, tt.want)
		}
	}
}

// TestRecorderFrames: the recorder stores each region's state as sim.Game's
// Snapshot and StateHash have it, serializing it once into a packer it reuses,
// so that a recorded frame allocates next to nothing.
func TestRecorderFrames(t *testing.T) {
	w, err := world.LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "run.rec")
	r, err := newFrameRecorder(path, "test", 5, w)
	if err != nil {
		t.Fatal(err)
	}
	var games []*sim.Game
	for _, reg := range w.Regions {
		g, err := sim.New(w, &sim.Options{Region: reg.ID, Seed: sim.RegionSeed(5, reg.ID)})
		if err != nil {
			t.Fatal(err)
		}
		games = append(games, g)
	}
	step := func() gameserver.FrameView {
		for _, g := range games {
			if err := g.Step(); err != nil {
				t.Fatal(err)
			}
		}
		return gameserver.FrameView{Frame: games[0].Frame(), Games: games}
	}
	for range 3 {
		r.onFrame(step())
		if r.err != nil {
			t.Fatal(r.err)
		}
		for i, g := range games {
			want, err := g.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			got := r.frame.Regions[i]
			if !bytes.Equal(got.Snapshot, want) || got.Hash != g.StateHash() {
				t.Fatalf("frame %d region %d: %d bytes hash %x, the game's Snapshot %d bytes StateHash %x",
					g.Frame(), got.Region, len(got.Snapshot), got.Hash, len(want), g.StateHash())
			}
		}
	}
	// The games step between the frames measured: only the recorder's
	// allocations count.
	const frames = 30
	var mallocs uint64
	var ms runtime.MemStats
	for range frames {
		v := step()
		runtime.ReadMemStats(&ms)
		before := ms.Mallocs
		r.onFrame(v)
		runtime.ReadMemStats(&ms)
		mallocs += ms.Mallocs - before
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	// The index grows by an entry a frame: an append now and then.
	if per := float64(mallocs) / frames; per > 2 {
		t.Errorf("%.1f allocations a recorded frame, want at most 2", per)
	}
	if err := r.close(games[0].Frame(), ""); err != nil {
		t.Fatal(err)
	}
}
