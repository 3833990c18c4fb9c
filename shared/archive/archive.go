package archive

import (
	"encoding/binary"
	"hash/crc32"
	"strconv"
)

// Mode says what an archive is for. It is never written: both sides know it.
type Mode uint8

const (
	Migration   Mode = 1 // server → server handoff of a live entity
	Database    Mode = 2 // server → database save
	Replication Mode = 3 // server → client
	Disk        Mode = 4 // server → file save
)

func (m Mode) String() string {
	switch m {
	case Migration:
		return "Migration"
	case Database:
		return "Database"
	case Replication:
		return "Replication"
	case Disk:
		return "Disk"
	}
	return "Mode(" + strconv.Itoa(int(m)) + ")"
}

func (m Mode) valid() bool { return m >= Migration && m <= Disk }

// Policy is the replication policy: which channels of a client's area of interest
// an archive is for. Serializers consult it to decide what to write.
type Policy uint32

const (
	Proximity         Policy = 0x01
	Party             Policy = 0x02
	Owner             Policy = 0x04
	Trader            Policy = 0x08
	Discovery         Policy = 0x20
	ClientOnly        Policy = 0x40
	ClientIndependent Policy = 0x80
	AllChannels       Policy = 0xEF
)

// Has reports whether every flag of f is set in p.
func (p Policy) Has(f Policy) bool { return p&f == f }

const (
	// Version is the persistent archive format version this code writes. Unpackers
	// accept 1..Version and expose the archive's own with (*Archive).Version, so a
	// Serialize method can migrate old saves.
	Version uint32 = 1
	// BuildNumber identifies this build of the simulation. It is written into
	// persistent and migration archives; migration refuses any other build.
	BuildNumber uint32 = 1
)

// state folds "packing or unpacking" and "has it failed" into the one byte every
// Transfer tests before anything else: one compare on the path of every value.
type state uint8

const (
	unpackingOK state = iota // zero: a zero Archive still unpacks nothing and says so
	packingOK
	failed // err is set: every Transfer is a no-op
)

// Limits cap what an unpacker will accept before it allocates.
type Limits struct {
	MaxString int // longest string in bytes
	MaxCount  int // largest collection count
	MaxDepth  int // deepest nesting of TransferObject
}

// DefaultLimits suit network messages and saves alike.
var DefaultLimits = Limits{MaxString: 64 << 10, MaxCount: 1 << 16, MaxDepth: 32}

// Archive packs values into a buffer or unpacks them from one. The zero value is not
// usable; create one with NewPacker or NewUnpacker.
type Archive struct {
	buf     []byte
	pos     int // unpacking: next byte to read
	end     int // unpacking: end of the innermost nested object (or of the data)
	mode    Mode
	state   state // what every Transfer tests first: packing, unpacking or failed
	packing bool
	policy  Policy
	version uint32
	build   uint32
	err     error
	limits  Limits
	depth   int

	// Packing: offset of the open bool byte. Unpacking: the cached byte.
	boolOffset int
	boolByte   byte
	boolCount  uint8 // bools in the open/cached group; 0 when no group is open
	boolIndex  uint8 // unpacking: bools of the cached group already read
}

// NewPacker returns an archive that packs in mode and writes the mode's header.
// The policy is written only in Replication mode; other modes pack for all channels.
func NewPacker(mode Mode, policy Policy) *Archive {
	a := &Archive{}
	a.Reset(mode, policy)
	return a
}

// Reset empties a packer for reuse, keeping its buffer, and writes the header again.
func (a *Archive) Reset(mode Mode, policy Policy) {
	*a = Archive{buf: a.buf[:0], mode: mode, state: packingOK, packing: true, policy: policy,
		version: Version, build: BuildNumber, limits: DefaultLimits}
	switch {
	case !mode.valid():
		a.failf(0, "header", ErrMisuse, "unknown mode %d", mode)
	case mode == Replication:
		a.putUvarint(uint64(policy))
	case mode == Migration:
		a.policy = AllChannels
		a.putUvarint(uint64(BuildNumber))
	default: // persistent: size is patched by Bytes
		a.policy = AllChannels
		a.buf = append(a.buf, 0, 0, 0, 0)
		a.putUvarint(uint64(Version))
		a.putUvarint(uint64(BuildNumber))
	}
}

// NewUnpacker returns an archive that unpacks data in mode, after reading and
// checking the mode's header. It keeps a reference to data.
func NewUnpacker(mode Mode, data []byte) (*Archive, error) {
	a := &Archive{}
	return a, a.ResetUnpacker(mode, data)
}

// ResetUnpacker makes a an unpacker of data, keeping its limits; it returns the
// header's error, if any, which Err also reports.
func (a *Archive) ResetUnpacker(mode Mode, data []byte) error {
	limits := a.limits
	if limits == (Limits{}) {
		limits = DefaultLimits
	}
	*a = Archive{buf: data, end: len(data), mode: mode, state: unpackingOK, limits: limits, policy: AllChannels}
	switch {
	case !mode.valid():
		a.failf(0, "header", ErrMisuse, "unknown mode %d", mode)
	case mode == Replication:
		p, _ := a.uvarint("replication policy", 1<<32-1)
		a.policy = Policy(p)
	case mode == Migration:
		a.readBuild()
		if a.err == nil && a.build != BuildNumber {
			a.failf(0, "migration header", ErrBadHeader, "build %d, this server is build %d", a.build, BuildNumber)
		}
	default:
		a.readPersistentHeader()
	}
	return a.err
}

func (a *Archive) readPersistentHeader() {
	if len(a.buf) < 4 {
		a.failf(0, "persistent size", ErrTruncated, "%d bytes, need 4", len(a.buf))
		return
	}
	size := binary.LittleEndian.Uint32(a.buf)
	if uint64(size) != uint64(len(a.buf)) {
		a.failf(0, "persistent size", ErrSizeMismatch, "header says %d bytes, archive has %d", size, len(a.buf))
		return
	}
	a.pos = 4
	if a.mode == Disk {
		if len(a.buf) < 8 {
			a.failf(4, "disk checksum", ErrTruncated, "no room for checksum")
			return
		}
		body := len(a.buf) - 4
		if got, want := crc32.ChecksumIEEE(a.buf[:body]), binary.LittleEndian.Uint32(a.buf[body:]); got != want {
			a.failf(body, "disk checksum", ErrChecksum, "computed %08x, stored %08x", got, want)
			return
		}
		a.end = body
	}
	off := a.pos
	v, _ := a.uvarint("archive version", 1<<32-1)
	if a.err == nil && (v == 0 || v > uint64(Version)) {
		a.failf(off, "archive version", ErrBadHeader, "version %d, this code reads 1..%d", v, Version)
	}
	a.version = uint32(v)
	a.readBuild()
}

func (a *Archive) readBuild() {
	b, _ := a.uvarint("build number", 1<<32-1)
	a.build = uint32(b)
}

// SetLimits replaces the caps an unpacker applies; zero fields keep their defaults.
func (a *Archive) SetLimits(l Limits) {
	if l.MaxString <= 0 {
		l.MaxString = DefaultLimits.MaxString
	}
	if l.MaxCount <= 0 {
		l.MaxCount = DefaultLimits.MaxCount
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultLimits.MaxDepth
	}
	a.limits = l
}

// Bytes returns the packed archive (with its size and, for Disk, its checksum
// filled in), or for an unpacker the data it reads. The slice is valid until the
// next Transfer or Reset.
func (a *Archive) Bytes() []byte {
	if !a.packing || !a.IsPersistent() || len(a.buf) < 4 {
		return a.buf
	}
	n := len(a.buf)
	if a.mode == Database {
		binary.LittleEndian.PutUint32(a.buf, uint32(n))
		return a.buf
	}
	binary.LittleEndian.PutUint32(a.buf, uint32(n+4))
	out := binary.LittleEndian.AppendUint32(a.buf, crc32.ChecksumIEEE(a.buf))
	a.buf = out[:n] // the checksum is rewritten by the next Bytes
	return out
}

// Err returns the first error the archive met, or nil.
func (a *Archive) Err() error { return a.err }

// Remaining returns how many bytes an unpacker has left to read in the current
// object (0 for a packer).
func (a *Archive) Remaining() int {
	if a.packing {
		return 0
	}
	return a.end - a.pos
}

// Offset returns the current byte offset: bytes written so far, or the next byte to read.
func (a *Archive) Offset() int {
	if a.packing {
		return len(a.buf)
	}
	return a.pos
}

// Done reports an error unless an unpacker consumed all of its data; call it after
// the top-level object has been read.
func (a *Archive) Done() error {
	if a.err == nil && !a.packing && a.pos != a.end {
		a.failf(a.pos, "end of archive", ErrTrailingData, "%d bytes not read", a.end-a.pos)
	}
	return a.err
}

func (a *Archive) Policy() Policy      { return a.policy }
func (a *Archive) Mode() Mode          { return a.mode }
func (a *Archive) IsPacking() bool     { return a.packing }
func (a *Archive) IsReplication() bool { return a.mode == Replication }
func (a *Archive) IsMigration() bool   { return a.mode == Migration }

// IsPersistent reports whether the archive is a save (Database or Disk).
func (a *Archive) IsPersistent() bool { return a.mode == Database || a.mode == Disk }

// Version returns the persistent format version being read or written (0 for
// Replication and Migration, which have none).
func (a *Archive) Version() uint32 {
	if !a.IsPersistent() {
		return 0
	}
	return a.version
}

// Build returns the build number in the archive's header (0 for Replication).
func (a *Archive) Build() uint32 { return a.build }
