package archive

// boolsPerByte is how many bools share one packed byte.
const boolsPerByte = 5

// TransferBool moves a bool, packed with up to four neighbours into one byte (see
// the package doc).
func (a *Archive) TransferBool(v *bool) {
	if a.err != nil {
		return
	}
	if a.packing {
		a.packBool(*v)
		return
	}
	a.unpackBool(v)
}

func (a *Archive) packBool(v bool) {
	if a.boolOffset < 0 || a.boolCount == boolsPerByte {
		a.boolOffset = len(a.buf)
		a.boolCount = 0
		a.buf = append(a.buf, 0)
	}
	b := a.buf[a.boolOffset]
	if v {
		b |= 0x80 >> a.boolCount
	}
	a.boolCount++
	a.buf[a.boolOffset] = b&^7 | a.boolCount
}

func (a *Archive) unpackBool(v *bool) {
	if a.boolIndex == a.boolCount {
		if a.pos >= a.end {
			a.fail(a.pos, "bool", ErrTruncated, "")
			return
		}
		b := a.buf[a.pos]
		n := b & 7
		if n == 0 || n > boolsPerByte {
			a.failf(a.pos, "bool", ErrBadBool, "byte %#02x counts %d bools, want 1..5", b, n)
			return
		}
		// Bits between the last value and the count must be clear: one byte, one meaning.
		if unused := b &^ 7 &^ (0xF8 << (boolsPerByte - n)); unused != 0 {
			a.failf(a.pos, "bool", ErrBadBool, "byte %#02x has value bits beyond its count %d", b, n)
			return
		}
		a.pos++
		a.boolByte, a.boolCount, a.boolIndex = b, n, 0
	}
	*v = a.boolByte&(0x80>>a.boolIndex) != 0
	a.boolIndex++
}

// endBoolGroup closes the open bool group so that the next bool starts a new byte.
func (a *Archive) endBoolGroup() {
	a.boolOffset = -1
	a.boolCount, a.boolIndex = 0, 0
}
