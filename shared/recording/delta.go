package recording

import (
	"bytes"
	"crypto/subtle"
	"encoding/binary"
	"math/bits"
)

// A delta frame stores each region's state XOR the region's state of the frame
// before, which turns what did not change into zeros that flate's fastest level
// squeezes. A state's bytes shift when something in it changes length (an entity
// spawned, a varint grew), and a plain XOR is noise from there on; so the writer
// lists shifts: from byte At of the state on, byte i pairs with byte i+Off of the
// state before (bytes paired with none are stored as they are). With no shifts
// that is the XOR over the common length. Any list decodes; the writer's choice
// only decides the size.

// shift: from byte at of the state on, byte i pairs with byte i+off of the state
// before (until the next shift).
type shift struct {
	at, off int
}

// maxShifts caps a region state's shifts (the writer stops aligning there).
const maxShifts = 4096

// How align looks for a shift: after a mismatch, a change in place is seen as
// alignWindow bytes that match again within alignSkip bytes; otherwise the next
// alignWindow bytes are looked for within alignReach bytes either side of their
// place in the state before.
const (
	alignWindow = 8
	alignSkip   = 16
	alignReach  = 64
	// alignConfirm: a match this long is taken without looking further.
	alignConfirm = 64
)

// align appends to shifts the shifts that pair cur's bytes with prev's: it walks
// cur and, where the pairing stops matching and does not match again within a
// few bytes, looks for cur's next bytes near their place in prev.
func align(cur, prev []byte, shifts []shift) []shift {
	first := len(shifts)
	d := 0 // the current shift's offset
	for i := 0; i < len(cur) && len(shifts)-first < maxShifts; {
		j := i + d
		if j < 0 || j >= len(prev) {
			break
		}
		i += matchLen(cur[i:], prev[j:])
		if i >= len(cur) || i+d >= len(prev) {
			break
		}
		if a := matchWithin(cur, prev, i, d); a >= 0 {
			i += a + alignWindow // a change in place
			continue
		}
		nd, a, ok := search(cur, prev, i, d)
		switch {
		case !ok:
			i += alignSkip
		case nd != d:
			d = nd
			shifts = append(shifts, shift{at: i, off: d})
			fallthrough
		default:
			i += a + alignWindow
		}
	}
	return shifts
}

// matchWithin returns the first a in 1..alignSkip at which alignWindow bytes of cur
// from i+a match prev with offset d, or -1.
func matchWithin(cur, prev []byte, i, d int) int {
	for a := 1; a <= alignSkip; a++ {
		c, p := i+a, i+a+d
		if c+alignWindow > len(cur) || p+alignWindow > len(prev) {
			break
		}
		if bytes.Equal(cur[c:c+alignWindow], prev[p:p+alignWindow]) {
			return a
		}
	}
	return -1
}

// search looks for alignWindow bytes of cur from i+a (a in 0..alignSkip) within
// alignReach bytes of their place in prev with offset d; of the places found it
// takes the one whose match runs longest (a state repeats itself, entity after
// entity, and a window also matches in the entity next to its own), nearest to d
// on a tie. It returns the offset that pairs them and a.
func search(cur, prev []byte, i, d int) (off, a int, ok bool) {
	best := 0
	for skip := 0; skip <= alignSkip && i+skip+alignWindow <= len(cur); skip++ {
		c := i + skip
		lo, hi := max(c+d-alignReach, 0), min(c+d+alignReach+alignWindow, len(prev))
		for lo+alignWindow <= hi && best < alignConfirm {
			p := bytes.Index(prev[lo:hi], cur[c:c+alignWindow])
			if p < 0 {
				break
			}
			p += lo
			n := matchLen(cur[c:min(c+alignConfirm, len(cur))], prev[p:])
			if nd := p - c; n > best || n == best && abs(nd-d) < abs(off-d) {
				best, off, a, ok = n, nd, skip, true
			}
			lo = p + 1
		}
		if best >= alignConfirm {
			break
		}
	}
	return off, a, ok
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// matchLen returns how many bytes a and b have in common from their starts,
// comparing eight at a time.
func matchLen(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+8 <= n; i += 8 {
		if x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// xorShifted returns cur with each byte XOR the byte of prev the shifts pair it
// with (bytes paired with none as they are), in dst's storage when it is large
// enough; dst may be cur itself. XOR is its own inverse: the reader rebuilds a
// state as the same function of the stored bytes, prev and the shifts.
func xorShifted(dst, cur, prev []byte, shifts []shift) []byte {
	dst = append(dst[:0], cur...)
	from, off := 0, 0
	for s := 0; s <= len(shifts); s++ {
		to := len(cur)
		if s < len(shifts) {
			to = shifts[s].at
		}
		if lo, hi := max(from, -off), min(to, len(prev)-off); lo < hi {
			subtle.XORBytes(dst[lo:hi], dst[lo:hi], prev[lo+off:hi+off])
		}
		if s < len(shifts) {
			from, off = shifts[s].at, shifts[s].off
		}
	}
	return dst
}
