package recording

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"sort"

	"github.com/twinframe/twinframe/shared/archive"
)

// Recording is a decoded recording: its header and index, with the frames read on
// demand from the data it was decoded from.
type Recording struct {
	Version    uint32 // the file's format version, 1..Version
	Header     Header
	Entries    []Entry     // every frame, in order
	Violations []Violation // the run's, as the index lists them
	data       []byte
}

// Decode reads a recording's header and index from data (the whole file, which the
// Recording keeps). Frames are checked when read.
func Decode(data []byte) (*Recording, error) {
	if len(data) < len(Magic) || string(data[:len(Magic)]) != Magic {
		return nil, &Error{Offset: 0, Record: "magic", Err: ErrBadMagic}
	}
	r := &Recording{data: data}
	hdr, end, err := r.record(int64(len(Magic)), "header", archive.Limits{MaxString: MaxFileText, MaxCount: MaxRegions * 4})
	if err != nil {
		return nil, err
	}
	if err := r.run(hdr, func(c *codec) { c.header(&r.Header, &r.Version) }); err != nil {
		return nil, err
	}
	tr := int64(len(data) - trailerSize)
	if tr < end || string(data[tr+8:]) != trailerMagic {
		return nil, &Error{Offset: max(tr, end), Record: "trailer", Err: fmt.Errorf("%w: no index trailer (a recording cut short?)", ErrCorrupt)}
	}
	at := int64(binary.LittleEndian.Uint64(data[tr:]))
	if at < end || at >= tr {
		return nil, &Error{Offset: tr, Record: "trailer", Err: fmt.Errorf("%w: index offset %d outside %d..%d", ErrCorrupt, at, end, tr)}
	}
	idx, idxEnd, err := r.record(at, "index", archive.Limits{MaxCount: 1 << 30})
	if err != nil {
		return nil, err
	}
	if idxEnd != tr {
		return nil, &Error{Offset: idxEnd, Record: "index", Err: fmt.Errorf("%w: %d bytes between the index and the trailer", ErrCorrupt, tr-idxEnd)}
	}
	var x index
	if err := r.run(idx, func(c *codec) { c.index(&x) }); err != nil {
		return nil, err
	}
	prev := end - 1
	for i, e := range x.entries {
		if e.Offset <= prev || e.Offset >= at {
			return nil, &Error{Offset: idx.start, Record: "index", Err: fmt.Errorf("%w: frame %d's offset %d is not between the record before it (%d) and the index (%d)", ErrCorrupt, e.Frame, e.Offset, prev, at)}
		}
		if i > 0 && e.Frame < x.entries[i-1].Frame {
			return nil, &Error{Offset: idx.start, Record: "index", Err: fmt.Errorf("%w: frame %d listed after frame %d", ErrCorrupt, e.Frame, x.entries[i-1].Frame)}
		}
		if i == 0 && r.Header.Kind == Server && !e.Key {
			return nil, &Error{Offset: idx.start, Record: "index", Err: fmt.Errorf("%w: the first frame is not a key frame", ErrCorrupt)}
		}
		prev = e.Offset
	}
	r.Entries, r.Violations = x.entries, x.violations
	return r, nil
}

// span is one record of the file: a Disk archive.
type span struct {
	start int64
	a     *archive.Archive
	name  string
}

// record opens the Disk archive at off; it returns it and the offset after it.
func (r *Recording) record(off int64, name string, l archive.Limits) (span, int64, error) {
	if off < 0 || off+8 > int64(len(r.data)) {
		return span{}, 0, &Error{Offset: off, Record: name, Err: fmt.Errorf("%w: the file ends before the record", ErrCorrupt)}
	}
	size := int64(binary.LittleEndian.Uint32(r.data[off:]))
	if size < 8 || size > maxRecordSize || off+size > int64(len(r.data)) {
		return span{}, 0, &Error{Offset: off, Record: name, Err: fmt.Errorf("%w: a record of %d bytes with %d left", ErrCorrupt, size, int64(len(r.data))-off)}
	}
	a := &archive.Archive{}
	a.SetLimits(l)
	if err := a.ResetUnpacker(archive.Disk, r.data[off:off+size]); err != nil {
		return span{}, 0, wrapArchive(off, name, err)
	}
	return span{start: off, a: a, name: name}, off + size, nil
}

// run decodes a record with fn and requires it to be read to its end.
func (r *Recording) run(s span, fn func(c *codec)) error {
	c := &codec{a: s.a, version: r.Version}
	fn(c)
	if c.err != nil {
		return &Error{Offset: s.start + int64(c.at), Record: s.name, Err: c.err}
	}
	if err := s.a.Done(); err != nil {
		return wrapArchive(s.start, s.name, err)
	}
	return nil
}

// wrapArchive makes an archive's error a file position.
func wrapArchive(off int64, name string, err error) error {
	var ae *archive.Error
	if errors.As(err, &ae) {
		off += int64(ae.Offset)
	}
	return &Error{Offset: off, Record: name, Err: err}
}

// frame decodes the frame record of entry i.
func (r *Recording) frame(i int) (*storedFrame, error) {
	e := r.Entries[i]
	name := fmt.Sprintf("frame %d", e.Frame)
	s, _, err := r.record(e.Offset, name, archive.Limits{})
	if err != nil {
		return nil, err
	}
	var f storedFrame
	if err := r.run(s, func(c *codec) { c.frame(&f) }); err != nil {
		return nil, err
	}
	if f.frame != e.Frame || f.key != e.Key {
		return nil, &Error{Offset: e.Offset, Record: name, Err: fmt.Errorf("%w: the record is frame %d (key %v), the index says frame %d (key %v)", ErrCorrupt, f.frame, f.key, e.Frame, e.Key)}
	}
	return &f, nil
}

// Find returns the index of the last entry at or before frame (0 when frame is
// before the first).
func (r *Recording) Find(frame uint64) int {
	i := sort.Search(len(r.Entries), func(i int) bool { return r.Entries[i].Frame > frame })
	return max(i-1, 0)
}

// Frame returns entry i's frame, with every region's state inflated (from the key
// frame before it) and checked against its hash.
func (r *Recording) Frame(i int) (*Frame, error) {
	if i < 0 || i >= len(r.Entries) {
		return nil, fmt.Errorf("recording: no frame entry %d (%d recorded)", i, len(r.Entries))
	}
	k := i
	for k > 0 && !r.Entries[k].Key {
		k--
	}
	var prev map[int32][]byte
	var out *Frame
	for j := k; j <= i; j++ {
		f, err := r.frame(j)
		if err != nil {
			return nil, err
		}
		out = &Frame{Frame: f.frame, Messages: f.messages}
		states := make(map[int32][]byte, len(f.regions))
		for _, sr := range f.regions {
			b, err := r.state(f, sr, prev)
			if err != nil {
				return nil, &Error{Offset: r.Entries[j].Offset, Record: fmt.Sprintf("frame %d", f.frame), Err: err}
			}
			states[sr.region] = b
			out.Regions = append(out.Regions, RegionState{Region: sr.region, Hash: sr.hash, Snapshot: b})
		}
		prev = states
	}
	return out, nil
}

// state rebuilds a region's state of frame f from its stored form and the
// region's states of the frame before (prev), and checks it against its hash.
func (r *Recording) state(f *storedFrame, sr storedRegion, prev map[int32][]byte) ([]byte, error) {
	var base []byte
	if !f.key {
		var ok bool
		if base, ok = prev[sr.region]; !ok {
			return nil, fmt.Errorf("%w: region %d is not in the frame before", ErrCorrupt, sr.region)
		}
	}
	var b []byte
	var err error
	if r.Version == 1 {
		b, err = inflate(sr.data, base, sr.size)
	} else {
		b, err = inflate(sr.data, nil, sr.size)
		if err == nil && base != nil {
			b = xorShifted(b, b, base, sr.shifts)
		}
	}
	if err == nil && hash(b) != sr.hash {
		err = fmt.Errorf("%w: region %d's state does not match its hash", ErrCorrupt, sr.region)
	}
	return b, err
}

// inflate decompresses exactly size bytes, with dict as flate's preset dictionary
// (version 1's delta frames). The output grows with what the stream yields, so a
// forged size does not allocate by itself.
func inflate(data, dict []byte, size int) ([]byte, error) {
	fr := flate.NewReaderDict(bytes.NewReader(data), dict)
	out, err := io.ReadAll(io.LimitReader(fr, int64(size)+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("%w: a region state does not inflate: %v", ErrCorrupt, err)
	case len(out) != size:
		return nil, fmt.Errorf("%w: a region state inflates to %d bytes, its size says %d", ErrCorrupt, len(out), size)
	}
	return out, nil
}

// hash is sim.Game.StateHash's: FNV-1a 64 of the state's bytes.
func hash(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

// FirstViolation returns the earliest violation (by frame), if any.
func (r *Recording) FirstViolation() (Violation, bool) {
	if len(r.Violations) == 0 {
		return Violation{}, false
	}
	best := r.Violations[0]
	for _, v := range r.Violations[1:] {
		if v.Frame < best.Frame {
			best = v
		}
	}
	return best, true
}
