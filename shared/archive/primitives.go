package archive

import (
	"math"
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

func (a *Archive) putUvarintLong(v uint64) {
	n := len(a.buf)
	if cap(a.buf)-n < maxVarintLen {
		a.buf = slices.Grow(a.buf, maxVarintLen)
	}
	b := a.buf[n : n+maxVarintLen : n+maxVarintLen]
	i := 0
	for v >= 0x80 {
		b[i] = byte(v) | 0x80
		v >>= 7
		i++
	}
	b[i] = byte(v)
	a.buf = a.buf[:n+i+1]
}

// uvarint reads a varint into *v, failing when it is truncated, longer than ten
// bytes, or larger than max.
func (a *Archive) uvarint(v *uint64, op string, max uint64) {
	start := a.pos
	if start < a.end && a.buf[start] < 0x80 { // one-byte fast path
		a.pos++
		*v = uint64(a.buf[start])
		return
	}
	var x uint64
	for i := 0; i < maxVarintLen; i++ {
		if a.pos >= a.end {
			a.failf(start, op, ErrTruncated, "varint cut after %d bytes", i)
			return
		}
		b := a.buf[a.pos]
		a.pos++
		if i == maxVarintLen-1 && b > 1 {
			a.fail(start, op, ErrVarintOverflow, "value exceeds 64 bits")
			return
		}
		x |= uint64(b&0x7f) << (7 * i)
		if b < 0x80 {
			if x > max {
				a.failf(start, op, ErrVarintOverflow, "value %d exceeds %d", x, max)
				return
			}
			*v = x
			return
		}
	}
	a.fail(start, op, ErrVarintOverflow, "varint longer than 10 bytes")
}

// transferUvarint moves an unsigned value of at most max through a varint.
func (a *Archive) transferUvarint(v *uint64, op string, max uint64) {
	if a.packing {
		a.putUvarint(*v)
		return
	}
	a.uvarint(v, op, max)
}

func zigzag32(v int32) uint32   { return uint32(v<<1) ^ uint32(v>>31) }
func unzigzag32(u uint32) int32 { return int32(u>>1) ^ -int32(u&1) }
func zigzag64(v int64) uint64   { return uint64(v<<1) ^ uint64(v>>63) }
func unzigzag64(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// TransferByte moves one raw byte.
func (a *Archive) TransferByte(v *byte) {
	if a.err != nil {
		return
	}
	if a.packing {
		a.buf = append(a.buf, *v)
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
	if a.err != nil {
		return
	}
	u := uint64(*v)
	a.transferUvarint(&u, "uint16", math.MaxUint16)
	*v = uint16(u)
}

// TransferUint32 moves a uint32 as a plain varint.
func (a *Archive) TransferUint32(v *uint32) {
	if a.err != nil {
		return
	}
	if a.packing {
		a.putUvarint(uint64(*v))
		return
	}
	var u uint64
	a.uvarint(&u, "uint32", math.MaxUint32)
	*v = uint32(u)
}

// TransferUint64 moves a uint64 as a plain varint.
func (a *Archive) TransferUint64(v *uint64) {
	if a.err != nil {
		return
	}
	if a.packing {
		a.putUvarint(*v)
		return
	}
	a.uvarint(v, "uint64", math.MaxUint64)
}

// TransferInt32 moves an int32 as a zig-zag varint.
func (a *Archive) TransferInt32(v *int32) {
	if a.err != nil {
		return
	}
	if a.packing {
		a.putUvarint(uint64(zigzag32(*v)))
		return
	}
	var u uint64
	a.uvarint(&u, "int32", math.MaxUint32)
	*v = unzigzag32(uint32(u))
}

// TransferInt64 moves an int64 as a zig-zag varint.
func (a *Archive) TransferInt64(v *int64) {
	if a.err != nil {
		return
	}
	u := zigzag64(*v)
	a.transferUvarint(&u, "int64", math.MaxUint64)
	*v = unzigzag64(u)
}

// TransferFloat32 moves a float32 exactly: its IEEE bits as a plain varint.
func (a *Archive) TransferFloat32(v *float32) {
	if a.err != nil {
		return
	}
	if a.packing {
		a.putUvarint(uint64(math.Float32bits(*v)))
		return
	}
	var u uint64
	a.uvarint(&u, "float32", math.MaxUint32)
	*v = math.Float32frombits(uint32(u))
}

// MaxPrecision is the largest precision FloatFixed accepts: 2^30 still fits int32.
const MaxPrecision = 30

// TransferFloatFixed moves v as the zig-zag varint of int32(v·2^precision), truncated
// toward zero (precision < 0 means scale 1). Unpacking yields that integer / 2^precision.
// NaN packs as 0 and values beyond the int32 range saturate, so that every platform
// (native and WebAssembly) writes the same bytes.
func (a *Archive) TransferFloatFixed(v *float32, precision int) {
	if a.err != nil {
		return
	}
	if precision > MaxPrecision {
		a.failf(a.Offset(), "float fixed", ErrMisuse, "precision %d > %d", precision, MaxPrecision)
		return
	}
	if a.packing {
		a.putUvarint(uint64(zigzag32(FixedFromFloat(*v, precision))))
		return
	}
	var u uint64
	a.uvarint(&u, "float fixed", math.MaxUint32)
	if a.err == nil {
		*v = float32(unzigzag32(uint32(u))) / fixedScale(precision)
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
	x := float64(v) * float64(fixedScale(precision))
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
	if a.err != nil {
		return
	}
	start := a.Offset()
	if a.packing {
		if !utf8.ValidString(*s) {
			a.fail(start, "string", ErrBadUTF8, "")
			return
		}
		a.putUvarint(uint64(len(*s)))
		a.buf = append(a.buf, *s...)
		return
	}
	var n uint64
	a.uvarint(&n, "string length", math.MaxUint32)
	if a.err != nil {
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
	a.TransferFloat32(&v[0])
	a.TransferFloat32(&v[1])
	a.TransferFloat32(&v[2])
}

// TransferVec3Fixed moves three fixed-point values (positions use precision 3).
func (a *Archive) TransferVec3Fixed(v *mgl32.Vec3, precision int) {
	a.TransferFloatFixed(&v[0], precision)
	a.TransferFloatFixed(&v[1], precision)
	a.TransferFloatFixed(&v[2], precision)
}

// TransferOrientationFixed moves yaw, then pitch and roll unless yawOnly, as
// fixed-point values (orientations use precision 6).
func (a *Archive) TransferOrientationFixed(yaw, pitch, roll *float32, yawOnly bool, precision int) {
	a.TransferFloatFixed(yaw, precision)
	if yawOnly {
		return
	}
	a.TransferFloatFixed(pitch, precision)
	a.TransferFloatFixed(roll, precision)
}
