package recording

import (
	"errors"
	"fmt"
	"io/fs"
	"testing/fstest"

	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/world"
)

// Version is the recording format this code writes; Decode reads 1..Version.
// Version 1 deflated a delta frame's region state with the state of the frame
// before as flate's preset dictionary; version 2 deflates its XOR with that state
// (docs/RECORDING.md has both).
const Version uint32 = 2

// The file starts with Magic and ends with the index's offset and trailerMagic.
// "\r\n" in Magic catches a file mangled by a text-mode transfer.
const (
	Magic        = "TWFREC\r\n"
	trailerMagic = "TWFRIDX\n"
	trailerSize  = 8 + len(trailerMagic)
)

// Caps Decode applies before it allocates; a file beyond them is refused.
const (
	MaxSnapshot   = 64 << 20 // bytes of one region's state, inflated
	MaxFileText   = 8 << 20  // bytes of one configuration file (world's own cap)
	MaxPayload    = 4 << 20  // bytes of one message
	MaxRegions    = 256
	MaxKeyEvery   = 10_000
	maxRecordSize = 1 << 30
	maxString     = 64 << 10 // names, origins, violations' text
)

// Kind says what a recording's frames hold.
type Kind uint8

const (
	// Server frames hold every region's simulation state (RegionState).
	Server Kind = 1
	// Client frames hold the messages a client received (Message).
	Client Kind = 2
)

func (k Kind) String() string {
	switch k {
	case Server:
		return "server"
	case Client:
		return "client"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Header describes a recording: what made it and the world it ran.
type Header struct {
	Kind   Kind
	Origin string // what made it, e.g. the command line
	Seed   uint64
	// KeyEvery: a server recording stores every region's state in full every
	// KeyEvery frames (and on the first frame and whenever the regions change);
	// seeking inflates at most KeyEvery-1 frames after one.
	KeyEvery uint32
	Files    []File // the world's configuration files, in load order
	Regions  []Region
}

// File is a configuration file of the world.
type File struct{ Name, Text string }

// Region is one of the world's regions.
type Region struct {
	ID   int32
	Name string
}

// Frame is one recorded frame.
type Frame struct {
	Frame    uint64
	Regions  []RegionState // Server recordings, in the world's order
	Messages []Message     // Client recordings, in the order received
}

// RegionState is a region's whole simulation state at the end of a frame.
type RegionState struct {
	Region   int32
	Hash     uint64 // sim.Game.StateHash: FNV-1a 64 of Snapshot
	Snapshot []byte // sim.Game.Snapshot (a Disk archive)
}

// Message is a protocol message as a client received it.
type Message struct {
	ID      uint32 // protocol.ID
	Payload []byte // its protobuf encoding
}

// Violation is a check that failed in a recorded run.
type Violation struct {
	Frame     uint64
	Check     string // the headless report's check: invariants, aoi, ...
	Invariant string // for Check "invariants": which one
	What      string
	Entities  []uint64 // the entities involved, most relevant first
}

// Entry is the index's line for one frame.
type Entry struct {
	Frame  uint64
	Offset int64 // of the frame's record in the file
	Key    bool  // the frame's region states are stored in full
}

// World loads the header's configuration files as a world.
func (h *Header) World() (*world.World, error) {
	files := fstest.MapFS{}
	for _, f := range h.Files {
		if !fs.ValidPath(f.Name) || f.Name == "." {
			return nil, fmt.Errorf("recording: bad file name %q", f.Name)
		}
		files[f.Name] = &fstest.MapFile{Data: []byte(f.Text)}
	}
	return world.Load(files)
}

// HeaderFor returns the header of a recording of w: its configuration files (from
// fsys, the files it was loaded from) and its regions.
func HeaderFor(kind Kind, origin string, fsys fs.FS, w *world.World) (Header, error) {
	h := Header{Kind: kind, Origin: origin}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return h, fmt.Errorf("recording: %w", err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return h, fmt.Errorf("recording: %w", err)
		}
		h.Files = append(h.Files, File{Name: e.Name(), Text: string(b)})
	}
	for _, r := range w.Regions {
		h.Regions = append(h.Regions, Region{ID: r.ID, Name: r.Name})
	}
	return h, nil
}

// Sentinel errors; a decoding error wraps one of them (or an archive error) in an *Error.
var (
	ErrBadMagic = errors.New("not a Twinframe recording")
	ErrVersion  = errors.New("unsupported recording version")
	ErrCorrupt  = errors.New("corrupt recording")
	ErrTooLarge = errors.New("exceeds the recording's caps")
)

// Error is a decoding error: what went wrong in which record, at which byte of the file.
type Error struct {
	Offset int64  // byte offset in the file
	Record string // "header", "frame 12", "index", "trailer"
	Err    error
}

func (e *Error) Error() string {
	return fmt.Sprintf("recording: %s at byte %d: %v", e.Record, e.Offset, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// codec moves a record through an archive and keeps the first error of its own
// (a cap or a rule the archive does not know) with the archive offset it was met at.
type codec struct {
	a       *archive.Archive
	version uint32 // the file's format version (frames differ by it)
	err     error
	at      int
}

func (c *codec) fail(err error, format string, args ...any) {
	if c.err == nil && c.a.Err() == nil {
		c.err, c.at = fmt.Errorf("%w: "+format, append([]any{err}, args...)...), c.a.Offset()
	}
}

func (c *codec) ok() bool { return c.err == nil && c.a.Err() == nil }

// size moves a byte count, refused above max.
func (c *codec) size(n *int, max int, what string) {
	u := uint64(*n)
	at := c.a.Offset()
	c.a.TransferUint64(&u)
	if c.a.IsPacking() || !c.ok() {
		return
	}
	if u > uint64(max) {
		c.fail(ErrTooLarge, "%s %d > %d", what, u, max)
		c.at = at
		return
	}
	*n = int(u)
}

// blob moves bytes as a varint length and the raw bytes. Unpacking checks the
// length against max and against what is left of the record before allocating.
func (c *codec) blob(b *[]byte, max int, what string) {
	n := len(*b)
	at := c.a.Offset()
	c.size(&n, max, what)
	if !c.ok() {
		return
	}
	if c.a.IsPacking() {
		for i := range *b {
			c.a.TransferByte(&(*b)[i])
		}
		return
	}
	if n > c.a.Remaining() {
		c.fail(ErrCorrupt, "%s %d > the %d bytes left", what, n, c.a.Remaining())
		c.at = at
		return
	}
	out := make([]byte, n)
	for i := range out {
		c.a.TransferByte(&out[i])
	}
	*b = out
}

// header moves the header and the format version (packing: Version).
func (c *codec) header(h *Header, v *uint32) {
	a := c.a
	a.TransferUint32(v)
	if !a.IsPacking() && c.ok() && (*v == 0 || *v > Version) {
		c.fail(ErrVersion, "version %d, this code reads 1..%d", *v, Version)
		return
	}
	k := byte(h.Kind)
	a.TransferByte(&k)
	h.Kind = Kind(k)
	if c.ok() && h.Kind != Server && h.Kind != Client {
		c.fail(ErrCorrupt, "unknown kind %d", k)
		return
	}
	a.TransferString(&h.Origin)
	a.TransferUint64(&h.Seed)
	a.TransferUint32(&h.KeyEvery)
	if c.ok() && (h.KeyEvery > MaxKeyEvery || (h.Kind == Server && h.KeyEvery == 0)) {
		c.fail(ErrCorrupt, "key frames every %d frames (1..%d)", h.KeyEvery, MaxKeyEvery)
		return
	}
	archive.TransferSlice(a, &h.Files, func(a *archive.Archive, f *File) {
		a.TransferString(&f.Name)
		a.TransferString(&f.Text)
	})
	archive.TransferSlice(a, &h.Regions, func(a *archive.Archive, r *Region) {
		a.TransferInt32(&r.ID)
		a.TransferString(&r.Name)
	})
	if c.ok() && len(h.Regions) > MaxRegions {
		c.fail(ErrTooLarge, "%d regions > %d", len(h.Regions), MaxRegions)
	}
}

// storedFrame is a frame record as stored: region states compressed.
type storedFrame struct {
	frame    uint64
	key      bool
	regions  []storedRegion
	messages []Message
}

type storedRegion struct {
	region int32
	hash   uint64
	size   int // inflated bytes
	// shifts pair the state's bytes with the previous state's (version 2, delta
	// frames only; delta.go).
	shifts []shift
	// data is the state deflated; unless key, of the state XOR the region's
	// previous state as shifts pair them (version 1: with that state as the
	// preset dictionary).
	data []byte
}

// maxDeflated bounds a deflated state: flate's stored blocks add 5 bytes per 64 KiB.
const maxDeflated = MaxSnapshot + MaxSnapshot/1024 + 1024

func (c *codec) frame(f *storedFrame) {
	a := c.a
	a.TransferUint64(&f.frame)
	a.TransferBool(&f.key)
	archive.TransferSlice(a, &f.regions, func(a *archive.Archive, r *storedRegion) {
		a.TransferInt32(&r.region)
		a.TransferUint64(&r.hash)
		c.size(&r.size, MaxSnapshot, "region state size")
		if c.version >= 2 {
			c.shifts(r, f.key)
		}
		c.blob(&r.data, maxDeflated, "deflated region state")
	})
	if c.ok() && len(f.regions) > MaxRegions {
		c.fail(ErrTooLarge, "%d regions > %d", len(f.regions), MaxRegions)
		return
	}
	archive.TransferSlice(a, &f.messages, func(a *archive.Archive, m *Message) {
		a.TransferUint32(&m.ID)
		c.blob(&m.Payload, MaxPayload, "message")
	})
}

// shifts moves a version 2 region state's shifts: each an u64 byte of the state
// (increasing, below its size) and an i64 offset into the previous state. A key
// frame's states have none.
func (c *codec) shifts(r *storedRegion, key bool) {
	n, last := 0, -1
	archive.TransferSlice(c.a, &r.shifts, func(a *archive.Archive, s *shift) {
		if !c.ok() {
			return
		}
		at := a.Offset()
		from, off := uint64(s.at), int64(s.off)
		a.TransferUint64(&from)
		a.TransferInt64(&off)
		if a.IsPacking() || !c.ok() {
			return
		}
		n++
		switch {
		case key:
			c.fail(ErrCorrupt, "a key frame's region state with shifts")
		case n > maxShifts:
			c.fail(ErrTooLarge, "more than %d shifts", maxShifts)
		case from >= uint64(r.size):
			c.fail(ErrCorrupt, "a shift at byte %d of a state of %d bytes", from, r.size)
		case int(from) <= last:
			c.fail(ErrCorrupt, "a shift at byte %d after one at byte %d", from, last)
		case off < -MaxSnapshot || off > MaxSnapshot:
			c.fail(ErrCorrupt, "a shift by %d bytes", off)
		}
		if !c.ok() {
			c.at = at
			return
		}
		s.at, s.off, last = int(from), int(off), int(from)
	})
}

// index is the index record: every frame's entry and the run's violations.
type index struct {
	entries    []Entry
	violations []Violation
}

func (c *codec) index(x *index) {
	a := c.a
	archive.TransferSlice(a, &x.entries, func(a *archive.Archive, e *Entry) {
		a.TransferUint64(&e.Frame)
		off := uint64(e.Offset)
		a.TransferUint64(&off)
		if c.ok() && off > maxRecordSize*uint64(MaxKeyEvery) {
			c.fail(ErrCorrupt, "offset %d", off)
		}
		e.Offset = int64(off)
		a.TransferBool(&e.Key)
	})
	archive.TransferSlice(a, &x.violations, func(a *archive.Archive, v *Violation) {
		a.TransferUint64(&v.Frame)
		a.TransferString(&v.Check)
		a.TransferString(&v.Invariant)
		a.TransferString(&v.What)
		archive.TransferSlice(a, &v.Entities, func(a *archive.Archive, id *uint64) { a.TransferUint64(id) })
	})
}
