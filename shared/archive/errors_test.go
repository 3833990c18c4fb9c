package archive_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
)

func TestMalformedInput(t *testing.T) {
	t.Parallel()
	persistent := func(body string) string { // a valid Database header around body
		n := 4 + 2 + len(mustHexString(body))
		return hexByte(n) + "000000 01 01 " + body
	}
	tests := []struct {
		name    string
		mode    archive.Mode
		data    string
		read    func(a *archive.Archive)
		wantErr error
		offset  int
	}{
		{"truncated varint", archive.Replication, "EF01 80", readInt32, archive.ErrTruncated, 2},
		{"11-byte varint", archive.Replication, "EF01 8080808080808080808001", readUint64, archive.ErrVarintOverflow, 2},
		{"10th byte too big", archive.Replication, "EF01 FFFFFFFFFFFFFFFFFF02", readUint64, archive.ErrVarintOverflow, 2},
		{"uint32 overflow", archive.Replication, "EF01 8080808010", readUint32, archive.ErrVarintOverflow, 2},
		{"uint16 overflow", archive.Replication, "EF01 808004", readUint16, archive.ErrVarintOverflow, 2},
		{"string beyond data", archive.Replication, "EF01 05 616263", readString, archive.ErrTruncated, 2},
		{"string beyond cap", archive.Replication, "EF01 FFFF7F", readString, archive.ErrTooLarge, 2},
		{"string not UTF-8", archive.Replication, "EF01 02 C328", readString, archive.ErrBadUTF8, 2},
		{"count beyond cap", archive.Replication, "EF01 FFFF7F", readSlice, archive.ErrTooLarge, 2},
		{"count beyond data", archive.Replication, "EF01 05 01 02", readSlice, archive.ErrTruncated, 5},
		{"bool count 0", archive.Replication, "EF01 80", readBool, archive.ErrBadBool, 2},
		{"bool count 6", archive.Replication, "EF01 86", readBool, archive.ErrBadBool, 2},
		{"bool bits beyond count", archive.Replication, "EF01 C1", readBool, archive.ErrBadBool, 2},
		{"bool missing", archive.Replication, "EF01", readBool, archive.ErrTruncated, 2},
		{"byte missing", archive.Replication, "EF01", readByte, archive.ErrTruncated, 2},
		{"empty replication header", archive.Replication, "", nil, archive.ErrTruncated, 0},
		{"policy over 32 bits", archive.Replication, "8080808080 01", nil, archive.ErrVarintOverflow, 0},
		{"persistent too short", archive.Database, "0800", nil, archive.ErrTruncated, 0},
		{"persistent size mismatch", archive.Database, "09000000 01 01 00", nil, archive.ErrSizeMismatch, 0},
		{"persistent version 0", archive.Database, "06000000 00 01", nil, archive.ErrBadHeader, 4},
		{"persistent version from the future", archive.Database, "06000000 02 01", nil, archive.ErrBadHeader, 4},
		{"disk checksum", archive.Disk, "0A000000 01 01 00000000", nil, archive.ErrChecksum, 6},
		{"nested size too small", archive.Database, persistent("03000000"), readTimer, archive.ErrSizeMismatch, 6},
		{"nested size beyond data", archive.Database, persistent("FF000000 00"), readTimer, archive.ErrSizeMismatch, 6},
		{"nested size disagrees with content", archive.Database, persistent("0A000000 00 00 00 00 01 00"), readTimer, archive.ErrSizeMismatch, 6},
		{"trailing data", archive.Replication, "EF01 01 01", readInt32, archive.ErrTrailingData, 3},
		{"unknown mode", archive.Mode(9), "00", nil, archive.ErrMisuse, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, err := archive.NewUnpacker(tc.mode, mustHexString(tc.data))
			if err == nil && tc.read != nil {
				tc.read(a)
				err = a.Done()
			}
			var ae *archive.Error
			if !errors.Is(err, tc.wantErr) || !errors.As(err, &ae) {
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
			if ae.Offset != tc.offset {
				t.Errorf("offset %d, want %d (%v)", ae.Offset, tc.offset, err)
			}
			if !strings.Contains(err.Error(), "offset") {
				t.Errorf("message %q does not say where", err)
			}
		})
	}
}

func TestErrorIsSticky(t *testing.T) {
	t.Parallel()
	a, err := archive.NewUnpacker(archive.Replication, mustHexString("EF01 80"))
	if err != nil {
		t.Fatal(err)
	}
	var v int32
	a.TransferInt32(&v)
	first := a.Err()
	s := "unchanged"
	a.TransferString(&s)
	a.TransferObject(&timer{})
	if a.Err() != first || s != "unchanged" {
		t.Fatalf("error changed to %v, string %q", a.Err(), s)
	}
}

func TestSerializerErrorIsKept(t *testing.T) {
	t.Parallel()
	a := archive.NewPacker(archive.Replication, archive.AllChannels)
	a.TransferObject(failing{})
	if !errors.Is(a.Err(), errFailing) {
		t.Fatalf("got %v", a.Err())
	}
}

var errFailing = errors.New("test: refused")

type failing struct{}

func (failing) Serialize(*archive.Archive) error { return errFailing }

func TestPackingMisuse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		fn   func(a *archive.Archive)
		want error
	}{
		{"invalid UTF-8", func(a *archive.Archive) { s := "\xff"; a.TransferString(&s) }, archive.ErrBadUTF8},
		{"precision too high", func(a *archive.Archive) { v := float32(1); a.TransferFloatFixed(&v, 31) }, archive.ErrMisuse},
		{"vector precision too high", func(a *archive.Archive) { v := mgl32.Vec3{1, 2, 3}; a.TransferVec3Fixed(&v, 31) }, archive.ErrMisuse},
		{"orientation precision too high", func(a *archive.Archive) {
			y, p, r := float32(1), float32(2), float32(3)
			a.TransferOrientationFixed(&y, &p, &r, false, 31)
		}, archive.ErrMisuse},
		{"nil object", func(a *archive.Archive) { a.TransferObject(nil) }, archive.ErrMisuse},
		{"skip while packing", func(a *archive.Archive) { a.SkipObject() }, archive.ErrMisuse},
		{"negative count", func(a *archive.Archive) { n := -1; a.TransferCount(&n) }, archive.ErrMisuse},
		{"too deep", func(a *archive.Archive) { a.TransferObject(&deep{}) }, archive.ErrTooLarge},
	}
	for _, tc := range tests {
		a := archive.NewPacker(archive.Replication, archive.AllChannels)
		tc.fn(a)
		if !errors.Is(a.Err(), tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, a.Err(), tc.want)
		}
	}
}

type deep struct{}

func (d *deep) Serialize(a *archive.Archive) error { a.TransferObject(d); return a.Err() }

func readInt32(a *archive.Archive)  { var v int32; a.TransferInt32(&v) }
func readUint16(a *archive.Archive) { var v uint16; a.TransferUint16(&v) }
func readUint32(a *archive.Archive) { var v uint32; a.TransferUint32(&v) }
func readUint64(a *archive.Archive) { var v uint64; a.TransferUint64(&v) }
func readString(a *archive.Archive) { var v string; a.TransferString(&v) }
func readBool(a *archive.Archive)   { var v bool; a.TransferBool(&v) }
func readByte(a *archive.Archive)   { var v byte; a.TransferByte(&v) }
func readTimer(a *archive.Archive)  { a.TransferObject(&timer{}) }
func readSlice(a *archive.Archive) {
	var v []property
	archive.TransferSlice(a, &v, transferProperty)
}

func mustHexString(s string) []byte {
	b, err := hexDecode(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		panic(err)
	}
	return b
}

// TestPackingErrorIsSticky: after a packer fails, every Transfer writes nothing,
// as after an unpacker fails every Transfer reads nothing.
func TestPackingErrorIsSticky(t *testing.T) {
	t.Parallel()
	a := archive.NewPacker(archive.Replication, archive.AllChannels)
	bad := "\xff"
	a.TransferString(&bad)
	first, n := a.Err(), a.Offset()
	if first == nil {
		t.Fatal("invalid UTF-8 packed")
	}
	e := sampleEntity()
	a.TransferObject(e)
	a.TransferBool(&e.Visible)
	a.TransferInt32(&e.Health)
	a.TransferUint64(&e.Prototype)
	a.TransferFloatFixed(&e.Yaw, 6)
	a.TransferString(&e.Name)
	archive.TransferSlice(a, &e.Properties, transferProperty)
	if a.Err() != first || a.Offset() != n {
		t.Fatalf("after the error: %v, %d bytes; want %v, %d bytes", a.Err(), a.Offset(), first, n)
	}
}

// TestZeroArchiveUnpacksNothing: the zero Archive is not a packer; a Transfer on it
// fails as an unpacker of no data does, rather than writing.
func TestZeroArchiveUnpacksNothing(t *testing.T) {
	t.Parallel()
	var a archive.Archive
	v := int32(5)
	a.TransferInt32(&v)
	if !errors.Is(a.Err(), archive.ErrTruncated) || a.Offset() != 0 || len(a.Bytes()) != 0 {
		t.Fatalf("zero archive: %v, offset %d, % X", a.Err(), a.Offset(), a.Bytes())
	}
}
