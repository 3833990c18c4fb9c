package archive

import (
	"encoding/binary"
	"math"
)

// Serializer is implemented by every type that travels in an archive. One method
// packs and unpacks in every mode; it may branch on a.Mode() or a.Policy().
type Serializer interface {
	Serialize(a *Archive) error
}

// objectHeader is the raw size that prefixes a nested object in persistent modes.
const objectHeader = 4

// TransferObject moves a nested object: inline in Replication and Migration, behind
// a checked uint32 size in Database and Disk. An error returned by s.Serialize
// becomes the archive's error.
func (a *Archive) TransferObject(s Serializer) {
	if a.state == failed {
		return
	}
	if s == nil {
		a.fail(a.Offset(), "object", ErrMisuse, "nil Serializer")
		return
	}
	if a.depth >= a.limits.MaxDepth {
		a.failf(a.Offset(), "object", ErrTooLarge, "nesting deeper than %d", a.limits.MaxDepth)
		return
	}
	a.depth++ // no defer: a Serialize that panics leaves the archive unusable anyway
	switch {
	case !a.IsPersistent(): // serialize, written out: the call is on every entity's path
		start := a.Offset()
		if err := s.Serialize(a); err != nil {
			a.objectError(start, err)
		}
	case a.packing:
		a.endBoolGroup()
		a.packPersistentObject(s)
		a.endBoolGroup()
	default:
		a.endBoolGroup()
		a.unpackPersistentObject(s)
		a.endBoolGroup()
	}
	a.depth--
}

func (a *Archive) serialize(s Serializer) {
	start := a.Offset()
	if err := s.Serialize(a); err != nil {
		a.objectError(start, err)
	}
}

// objectError records an error a Serializer returned, keeping it matchable with
// errors.Is/As, unless the archive had already failed.
func (a *Archive) objectError(start int, err error) {
	if a.err == nil {
		a.err = &Error{Offset: start, Op: "object", Detail: err.Error(), Err: err}
		a.state = failed
	}
}

func (a *Archive) packPersistentObject(s Serializer) {
	start := len(a.buf)
	a.buf = append(a.buf, 0, 0, 0, 0)
	a.serialize(s)
	if a.err != nil {
		return
	}
	size := len(a.buf) - start
	if size > math.MaxUint32 {
		a.failf(start, "object size", ErrTooLarge, "%d bytes", size)
		return
	}
	binary.LittleEndian.PutUint32(a.buf[start:], uint32(size))
}

// objectBounds reads a persistent object's size prefix and returns where it ends.
func (a *Archive) objectBounds() (start, end int, ok bool) {
	start = a.pos
	if a.end-a.pos < objectHeader {
		a.failf(start, "object size", ErrTruncated, "%d bytes left, need 4", a.end-a.pos)
		return 0, 0, false
	}
	size := uint64(binary.LittleEndian.Uint32(a.buf[a.pos:]))
	if size < objectHeader || size > uint64(a.end-start) {
		a.failf(start, "object size", ErrSizeMismatch, "size %d, %d bytes left", size, a.end-start)
		return 0, 0, false
	}
	a.pos += objectHeader
	return start, start + int(size), true
}

func (a *Archive) unpackPersistentObject(s Serializer) {
	start, end, ok := a.objectBounds()
	if !ok {
		return
	}
	outer := a.end
	a.end = end
	a.serialize(s)
	a.end = outer
	if a.err == nil && a.pos != end {
		a.failf(start, "object size", ErrSizeMismatch, "size says %d bytes, object read %d", end-start, a.pos-start)
	}
}

// SkipObject skips a nested object an unpacker does not want (persistent modes
// only, where objects carry their size).
func (a *Archive) SkipObject() {
	if a.err != nil {
		return
	}
	if a.packing || !a.IsPersistent() {
		a.fail(a.Offset(), "skip object", ErrMisuse, "only persistent unpackers can skip")
		return
	}
	a.endBoolGroup()
	if _, end, ok := a.objectBounds(); ok {
		a.pos = end
	}
}

// TransferCount moves a collection count. Unpacking fails when the count exceeds
// the archive's MaxCount, before anything is allocated for it.
func (a *Archive) TransferCount(n *int) {
	switch a.state {
	case packingOK:
		if *n < 0 || *n > math.MaxUint32 {
			a.failf(a.Offset(), "count", ErrMisuse, "count %d out of range", *n)
			return
		}
		a.putUvarint(uint64(*n))
		return
	case failed:
		return
	}
	start := a.pos
	u, ok := a.uvarint1()
	if !ok {
		u, ok = a.uvarint("count", math.MaxUint32)
	}
	if !ok {
		return
	}
	if u > uint64(a.limits.MaxCount) {
		a.failf(start, "count", ErrTooLarge, "count %d > limit %d", u, a.limits.MaxCount)
		return
	}
	*n = int(u)
}

// TransferSlice moves a collection: a varint count, then each element through elem.
// Unpacking reuses the slice's capacity and grows it only as elements arrive, so a
// forged count cannot allocate more than the data can fill.
func TransferSlice[T any](a *Archive, s *[]T, elem func(a *Archive, v *T)) {
	n := len(*s)
	a.TransferCount(&n)
	switch a.state {
	case packingOK:
		xs := *s
		for i := range xs {
			elem(a, &xs[i])
			if a.state == failed {
				return
			}
		}
		return
	case failed:
		return
	}
	out := (*s)[:0]
	for i := 0; i < n; i++ {
		var v T
		out = append(out, v)
		elem(a, &out[len(out)-1])
		if a.state == failed {
			break
		}
	}
	*s = out
}
