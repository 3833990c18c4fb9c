package recording

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/twinframe/twinframe/shared/archive"
)

// DefaultKeyEvery is how often a server recording stores the regions' states in full:
// once a second of game time, so seeking inflates at most 19 frames.
const DefaultKeyEvery = 20

// deflateLevel is flate's fastest level (BestSpeed): a delta frame's XOR is mostly
// runs of zeros, which it finds about as well as the slower levels (on the default
// world, level 6 makes frames a tenth smaller for 1.6 times the time;
// BenchmarkWriteFrame measures both).
const deflateLevel = flate.BestSpeed

// Writer writes a recording: NewWriter writes the header, WriteFrame each frame in
// order, Close the index. It is not safe for concurrent use.
type Writer struct {
	w        io.Writer
	h        Header
	off      int64
	index    index
	prev     map[int32][]byte // each region's previous state (the next frame's XOR base)
	regions  []int32          // the regions of the previous frame, in order
	sinceKey uint32
	pk       *archive.Archive
	// Scratch reused from frame to frame, so that a frame allocates little.
	fw        *flate.Writer // reset for every region state; made once
	out       bytes.Buffer  // the frame's deflated states, one after the other
	xor       []byte        // a region's state XOR its previous state
	shifts    []shift       // the frame's states' shifts, one after the other
	shiftEnds []int         // each state's end in shifts
	ids       []int32       // the frame's regions (swapped with regions)
	ends      []int         // each deflated state's end in out
	frame     storedFrame
	err       error
}

// NewWriter writes the magic and h to w. A server recording with KeyEvery 0 gets
// DefaultKeyEvery.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	if h.Kind != Server && h.Kind != Client {
		return nil, fmt.Errorf("recording: unknown kind %d", h.Kind)
	}
	if h.Kind == Server && h.KeyEvery == 0 {
		h.KeyEvery = DefaultKeyEvery
	}
	if h.KeyEvery > MaxKeyEvery {
		return nil, fmt.Errorf("recording: key frames every %d frames > %d", h.KeyEvery, MaxKeyEvery)
	}
	wr := &Writer{w: w, h: h, prev: map[int32][]byte{}, pk: archive.NewPacker(archive.Disk, archive.AllChannels)}
	var err error
	if wr.fw, err = flate.NewWriter(&wr.out, deflateLevel); err != nil {
		return nil, fmt.Errorf("recording: %w", err)
	}
	if err := wr.put([]byte(Magic)); err != nil {
		return nil, err
	}
	c := &codec{a: wr.pk}
	v := Version
	c.header(&wr.h, &v)
	if err := wr.record(c); err != nil {
		return nil, err
	}
	return wr, nil
}

// Header returns the header written (with its defaults filled in).
func (w *Writer) Header() Header { return w.h }

func (w *Writer) put(b []byte) error {
	if w.err != nil {
		return w.err
	}
	n, err := w.w.Write(b)
	w.off += int64(n)
	if err != nil {
		w.err = fmt.Errorf("recording: %w", err)
	}
	return w.err
}

// record writes the archive c packed and resets it for the next record.
func (w *Writer) record(c *codec) error {
	if err := c.a.Err(); err != nil {
		return fmt.Errorf("recording: %w", err)
	}
	if c.err != nil {
		return fmt.Errorf("recording: %w", c.err)
	}
	b := c.a.Bytes()
	if len(b) > maxRecordSize {
		return fmt.Errorf("recording: a record of %d bytes > %d", len(b), maxRecordSize)
	}
	err := w.put(b)
	w.pk.Reset(archive.Disk, archive.AllChannels)
	return err
}

// WriteFrame writes frame f. Frames must come in non-decreasing order. The writer
// keeps each region's state of f (the next frame is stored as its XOR with it), so
// the caller may reuse f's buffers afterwards.
func (w *Writer) WriteFrame(f *Frame) error {
	if w.err != nil {
		return w.err
	}
	if n := len(w.index.entries); n > 0 && f.Frame < w.index.entries[n-1].Frame {
		return fmt.Errorf("recording: frame %d after frame %d", f.Frame, w.index.entries[n-1].Frame)
	}
	if w.h.Kind == Client && len(f.Regions) > 0 || w.h.Kind == Server && len(f.Messages) > 0 {
		return fmt.Errorf("recording: frame %d does not fit a %s recording", f.Frame, w.h.Kind)
	}
	if len(f.Regions) > MaxRegions {
		return fmt.Errorf("recording: frame %d has %d regions > %d", f.Frame, len(f.Regions), MaxRegions)
	}
	for _, r := range f.Regions {
		if len(r.Snapshot) > MaxSnapshot {
			return fmt.Errorf("recording: frame %d: region %d's state is %d bytes > %d", f.Frame, r.Region, len(r.Snapshot), MaxSnapshot)
		}
	}
	for _, m := range f.Messages {
		if len(m.Payload) > MaxPayload {
			return fmt.Errorf("recording: frame %d: a message of %d bytes > %d", f.Frame, len(m.Payload), MaxPayload)
		}
	}
	sf := &w.frame
	*sf = storedFrame{frame: f.Frame, messages: f.Messages, regions: sf.regions[:0]}
	if w.h.Kind == Server {
		if err := w.states(sf, f); err != nil {
			return err
		}
	}
	w.index.entries = append(w.index.entries, Entry{Frame: f.Frame, Offset: w.off, Key: sf.key})
	c := codec{a: w.pk, version: Version}
	c.frame(sf)
	err := w.record(&c)
	sf.messages = nil // the caller's
	return err
}

// states deflates f's region states into sf: whole in a key frame, else each XOR
// the region's state of the frame before, aligned by shifts (delta.go).
func (w *Writer) states(sf *storedFrame, f *Frame) error {
	w.ids = w.ids[:0]
	for _, r := range f.Regions {
		w.ids = append(w.ids, r.Region)
	}
	sf.key = len(w.index.entries) == 0 || w.sinceKey+1 >= w.h.KeyEvery || !slices.Equal(w.ids, w.regions)
	if sf.key {
		w.sinceKey = 0
	} else {
		w.sinceKey++
	}
	w.out.Reset()
	w.ends, w.shifts, w.shiftEnds = w.ends[:0], w.shifts[:0], w.shiftEnds[:0]
	for _, r := range f.Regions {
		in := r.Snapshot
		if !sf.key {
			prev := w.prev[r.Region]
			first := len(w.shifts)
			w.shifts = align(r.Snapshot, prev, w.shifts)
			w.xor = xorShifted(w.xor, r.Snapshot, prev, w.shifts[first:])
			in = w.xor
		}
		w.shiftEnds = append(w.shiftEnds, len(w.shifts))
		w.fw.Reset(&w.out)
		_, err := w.fw.Write(in)
		if err == nil {
			err = w.fw.Close()
		}
		if err != nil { // the previous states are half updated: the writer is done
			w.err = fmt.Errorf("recording: %w", err)
			return w.err
		}
		w.ends = append(w.ends, w.out.Len())
		w.prev[r.Region] = append(w.prev[r.Region][:0], r.Snapshot...)
	}
	// out and shifts have stopped growing: the states' slices of them stay valid
	// until the next frame.
	start, first := 0, 0
	for i, r := range f.Regions {
		sf.regions = append(sf.regions, storedRegion{region: r.Region, hash: r.Hash, size: len(r.Snapshot),
			shifts: w.shifts[first:w.shiftEnds[i]:w.shiftEnds[i]], data: w.out.Bytes()[start:w.ends[i]]})
		start, first = w.ends[i], w.shiftEnds[i]
	}
	w.regions, w.ids = w.ids, w.regions
	return nil
}

// Close writes the index with the run's violations, and the trailer. It does not
// close the underlying writer.
func (w *Writer) Close(violations []Violation) error {
	if w.err != nil {
		return w.err
	}
	w.index.violations = violations
	at := w.off
	c := &codec{a: w.pk}
	c.index(&w.index)
	if err := w.record(c); err != nil {
		return err
	}
	var t [trailerSize]byte
	binary.LittleEndian.PutUint64(t[:8], uint64(at))
	copy(t[8:], trailerMagic)
	if err := w.put(t[:]); err != nil {
		return err
	}
	w.err = errors.New("recording: closed")
	return nil
}
