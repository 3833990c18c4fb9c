package archive

// boolsPerByte is how many bools share one packed byte.
const boolsPerByte = 5

// TransferBool moves a bool, packed with up to four neighbours into one byte (see
// the package doc).
func (a *Archive) TransferBool(v *bool) {
	transferBoolFront(a, v, (*Archive).transferBool)
}

// transferBoolFront is TransferBool's front, inlined into each Serialize: it packs a
// bool into the open group's byte when there is one with room, and otherwise calls
// slow. slow is a parameter for the inliner's sake, as with transfer's.
func transferBoolFront(a *Archive, v *bool, slow func(*Archive, *bool)) {
	if n := a.boolCount; a.state == packingOK && n-1 < boolsPerByte-1 {
		b := a.buf[a.boolOffset]&^7 | (n + 1)
		if *v {
			b |= 0x80 >> n
		}
		a.buf[a.boolOffset] = b
		a.boolCount = n + 1
		return
	}
	slow(a, v)
}

// transferBool is TransferBool past its inlined case.
func (a *Archive) transferBool(v *bool) {
	switch a.state {
	case packingOK:
		a.packBool(*v)
	case unpackingOK:
		if a.boolIndex == a.boolCount && !a.nextBoolByte() {
			return
		}
		*v = a.boolByte&(0x80>>a.boolIndex) != 0
		a.boolIndex++
	}
}

func (a *Archive) packBool(v bool) {
	n := a.boolCount
	if n == 0 || n == boolsPerByte { // no open group, or a full one
		a.boolOffset = len(a.buf)
		a.buf = append(a.buf, 0)
		n = 0
	}
	b := a.buf[a.boolOffset] &^ 7
	if v {
		b |= 0x80 >> n
	}
	n++
	a.buf[a.boolOffset] = b | n
	a.boolCount = n
}

// nextBoolByte reads and checks the byte of the next bool group and caches it.
func (a *Archive) nextBoolByte() bool {
	if a.pos >= a.end {
		a.fail(a.pos, "bool", ErrTruncated, "")
		return false
	}
	b := a.buf[a.pos]
	n := b & 7
	if n == 0 || n > boolsPerByte {
		a.failf(a.pos, "bool", ErrBadBool, "byte %#02x counts %d bools, want 1..5", b, n)
		return false
	}
	// Bits between the last value and the count must be clear: one byte, one meaning.
	if unused := b &^ 7 &^ (0xF8 << (boolsPerByte - n)); unused != 0 {
		a.failf(a.pos, "bool", ErrBadBool, "byte %#02x has value bits beyond its count %d", b, n)
		return false
	}
	a.pos++
	a.boolByte, a.boolCount, a.boolIndex = b, n, 0
	return true
}

// endBoolGroup closes the open bool group so that the next bool starts a new byte.
func (a *Archive) endBoolGroup() {
	a.boolCount, a.boolIndex = 0, 0
}
