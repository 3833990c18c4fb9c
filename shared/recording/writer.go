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

// deflateLevel is the fastest level that uses a preset dictionary (flate's level 1
// ignores it), which is what makes a frame cost its changes rather than its size.
const deflateLevel = 2

// Writer writes a recording: NewWriter writes the header, WriteFrame each frame in
// order, Close the index. It is not safe for concurrent use.
type Writer struct {
	w        io.Writer
	h        Header
	off      int64
	index    index
	prev     map[int32][]byte // each region's previous state (the next frame's dictionary)
	regions  []int32          // the regions of the previous frame, in order
	sinceKey uint32
	pk       *archive.Archive
	buf      bytes.Buffer
	fw       *flate.Writer
	err      error
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
	if err := wr.put([]byte(Magic)); err != nil {
		return nil, err
	}
	c := &codec{a: wr.pk}
	c.header(&wr.h)
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
// keeps each region's state of f (to deflate the next frame's against), so the
// caller may reuse f's buffers afterwards.
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
	sf := storedFrame{frame: f.Frame, messages: f.Messages}
	if w.h.Kind == Server {
		ids := make([]int32, len(f.Regions))
		for i, r := range f.Regions {
			ids[i] = r.Region
		}
		sf.key = len(w.index.entries) == 0 || w.sinceKey+1 >= w.h.KeyEvery || !slices.Equal(ids, w.regions)
		if sf.key {
			w.sinceKey = 0
		} else {
			w.sinceKey++
		}
		for _, r := range f.Regions {
			if len(r.Snapshot) > MaxSnapshot {
				return fmt.Errorf("recording: frame %d: region %d's state is %d bytes > %d", f.Frame, r.Region, len(r.Snapshot), MaxSnapshot)
			}
			var dict []byte
			if !sf.key {
				dict = w.prev[r.Region]
			}
			data, err := w.deflate(r.Snapshot, dict)
			if err != nil {
				return err
			}
			sf.regions = append(sf.regions, storedRegion{region: r.Region, hash: r.Hash, size: len(r.Snapshot), data: data})
			w.prev[r.Region] = append(w.prev[r.Region][:0], r.Snapshot...)
		}
		w.regions = ids
	}
	for _, m := range f.Messages {
		if len(m.Payload) > MaxPayload {
			return fmt.Errorf("recording: frame %d: a message of %d bytes > %d", f.Frame, len(m.Payload), MaxPayload)
		}
	}
	w.index.entries = append(w.index.entries, Entry{Frame: f.Frame, Offset: w.off, Key: sf.key})
	c := &codec{a: w.pk}
	c.frame(&sf)
	return w.record(c)
}

// deflate compresses b with dict as flate's preset dictionary.
func (w *Writer) deflate(b, dict []byte) ([]byte, error) {
	w.buf.Reset()
	var err error
	if w.fw == nil || dict != nil {
		w.fw, err = flate.NewWriterDict(&w.buf, deflateLevel, dict)
	} else {
		w.fw.Reset(&w.buf)
	}
	if err == nil {
		_, err = w.fw.Write(b)
	}
	if err == nil {
		err = w.fw.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("recording: %w", err)
	}
	if dict != nil {
		w.fw = nil // a writer keeps its dictionary across Reset
	}
	return bytes.Clone(w.buf.Bytes()), nil
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
