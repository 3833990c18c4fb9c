package recording_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/recording"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
)

// liveRun steps one game per region of the default world for frames frames and
// records every frame; it returns the file and each frame's live state hashes.
func liveRun(t testing.TB, frames int, keyEvery uint32) ([]byte, *world.World, [][]uint64) {
	t.Helper()
	w, err := world.LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	h, err := recording.HeaderFor(recording.Server, "test", world.DefaultFiles(), w)
	if err != nil {
		t.Fatal(err)
	}
	h.Seed, h.KeyEvery = 7, keyEvery
	var games []*sim.Game
	for _, r := range w.Regions {
		g, err := sim.New(w, &sim.Options{Region: r.ID, Seed: sim.RegionSeed(7, r.ID)})
		if err != nil {
			t.Fatal(err)
		}
		games = append(games, g)
	}
	var buf bytes.Buffer
	wr, err := recording.NewWriter(&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	var live [][]uint64
	for f := 0; f < frames; f++ {
		fr := recording.Frame{}
		var hashes []uint64
		for i, g := range games {
			if err := g.Step(); err != nil {
				t.Fatal(err)
			}
			snap, err := g.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			fr.Frame = g.Frame()
			fr.Regions = append(fr.Regions, recording.RegionState{Region: w.Regions[i].ID, Hash: g.StateHash(), Snapshot: snap})
			hashes = append(hashes, g.StateHash())
		}
		live = append(live, hashes)
		if err := wr.WriteFrame(&fr); err != nil {
			t.Fatal(err)
		}
	}
	if err := wr.Close([]recording.Violation{{Frame: 30, Check: "invariants", Invariant: "interpenetration", What: "test", Entities: []uint64{3, 9}},
		{Frame: 12, Check: "aoi", Entities: []uint64{5}}}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), w, live
}

// TestSeekDeterminism: the game restored from a seeked frame has the state hash the
// live game had at that frame, from every position relative to the key frames.
func TestSeekDeterminism(t *testing.T) {
	t.Parallel()
	const frames = 45
	data, w, live := liveRun(t, frames, 10)
	rec, err := recording.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Entries) != frames {
		t.Fatalf("%d entries, want %d", len(rec.Entries), frames)
	}
	t.Logf("%d frames of %d regions: %d bytes", frames, len(w.Regions), len(data))
	for _, i := range []int{0, 1, 9, 10, 11, 19, 20, 33, frames - 1} {
		f, err := rec.Frame(i)
		if err != nil {
			t.Fatalf("frame entry %d: %v", i, err)
		}
		if f.Frame != uint64(i+1) {
			t.Errorf("entry %d is frame %d, want %d", i, f.Frame, i+1)
		}
		for ri, rs := range f.Regions {
			g, err := sim.Restore(w, rs.Snapshot, &sim.Options{Region: rs.Region, Seed: sim.RegionSeed(7, rs.Region)})
			if err != nil {
				t.Fatalf("frame %d region %d: %v", f.Frame, rs.Region, err)
			}
			if got, want := g.StateHash(), live[i][ri]; got != want {
				t.Errorf("frame %d region %d: seeked state hash %x, live %x", f.Frame, rs.Region, got, want)
			}
		}
	}
	if v, ok := rec.FirstViolation(); !ok || v.Frame != 12 || v.Check != "aoi" {
		t.Errorf("first violation %+v, %v; want frame 12's aoi", v, ok)
	}
	if got := rec.Find(33); rec.Entries[got].Frame != 33 {
		t.Errorf("Find(33) = entry of frame %d", rec.Entries[got].Frame)
	}
	if _, err := rec.Header.World(); err != nil {
		t.Errorf("the header's world: %v", err)
	}
}

// TestDeltaFrames: frames between key frames cost less than key frames (the
// dictionary is used), and a recording of only key frames decodes the same states.
func TestDeltaFrames(t *testing.T) {
	t.Parallel()
	delta, _, _ := liveRun(t, 40, 40)
	keys, _, _ := liveRun(t, 40, 1)
	if len(delta)*2 > len(keys) {
		t.Errorf("40 frames with one key frame: %d bytes; all key frames: %d bytes (want less than half)", len(delta), len(keys))
	}
	a, _ := recording.Decode(delta)
	b, _ := recording.Decode(keys)
	fa, err := a.Frame(39)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := b.Frame(39)
	if err != nil {
		t.Fatal(err)
	}
	for i := range fa.Regions {
		if !bytes.Equal(fa.Regions[i].Snapshot, fb.Regions[i].Snapshot) {
			t.Errorf("region %d differs between the delta and key-frame recordings", fa.Regions[i].Region)
		}
	}
}

func TestClientRoundTrip(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	wr, err := recording.NewWriter(&buf, recording.Header{Kind: recording.Client, Origin: "viewer"})
	if err != nil {
		t.Fatal(err)
	}
	frames := []recording.Frame{
		{Frame: 0, Messages: []recording.Message{{ID: 3, Payload: []byte{1, 2, 3}}}},
		{Frame: 5, Messages: []recording.Message{{ID: 4, Payload: []byte{}}, {ID: 9, Payload: bytes.Repeat([]byte{7}, 1000)}}},
		{Frame: 6},
	}
	for i := range frames {
		if err := wr.WriteFrame(&frames[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := wr.WriteFrame(&recording.Frame{Frame: 4}); err == nil {
		t.Error("a frame before the last was written")
	}
	if err := wr.Close(nil); err != nil {
		t.Fatal(err)
	}
	rec, err := recording.Decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range frames {
		got, err := rec.Frame(i)
		if err != nil {
			t.Fatal(err)
		}
		if got.Frame != want.Frame || len(got.Messages) != len(want.Messages) {
			t.Fatalf("frame %d: %+v, want %+v", i, got, want)
		}
		for j := range want.Messages {
			if got.Messages[j].ID != want.Messages[j].ID || !bytes.Equal(got.Messages[j].Payload, want.Messages[j].Payload) {
				t.Errorf("frame %d message %d: %+v, want %+v", i, j, got.Messages[j], want.Messages[j])
			}
		}
	}
}

// TestDecodeErrors: damaged files are refused with the byte offset of the damage.
func TestDecodeErrors(t *testing.T) {
	t.Parallel()
	good, _, _ := liveRun(t, 12, 5)
	rec, err := recording.Decode(good)
	if err != nil {
		t.Fatal(err)
	}
	frame3 := rec.Entries[3].Offset
	idx := int64(len(good)) - 16 // the trailer; the index ends here
	flip := func(at int64) []byte {
		b := bytes.Clone(good)
		b[at] ^= 0x40
		return b
	}
	tests := []struct {
		name    string
		data    []byte
		entry   int   // -1: Decode fails; else Frame(entry) fails
		want    error // wrapped
		atLeast int64 // the error's offset is in [atLeast, atMost]
		atMost  int64
	}{
		{"empty", nil, -1, recording.ErrBadMagic, 0, 0},
		{"not a recording", []byte("hello, world, this is text"), -1, recording.ErrBadMagic, 0, 0},
		{"cut short", good[:len(good)-100], -1, recording.ErrCorrupt, 0, int64(len(good))},
		{"header flipped", flip(20), -1, archive.ErrChecksum, 8, rec.Entries[0].Offset},
		{"frame flipped", flip(frame3 + 10), 3, archive.ErrChecksum, frame3, rec.Entries[4].Offset},
		{"frame flipped, seen from a later frame", flip(frame3 + 10), 4, archive.ErrChecksum, frame3, rec.Entries[4].Offset},
		{"trailer points nowhere", func() []byte { b := bytes.Clone(good); b[idx] ^= 0x01; return b }(), -1, recording.ErrCorrupt, 0, int64(len(good))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := recording.Decode(tt.data)
			if tt.entry >= 0 {
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				_, err = r.Frame(tt.entry)
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
			var re *recording.Error
			if !errors.As(err, &re) {
				t.Fatalf("error %T is not a *recording.Error", err)
			}
			if re.Offset < tt.atLeast || re.Offset > tt.atMost {
				t.Errorf("error at byte %d, want %d..%d: %v", re.Offset, tt.atLeast, tt.atMost, err)
			}
		})
	}
}

// smallRecording is a seed for the fuzzer: small enough for it to mutate quickly
// (a default-world header alone is 100 KB), with key and delta frames (a shift in
// one), messages and violations.
func smallRecording(t testing.TB, kind recording.Kind) []byte {
	t.Helper()
	var buf bytes.Buffer
	wr, err := recording.NewWriter(&buf, recording.Header{Kind: kind, Origin: "fuzz", KeyEvery: 2,
		Files: []recording.File{{Name: "a.config", Text: "config x\n"}}, Regions: []recording.Region{{ID: 1, Name: "r"}}})
	if err != nil {
		t.Fatal(err)
	}
	for f := uint64(1); f <= 3; f++ {
		fr := recording.Frame{Frame: f}
		if kind == recording.Server {
			// Frame 2 (a delta frame) inserts a byte: its state has a shift.
			state := slices.Concat([]byte("0123456789abcdef"), bytes.Repeat([]byte{byte(f)}, int(f)), []byte("ghijklmnopqrstuvwxyzABCD"))
			h := fnv.New64a()
			h.Write(state)
			fr.Regions = []recording.RegionState{{Region: 1, Hash: h.Sum64(), Snapshot: state}}
		} else {
			fr.Messages = []recording.Message{{ID: uint32(f), Payload: []byte{byte(f)}}}
		}
		if err := wr.WriteFrame(&fr); err != nil {
			t.Fatal(err)
		}
	}
	if err := wr.Close([]recording.Violation{{Frame: 2, Check: "aoi", What: "w", Entities: []uint64{4, 5}}}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func FuzzDecode(f *testing.F) {
	for _, k := range []recording.Kind{recording.Server, recording.Client} {
		good := smallRecording(f, k)
		f.Add(good)
		f.Add(good[:len(good)/2])
	}
	v1, err := os.ReadFile(filepath.Join("testdata", "v1-small.rec")) // smallRecording's server recording, version 1
	if err != nil {
		f.Fatal(err)
	}
	f.Add(v1)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := recording.Decode(data)
		if err != nil {
			var re *recording.Error
			if !errors.As(err, &re) {
				t.Fatalf("error %T without a position: %v", err, err)
			}
			return
		}
		for i := range r.Entries {
			if _, err := r.Frame(i); err != nil {
				var re *recording.Error
				if !errors.As(err, &re) {
					t.Fatalf("frame entry %d: error %T without a position: %v", i, err, err)
				}
			}
		}
	})
}

// TestHashMismatch: a region state that does not match the hash the server
// computed is refused, naming the frame.
func TestHashMismatch(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	wr, err := recording.NewWriter(&buf, recording.Header{Kind: recording.Server, Regions: []recording.Region{{ID: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	state := []byte("a region's state")
	h := fnv.New64a()
	h.Write(state)
	for f, hash := range []uint64{h.Sum64(), h.Sum64() + 1} {
		if err := wr.WriteFrame(&recording.Frame{Frame: uint64(f + 1), Regions: []recording.RegionState{{Region: 1, Hash: hash, Snapshot: state}}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := wr.Close(nil); err != nil {
		t.Fatal(err)
	}
	rec, err := recording.Decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rec.Frame(0); err != nil {
		t.Fatalf("frame 1: %v", err)
	}
	var re *recording.Error
	if _, err := rec.Frame(1); !errors.Is(err, recording.ErrCorrupt) || !errors.As(err, &re) || re.Record != "frame 2" || re.Offset != rec.Entries[1].Offset {
		t.Fatalf("frame 2 with a wrong hash: %v", err)
	}
}

// TestSizeCaps: a frame record whose region state claims more than MaxSnapshot
// bytes, or a deflated blob longer than the record, is refused at the field's
// offset before anything is allocated for it. The records are packed by hand, as
// the Writer refuses to write them.
func TestSizeCaps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		size, blb uint64
		want      error
	}{
		{"state size over the cap", recording.MaxSnapshot + 1, 4, recording.ErrTooLarge},
		{"blob longer than the record", 32, 1 << 40, recording.ErrTooLarge},
		{"blob longer than what is left", 32, 1000, recording.ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			if _, err := recording.NewWriter(&buf, recording.Header{Kind: recording.Server, Regions: []recording.Region{{ID: 1}}}); err != nil {
				t.Fatal(err)
			}
			head := bytes.Clone(buf.Bytes())
			frameAt := uint64(len(head))
			p := archive.NewPacker(archive.Disk, archive.AllChannels)
			frame, key, n, region, hash := uint64(1), true, 1, int32(1), uint64(0)
			p.TransferUint64(&frame)
			p.TransferBool(&key)
			p.TransferCount(&n)
			p.TransferInt32(&region)
			p.TransferUint64(&hash)
			fieldAt := p.Offset()
			size, blb, zero := tt.size, tt.blb, 0
			p.TransferUint64(&size)
			p.TransferCount(&zero)                // no shifts
			if tt.size <= recording.MaxSnapshot { // the blob's length is the bad field
				fieldAt = p.Offset()
			}
			p.TransferUint64(&blb)
			for range 4 {
				var b byte
				p.TransferByte(&b)
			}
			p.TransferCount(&zero)
			rec := bytes.Clone(p.Bytes())
			ip := archive.NewPacker(archive.Disk, archive.AllChannels)
			one, k := 1, true
			ip.TransferCount(&one)
			ip.TransferUint64(&frame)
			ip.TransferUint64(&frameAt)
			ip.TransferBool(&k)
			ip.TransferCount(&zero)
			file := append(append(head, rec...), ip.Bytes()...)
			idxAt := frameAt + uint64(len(rec))
			file = binary.LittleEndian.AppendUint64(file, idxAt)
			file = append(file, "TWFRIDX\n"...)
			r, err := recording.Decode(file)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			_, err = r.Frame(0)
			var re *recording.Error
			if !errors.Is(err, tt.want) || !errors.As(err, &re) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
			if want := int64(frameAt) + int64(fieldAt); re.Offset != want {
				t.Errorf("error at byte %d, want %d (the field): %v", re.Offset, want, err)
			}
		})
	}
}

// TestIndexRules: an index whose entries point outside the frames' area, do not
// increase, or list frames out of order is refused at the index's offset. The
// index is repacked by hand with good checksums.
func TestIndexRules(t *testing.T) {
	t.Parallel()
	good := smallRecording(t, recording.Server)
	rec, err := recording.Decode(good)
	if err != nil {
		t.Fatal(err)
	}
	idxAt := binary.LittleEndian.Uint64(good[len(good)-16:])
	tests := []struct {
		name string
		edit func(e []recording.Entry)
	}{
		{"an offset inside the header", func(e []recording.Entry) { e[0].Offset = 8 }},
		{"offsets not increasing", func(e []recording.Entry) { e[2].Offset = e[1].Offset }},
		{"an offset at the index", func(e []recording.Entry) { e[2].Offset = int64(idxAt) }},
		{"frames out of order", func(e []recording.Entry) { e[1].Frame, e[2].Frame = e[2].Frame, e[1].Frame }},
	}
	repack := func(edit func(e []recording.Entry)) []byte {
		entries := slices.Clone(rec.Entries)
		edit(entries)
		p := archive.NewPacker(archive.Disk, archive.AllChannels)
		archive.TransferSlice(p, &entries, func(a *archive.Archive, e *recording.Entry) {
			off := uint64(e.Offset)
			a.TransferUint64(&e.Frame)
			a.TransferUint64(&off)
			a.TransferBool(&e.Key)
		})
		zero := 0
		p.TransferCount(&zero)
		file := append(bytes.Clone(good[:idxAt]), p.Bytes()...)
		file = binary.LittleEndian.AppendUint64(file, idxAt)
		return append(file, "TWFRIDX\n"...)
	}
	// The repacking itself is right: unedited, the file decodes.
	if _, err := recording.Decode(repack(func([]recording.Entry) {})); err != nil {
		t.Fatalf("the unedited repacked index: %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := recording.Decode(repack(tt.edit))
			var re *recording.Error
			if !errors.Is(err, recording.ErrCorrupt) || !errors.As(err, &re) || re.Record != "index" || re.Offset != int64(idxAt) {
				t.Fatalf("error %v, want ErrCorrupt in the index at byte %d", err, idxAt)
			}
		})
	}
}
