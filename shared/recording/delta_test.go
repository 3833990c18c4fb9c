package recording

import (
	"bytes"
	"hash/fnv"
	"slices"
	"testing"
)

// noise returns n bytes that do not repeat (FNV-1a of a counter), so that only
// the shift a case makes can align them.
func noise(n int, seed byte) []byte {
	out := make([]byte, 0, n+8)
	for i := 0; len(out) < n; i++ {
		h := fnv.New64a()
		h.Write([]byte{seed, byte(i), byte(i >> 8), byte(i >> 16)})
		out = h.Sum(out)
	}
	return out[:n]
}

// TestAlign: the shifts the writer picks pair a state with the one before it
// across an insertion or a deletion (so the XOR is zeros but for the change),
// and any state XOR its predecessor decodes back to itself.
func TestAlign(t *testing.T) {
	t.Parallel()
	base := noise(2000, 1)
	splice := func(b []byte, at, del int, ins []byte) []byte {
		return slices.Concat(b[:at], ins, b[at+del:])
	}
	changed := bytes.Clone(base)
	copy(changed[500:], "four")
	tests := []struct {
		name       string
		prev, cur  []byte
		offs       []int // the shifts' offsets, want
		maxNonzero int   // bytes of the XOR that are not zero, at most
	}{
		{"same", base, base, nil, 0},
		{"4 bytes changed in place", base, changed, nil, 4},
		{"grown at the end", base, append(bytes.Clone(base), "tail"...), nil, 4},
		{"cut at the end", base, base[:1900], nil, 0},
		{"5 bytes inserted", base, splice(base, 300, 0, noise(5, 2)), []int{-5}, 5},
		{"7 bytes deleted", base, splice(base, 300, 7, nil), []int{7}, 0},
		{"a varint grew by a byte", base, splice(base, 300, 1, []byte{0x81, 0x01}), []int{-1}, 2},
		{"inserted, then deleted further on", base, splice(splice(base, 1200, 40, nil), 300, 0, noise(30, 3)),
			[]int{-30, 10}, 30},
		{"no state before", nil, base, nil, len(base)},
		{"empty", base, nil, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			shifts := align(tt.cur, tt.prev, nil)
			var offs []int
			for _, s := range shifts {
				offs = append(offs, s.off)
			}
			if !slices.Equal(offs, tt.offs) {
				t.Errorf("shifts %v, want offsets %v", shifts, tt.offs)
			}
			x := xorShifted(nil, tt.cur, tt.prev, shifts)
			nonzero := len(x) - bytes.Count(x, []byte{0})
			if nonzero > tt.maxNonzero {
				t.Errorf("%d bytes of the XOR are not zero, want at most %d", nonzero, tt.maxNonzero)
			}
			if back := xorShifted(x, x, tt.prev, shifts); !bytes.Equal(back, tt.cur) {
				t.Errorf("the XOR does not decode back to the state")
			}
		})
	}
}

// TestXorShiftedPairs: bytes a shift pairs with no byte of the state before
// (before its start, after its end) are stored as they are.
func TestXorShiftedPairs(t *testing.T) {
	t.Parallel()
	prev := []byte{1, 2, 3, 4}
	cur := []byte{10, 20, 30, 40, 50, 60}
	tests := []struct {
		shifts []shift
		want   []byte
	}{
		{nil, []byte{10 ^ 1, 20 ^ 2, 30 ^ 3, 40 ^ 4, 50, 60}},
		{[]shift{{0, -2}}, []byte{10, 20, 30 ^ 1, 40 ^ 2, 50 ^ 3, 60 ^ 4}},
		{[]shift{{1, 2}}, []byte{10 ^ 1, 20 ^ 4, 30, 40, 50, 60}},
		{[]shift{{2, -2}, {4, 0}}, []byte{10 ^ 1, 20 ^ 2, 30 ^ 1, 40 ^ 2, 50, 60}},
	}
	for _, tt := range tests {
		if got := xorShifted(nil, cur, prev, tt.shifts); !bytes.Equal(got, tt.want) {
			t.Errorf("shifts %v: %v, want %v", tt.shifts, got, tt.want)
		}
	}
}
