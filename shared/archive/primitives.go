package archive

import (
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"unicode/utf8"

	"github.com/go-gl/mathgl/mgl32"
)

// maxVarintLen is the longest varint a 64-bit value needs.
const maxVarintLen = 10

// putUvarint appends v as a varint. The one-byte case is inlined at every call.
func (a *Archive) putUvarint(v uint64) {
	if v < 0x80 {
		a.buf = append(a.buf, byte(v))
		return
	}
	a.putUvarintLong(v)
}

// putUvarintLong appends a varint of two bytes or more into room it makes once:
// two-byte varints byte by byte, longer ones as one 64-bit store of their first
// eight bytes (and, past 56 bits, the last two bytes after them).
//
// Every store to a.buf reslices a.buf itself, which writes only its length.
func (a *Archive) putUvarintLong(v uint64) {
	n := len(a.buf)
	if cap(a.buf)-n < maxVarintLen {
		a.grow()
	}
	b := (*[maxVarintLen]byte)(a.buf[n : n+maxVarintLen])
	if v < 1<<14 {
		b[0] = byte(v) | 0x80
		b[1] = byte(v >> 7)
		a.buf = a.buf[:n+2]
		return
	}
	if v < 1<<56 {
		shape := &varintShapes[bits.Len64(v)]
		binary.LittleEndian.PutUint64(b[:8], spread7(v)|shape.continuation)
		a.buf = a.buf[:n+int(shape.size)]
		return
	}
	binary.LittleEndian.PutUint64(b[:8], spread7(v)|0x8080808080808080)
	v >>= 56
	if v < 0x80 {
		b[8] = byte(v)
		a.buf = a.buf[:n+9]
		return
	}
	b[8] = byte(v) | 0x80
	b[9] = byte(v >> 7)
	a.buf = a.buf[:n+10]
}

// grow makes room for the longest varint. It is kept out of line so that the
// callers' common path, which has the room, carries none of its code.
//
//go:noinline
func (a *Archive) grow() {
	a.buf = slices.Grow(a.buf, maxVarintLen)
}

// varintShapes[l] describes the varint of a value of bit length l: its size and
// the continuation bits of all its bytes but the last, as spread7 lays them out.
// A table lookup is cheaper than dividing the length by 7 on every long varint.
var varintShapes = func() (t [65]struct{ size, continuation uint64 }) {
	for l := range t {
		size := max((l+6)/7, 1)
		t[l].size = uint64(size)
		for i := range min(size-1, 8) {
			t[l].continuation |= 0x80 << (8 * i)
		}
	}
	return t
}()

// spread7 moves the low 56 bits of v apart into the low 7 bits of each of eight
// bytes, little-endian: the payload of an eight-byte varint.
func spread7(v uint64) uint64 {
	x := v&0x0FFFFFFF | v&0x00FFFFFFF0000000<<4
	x = x&0x00003FFF00003FFF | x&0x0FFFC0000FFFC000<<2
	return x&0x007F007F007F007F | x&0x3F803F803F803F80<<1
}

// gather7 is spread7's inverse: it joins the low 7 bits of each byte of w.
func gather7(w uint64) uint64 {
	x := w&0x007F007F007F007F | w&0x7F007F007F007F00>>1
	x = x&0x00003FFF00003FFF | x&0x3FFF00003FFF0000>>2
	return x&0x000000000FFFFFFF | x&0x0FFFFFFF00000000>>4
}

// uvarint1 reads a one-byte varint, by far the commonest, and reports false,
// reading nothing, for any other; the caller then calls uvarint. It is small
// enough to be inlined, which a function that also handles the long case is not.
func (a *Archive) uvarint1() (uint64, bool) {
	if p := a.pos; p < a.end {
		if b := a.buf[p]; b < 0x80 {
			a.pos = p + 1
			return uint64(b), true
		}
	}
	return 0, false
}

// uvarint reads a varint of at most max. On failure (the varint is truncated,
// longer than ten bytes, or larger than max) it records the error and returns ok
// false. Varints of up to eight bytes are decoded from one 64-bit load instead of
// a byte at a time.
func (a *Archive) uvarint(op string, max uint64) (uint64, bool) {
	start := a.pos
	data := a.buf[start:a.end]
	var x uint64
	n := 0 // bytes of the varint
	if len(data) >= 8 {
		w := binary.LittleEndian.Uint64(data)
		if stop := ^w & 0x8080808080808080; stop != 0 {
			last := bits.TrailingZeros64(stop) // bit 7 of the varint's last byte
			n = last>>3 + 1
			w &= 1<<last<<1 - 1 // the varint's bytes only (all of w when last is 63)
			x = gather7(w)
		}
	}
	if n == 0 {
		var ok bool
		if x, n, ok = a.uvarintBytes(data, start, op); !ok {
			return 0, false
		}
	}
	if x > max {
		a.failf(start, op, ErrVarintOverflow, "value %d exceeds %d", x, max)
		return 0, false
	}
	a.pos = start + n
	return x, true
}

// uvarintBytes decodes the varint at the start of data a byte at a time: the
// varints of nine or ten bytes, and those near the end of the data.
func (a *Archive) uvarintBytes(data []byte, start int, op string) (x uint64, n int, ok bool) {
	for i, b := range data {
		if i == maxVarintLen-1 && b > 1 {
			a.fail(start, op, ErrVarintOverflow, "value exceeds 64 bits")
			return 0, 0, false
		}
		x |= uint64(b&0x7f) << (7 * i & 63)
		if b < 0x80 {
			return x, i + 1, true
		}
	}
	// Only a truncated varint gets here: a tenth byte ends the loop above either way.
	a.failf(start, op, ErrTruncated, "varint cut after %d bytes", len(data))
	return 0, 0, false
}

// transfer is the front of the integer Transfers, inlined into each Serialize:
// while packing without error it writes u, the value's varint, appending a
// one-byte varint (the commonest) in place and calling putLong for a longer one;
// otherwise it hands v to unpack, which reads it or, after an error, does nothing.
//
// putLong and unpack are parameters, not direct calls, for the compiler's inliner:
// it prices a call through a parameter at 17 of its budget of 80 where a direct
// call costs 57, and only at that price does each Transfer fit. putLong is always
// (*Archive).putUvarintLong.
func transfer[T any](a *Archive, v *T, u uint64, putLong func(*Archive, uint64), unpack func(*Archive, *T)) {
	if a.state != packingOK {
		unpack(a, v)
	} else if u < 0x80 {
		a.buf = append(a.buf, byte(u))
	} else {
		putLong(a, u)
	}
}

func zigzag32(v int32) uint32   { return uint32(v<<1) ^ uint32(v>>31) }
func unzigzag32(u uint32) int32 { return int32(u>>1) ^ -int32(u&1) }
func zigzag64(v int64) uint64   { return uint64(v<<1) ^ uint64(v>>63) }
func unzigzag64(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// TransferByte moves one raw byte.
func (a *Archive) TransferByte(v *byte) {
	switch a.state {
	case packingOK:
		a.buf = append(a.buf, *v)
		return
	case failed:
		return
	}
	if a.pos >= a.end {
		a.fail(a.pos, "byte", ErrTruncated, "")
		return
	}
	*v = a.buf[a.pos]
	a.pos++
}

// TransferUint16 moves a uint16 as a plain varint.
func (a *Archive) TransferUint16(v *uint16) {
	transfer(a, v, uint64(*v), (*Archive).putUvarintLong, (*Archive).unpackUint16)
}

// unpackUint16 is TransferUint16 for an unpacker, or a no-op after an error.
func (a *Archive) unpackUint16(v *uint16) {
	if a.state != unpackingOK {
		return
	}
	u, ok := a.uvarint1()
	if !ok {
		u, ok = a.uvarint("uint16", math.MaxUint16)
	}
	if ok {
		*v = uint16(u)
	}
}

// TransferUint32 moves a uint32 as a plain varint.
func (a *Archive) TransferUint32(v *uint32) {
	transfer(a, v, uint64(*v), (*Archive).putUvarintLong, (*Archive).unpackUint32)
}

// unpackUint32 is TransferUint32 for an unpacker, or a no-op after an error.
func (a *Archive) unpackUint32(v *uint32) {
	if a.state != unpackingOK {
		return
	}
	u, ok := a.uvarint1()
	if !ok {
		u, ok = a.uvarint("uint32", math.MaxUint32)
	}
	if ok {
		*v = uint32(u)
	}
}

// TransferUint64 moves a uint64 as a plain varint.
func (a *Archive) TransferUint64(v *uint64) {
	transfer(a, v, *v, (*Archive).putUvarintLong, (*Archive).unpackUint64)
}

// unpackUint64 is TransferUint64 for an unpacker, or a no-op after an error.
func (a *Archive) unpackUint64(v *uint64) {
	if a.state != unpackingOK {
		return
	}
	u, ok := a.uvarint1()
	if !ok {
		u, ok = a.uvarint("uint64", math.MaxUint64)
	}
	if ok {
		*v = u
	}
}

// TransferInt32 moves an int32 as a zig-zag varint.
func (a *Archive) TransferInt32(v *int32) {
	transfer(a, v, uint64(zigzag32(*v)), (*Archive).putUvarintLong, (*Archive).unpackInt32)
}

// unpackInt32 is TransferInt32 for an unpacker, or a no-op after an error.
func (a *Archive) unpackInt32(v *int32) {
	if a.state != unpackingOK {
		return
	}
	u, ok := a.uvarint1()
	if !ok {
		u, ok = a.uvarint("int32", math.MaxUint32)
	}
	if ok {
		*v = unzigzag32(uint32(u))
	}
}

// TransferInt64 moves an int64 as a zig-zag varint.
func (a *Archive) TransferInt64(v *int64) {
	transfer(a, v, zigzag64(*v), (*Archive).putUvarintLong, (*Archive).unpackInt64)
}

// unpackInt64 is TransferInt64 for an unpacker, or a no-op after an error.
func (a *Archive) unpackInt64(v *int64) {
	if a.state != unpackingOK {
		return
	}
	u, ok := a.uvarint1()
	if !ok {
		u, ok = a.uvarint("int64", math.MaxUint64)
	}
	if ok {
		*v = unzigzag64(u)
	}
}

// TransferFloat32 moves a float32 exactly: its IEEE bits as a plain varint.
func (a *Archive) TransferFloat32(v *float32) {
	transfer(a, v, uint64(math.Float32bits(*v)), (*Archive).putUvarintLong, (*Archive).unpackFloat32)
}

// unpackFloat32 is TransferFloat32 for an unpacker, or a no-op after an error.
func (a *Archive) unpackFloat32(v *float32) {
	if a.state != unpackingOK {
		return
	}
	u, ok := a.uvarint1()
	if !ok {
		u, ok = a.uvarint("float32", math.MaxUint32)
	}
	if ok {
		*v = math.Float32frombits(uint32(u))
	}
}

// MaxPrecision is the largest precision FloatFixed accepts: 2^30 still fits int32.
const MaxPrecision = 30

// TransferFloatFixed moves v as the zig-zag varint of int32(v·2^precision), truncated
// toward zero (precision < 0 means scale 1). Unpacking yields that integer / 2^precision.
// NaN packs as 0 and values beyond the int32 range saturate, so that every platform
// (native and WebAssembly) writes the same bytes.
func (a *Archive) TransferFloatFixed(v *float32, precision int) {
	if precision > MaxPrecision {
		a.failf(a.Offset(), "float fixed", ErrMisuse, "precision %d > %d", precision, MaxPrecision) // keeps an earlier error
		return
	}
	switch a.state {
	case packingOK:
		a.putUvarint(uint64(zigzag32(FixedFromFloat(*v, precision))))
	case unpackingOK:
		u, ok := a.uvarint1()
		if !ok {
			u, ok = a.uvarint("float fixed", math.MaxUint32)
		}
		if ok {
			*v = float32(unzigzag32(uint32(u))) / fixedScale(precision)
		}
	}
}

func fixedScale(precision int) float32 {
	if precision < 0 {
		return 1
	}
	return float32(int32(1) << precision)
}

// FixedFromFloat returns the integer FloatFixed writes for v: v·2^precision truncated
// toward zero, NaN as 0, saturated to the int32 range.
func FixedFromFloat(v float32, precision int) int32 {
	return fixedScaled(v, float64(fixedScale(precision)))
}

// fixedScaled is FixedFromFloat with the scale computed by the caller, once for
// all the values of a vector.
func fixedScaled(v float32, scale float64) int32 {
	x := float64(v) * scale
	switch {
	case x != x:
		return 0
	case x >= math.MaxInt32:
		return math.MaxInt32
	case x <= math.MinInt32:
		return math.MinInt32
	}
	return int32(x)
}

// Quantize returns what v becomes after a FloatFixed round trip at precision.
func Quantize(v float32, precision int) float32 {
	return float32(FixedFromFloat(v, precision)) / fixedScale(precision)
}

// TransferString moves a string as a varint byte length and its UTF-8 bytes.
func (a *Archive) TransferString(s *string) {
	switch a.state {
	case packingOK:
		if !utf8.ValidString(*s) {
			a.fail(len(a.buf), "string", ErrBadUTF8, "")
			return
		}
		a.putUvarint(uint64(len(*s)))
		a.buf = append(a.buf, *s...)
		return
	case failed:
		return
	}
	start := a.pos
	n, ok := a.uvarint("string length", math.MaxUint32)
	if !ok {
		return
	}
	switch {
	case n > uint64(a.limits.MaxString):
		a.failf(start, "string length", ErrTooLarge, "length %d > limit %d", n, a.limits.MaxString)
		return
	case n > uint64(a.end-a.pos):
		a.failf(start, "string length", ErrTruncated, "length %d > remaining %d", n, a.end-a.pos)
		return
	}
	b := a.buf[a.pos : a.pos+int(n)]
	if !utf8.Valid(b) {
		a.fail(start, "string", ErrBadUTF8, "")
		return
	}
	*s = string(b)
	a.pos += int(n)
}

// TransferVec3 moves three raw float32s.
func (a *Archive) TransferVec3(v *mgl32.Vec3) {
	if a.state == packingOK { // direct calls for the long varints floats make
		a.putUvarint(uint64(math.Float32bits(v[0])))
		a.putUvarint(uint64(math.Float32bits(v[1])))
		a.putUvarint(uint64(math.Float32bits(v[2])))
		return
	}
	a.TransferFloat32(&v[0])
	a.TransferFloat32(&v[1])
	a.TransferFloat32(&v[2])
}

// TransferVec3Fixed moves three fixed-point values (positions use precision 3).
func (a *Archive) TransferVec3Fixed(v *mgl32.Vec3, precision int) {
	if a.state == packingOK && precision <= MaxPrecision { // one call for the three
		scale := float64(fixedScale(precision))
		a.putUvarint(uint64(zigzag32(fixedScaled(v[0], scale))))
		a.putUvarint(uint64(zigzag32(fixedScaled(v[1], scale))))
		a.putUvarint(uint64(zigzag32(fixedScaled(v[2], scale))))
		return
	}
	a.TransferFloatFixed(&v[0], precision)
	a.TransferFloatFixed(&v[1], precision)
	a.TransferFloatFixed(&v[2], precision)
}

// TransferOrientationFixed moves yaw, then pitch and roll unless yawOnly, as
// fixed-point values (orientations use precision 6).
func (a *Archive) TransferOrientationFixed(yaw, pitch, roll *float32, yawOnly bool, precision int) {
	if a.state == packingOK && precision <= MaxPrecision { // one call for the three
		scale := float64(fixedScale(precision))
		a.putUvarint(uint64(zigzag32(fixedScaled(*yaw, scale))))
		if !yawOnly {
			a.putUvarint(uint64(zigzag32(fixedScaled(*pitch, scale))))
			a.putUvarint(uint64(zigzag32(fixedScaled(*roll, scale))))
		}
		return
	}
	a.TransferFloatFixed(yaw, precision)
	if yawOnly {
		return
	}
	a.TransferFloatFixed(pitch, precision)
	a.TransferFloatFixed(roll, precision)
}
