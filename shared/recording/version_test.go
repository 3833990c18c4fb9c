package recording_test

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"testing"

	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/recording"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
)

// TestReadVersion1: a recording the version 1 writer made (testdata/v1.rec: key
// frames every 3, a key frame by a region change, one violation) decodes to the
// states v1.txt lists, and written again (version 2) decodes to the same states.
func TestReadVersion1(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "v1.rec"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("testdata", "v1.txt"))
	if err != nil {
		t.Fatal(err)
	}
	v1, err := recording.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if v1.Version != 1 || len(v1.Violations) != 1 || len(v1.Header.Regions) != 3 {
		t.Fatalf("version %d, %d violations, %d regions; want 1, 1, 3", v1.Version, len(v1.Violations), len(v1.Header.Regions))
	}
	var list bytes.Buffer
	var buf bytes.Buffer
	wr, err := recording.NewWriter(&buf, v1.Header)
	if err != nil {
		t.Fatal(err)
	}
	var frames []*recording.Frame
	for i := range v1.Entries {
		f, err := v1.Frame(i)
		if err != nil {
			t.Fatalf("frame entry %d: %v", i, err)
		}
		for _, r := range f.Regions {
			fmt.Fprintf(&list, "frame %d region %d size %d hash %016x\n", f.Frame, r.Region, len(r.Snapshot), r.Hash)
		}
		if err := wr.WriteFrame(f); err != nil {
			t.Fatal(err)
		}
		frames = append(frames, f)
	}
	if list.String() != string(want) {
		t.Errorf("the version 1 file's states:\n%s\nwant (testdata/v1.txt):\n%s", list.String(), want)
	}
	if err := wr.Close(v1.Violations); err != nil {
		t.Fatal(err)
	}
	v2, err := recording.Decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if v2.Version != recording.Version || len(v2.Entries) != len(v1.Entries) {
		t.Fatalf("rewritten: version %d, %d entries; want %d, %d", v2.Version, len(v2.Entries), recording.Version, len(v1.Entries))
	}
	for i, e := range v2.Entries {
		if e.Key != v1.Entries[i].Key {
			t.Errorf("frame %d: key %v in version 2, %v in version 1", e.Frame, e.Key, v1.Entries[i].Key)
		}
		f, err := v2.Frame(i)
		if err != nil {
			t.Fatalf("rewritten frame entry %d: %v", i, err)
		}
		for j, r := range f.Regions {
			if !bytes.Equal(r.Snapshot, frames[i].Regions[j].Snapshot) {
				t.Errorf("frame %d region %d differs between the versions", f.Frame, r.Region)
			}
		}
	}
}

// TestWriteFrameAllocs: once the writer has seen a frame's regions, writing a
// frame reuses its buffers (the flate writer above all, whose state is 600 KB).
func TestWriteFrameAllocs(t *testing.T) {
	w, err := world.LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	var f recording.Frame
	var games []*sim.Game
	for _, r := range w.Regions {
		g, err := sim.New(w, &sim.Options{Region: r.ID, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		games = append(games, g)
		f.Regions = append(f.Regions, recording.RegionState{Region: r.ID})
	}
	step := func() {
		f.Frame++
		for i, g := range games {
			if err := g.Step(); err != nil {
				t.Fatal(err)
			}
			snap, err := g.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			f.Regions[i].Snapshot, f.Regions[i].Hash = snap, g.StateHash()
		}
	}
	var frames []recording.Frame
	for range 30 {
		step()
		f := f
		f.Regions = append([]recording.RegionState(nil), f.Regions...)
		frames = append(frames, f)
	}
	wr, err := recording.NewWriter(&discard{}, recording.Header{Kind: recording.Server, KeyEvery: 10})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 { // the buffers grow to the states' sizes
		if err := wr.WriteFrame(&frames[i]); err != nil {
			t.Fatal(err)
		}
	}
	i := 10
	allocs := testing.AllocsPerRun(19, func() {
		if err := wr.WriteFrame(&frames[i]); err != nil {
			t.Fatal(err)
		}
		i++
	})
	// The index grows by an entry a frame: an append now and then.
	if allocs > 1 {
		t.Errorf("%.1f allocations a frame, want at most 1", allocs)
	}
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }

// packV2 is a version 2 server recording packed by hand, so that it can break
// the shifts' rules the Writer keeps: frame 1 a key frame of state, frame 2 a
// delta frame of next with shifts. It returns the file and the offset of frame
// 2's first shift.
func packV2(t *testing.T, state, next []byte, shifts [][2]int64, key2 bool) ([]byte, int64) {
	t.Helper()
	var buf bytes.Buffer
	if _, err := recording.NewWriter(&buf, recording.Header{Kind: recording.Server, Regions: []recording.Region{{ID: 1}}}); err != nil {
		t.Fatal(err)
	}
	file := bytes.Clone(buf.Bytes())
	hash := func(b []byte) uint64 {
		h := fnv.New64a()
		h.Write(b)
		return h.Sum64()
	}
	deflate := func(b []byte) []byte {
		var out bytes.Buffer
		fw, _ := flate.NewWriter(&out, flate.BestSpeed)
		fw.Write(b)
		fw.Close()
		return out.Bytes()
	}
	// The shifts as the reader applies them, for a file that decodes when they keep the rules.
	x := bytes.Clone(next)
	for i := range x {
		off := int64(0)
		for _, s := range shifts {
			if int64(i) >= s[0] {
				off = s[1]
			}
		}
		if j := int64(i) + off; j >= 0 && j < int64(len(state)) {
			x[i] ^= state[j]
		}
	}
	var offsets []uint64
	var shiftAt int64
	for f, fr := range []struct {
		key    bool
		state  []byte
		shifts [][2]int64
		data   []byte
	}{{true, state, nil, deflate(state)}, {key2, next, shifts, deflate(x)}} {
		offsets = append(offsets, uint64(len(file)))
		p := archive.NewPacker(archive.Disk, archive.AllChannels)
		frame, key, one, region, h, size := uint64(f+1), fr.key, 1, int32(1), hash(fr.state), uint64(len(fr.state))
		p.TransferUint64(&frame)
		p.TransferBool(&key)
		p.TransferCount(&one)
		p.TransferInt32(&region)
		p.TransferUint64(&h)
		p.TransferUint64(&size)
		n := len(fr.shifts)
		p.TransferCount(&n)
		shiftAt = int64(len(file)) + int64(p.Offset())
		for _, s := range fr.shifts {
			at, off := uint64(s[0]), s[1]
			p.TransferUint64(&at)
			p.TransferInt64(&off)
		}
		blob := uint64(len(fr.data))
		p.TransferUint64(&blob)
		for i := range fr.data {
			p.TransferByte(&fr.data[i])
		}
		zero := 0
		p.TransferCount(&zero)
		file = append(file, p.Bytes()...)
	}
	ip := archive.NewPacker(archive.Disk, archive.AllChannels)
	two, zero := 2, 0
	ip.TransferCount(&two)
	for f, off := range offsets {
		frame, key := uint64(f+1), f == 0 || key2
		ip.TransferUint64(&frame)
		ip.TransferUint64(&off)
		ip.TransferBool(&key)
	}
	ip.TransferCount(&zero)
	idxAt := uint64(len(file))
	file = append(file, ip.Bytes()...)
	file = binary.LittleEndian.AppendUint64(file, idxAt)
	return append(file, "TWFRIDX\n"...), shiftAt
}

// TestShiftRules: a delta frame's shifts must lie inside the state, increase,
// and stay within MaxSnapshot; a key frame has none. A file breaking a rule is
// refused at the shift that breaks it.
func TestShiftRules(t *testing.T) {
	t.Parallel()
	state := []byte("a region's state, a little longer than a window")
	next := []byte("a region's new state, a little longer than a window")
	tests := []struct {
		name   string
		shifts [][2]int64
		key    bool
		bad    int   // the shift that breaks a rule, -1 for none
		want   error // wrapped
	}{
		{"good", [][2]int64{{11, -4}, {20, 0}}, false, -1, nil},
		{"at the state's end", [][2]int64{{int64(len(next)), 1}}, false, 0, recording.ErrCorrupt},
		{"not increasing", [][2]int64{{11, -4}, {11, 0}}, false, 1, recording.ErrCorrupt},
		{"decreasing", [][2]int64{{11, -4}, {5, 0}}, false, 1, recording.ErrCorrupt},
		{"too far", [][2]int64{{11, -recording.MaxSnapshot - 1}}, false, 0, recording.ErrCorrupt},
		{"in a key frame", [][2]int64{{11, -4}}, true, 0, recording.ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			file, shiftAt := packV2(t, state, next, tt.shifts, tt.key)
			rec, err := recording.Decode(file)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			f, err := rec.Frame(1)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("frame 2: %v", err)
				}
				if !bytes.Equal(f.Regions[0].Snapshot, next) {
					t.Fatalf("frame 2's state %q, want %q", f.Regions[0].Snapshot, next)
				}
				return
			}
			var re *recording.Error
			if !errors.Is(err, tt.want) || !errors.As(err, &re) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
			// Each shift before the bad one takes 2 bytes here (two one-byte varints).
			if want := shiftAt + 2*int64(tt.bad); re.Offset != want {
				t.Errorf("error at byte %d, want %d (shift %d): %v", re.Offset, want, tt.bad, err)
			}
		})
	}
}
