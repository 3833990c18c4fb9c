package archive_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/twinframe/twinframe/shared/archive"
)

// TestVarintLengths packs varints of every length, checking them against
// encoding/binary, and reads them back, alone at the end of the data
// and followed by more, so that both the byte-at-a-time and the eight-byte reader
// see each length, and checks the value and where the next value starts.
func TestVarintLengths(t *testing.T) {
	t.Parallel()
	for length := 1; length <= 10; length++ {
		// The smallest and the largest value of this many bytes.
		low := uint64(1) << (7 * (length - 1))
		if length == 1 {
			low = 0
		}
		high := uint64(math.MaxUint64)
		if length < 10 {
			high = uint64(1)<<(7*length) - 1
		}
		for _, v := range []uint64{low, high, low | high>>1&^(high>>2)} {
			for trailing := 0; trailing <= 9; trailing++ {
				t.Run(fmt.Sprintf("%d-bytes/%#x/then-%d", length, v, trailing), func(t *testing.T) {
					p := archive.NewPacker(archive.Replication, archive.AllChannels)
					in := v
					p.TransferUint64(&in)
					for i := range trailing {
						b := byte(i + 1)
						p.TransferByte(&b)
					}
					if got, want := p.Bytes()[2:len(p.Bytes())-trailing], binary.AppendUvarint(nil, v); !bytes.Equal(got, want) || len(got) != length {
						t.Fatalf("packed %#x as % X, want % X (%d bytes)", v, got, want, length)
					}
					u, err := archive.NewUnpacker(archive.Replication, p.Bytes())
					if err != nil {
						t.Fatal(err)
					}
					var out uint64
					u.TransferUint64(&out)
					for i := range trailing {
						var b byte
						u.TransferByte(&b)
						if b != byte(i+1) {
							t.Fatalf("byte %d after the varint = %d, want %d", i, b, i+1)
						}
					}
					if err := u.Done(); err != nil || out != v {
						t.Fatalf("read %#x (%v), want %#x", out, err, v)
					}
				})
			}
		}
	}
}

// TestVarintErrorsBeforeMoreData repeats the malformed varints of TestMalformedInput
// with enough data after them for the eight-byte reader to take them.
func TestVarintErrorsBeforeMoreData(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		data    string
		read    func(a *archive.Archive)
		wantErr error
	}{
		{"uint32 overflow", "EF01 8080808010 010101", readUint32, archive.ErrVarintOverflow},
		{"uint16 overflow", "EF01 808004 0101010101", readUint16, archive.ErrVarintOverflow},
		{"int32 of 6 bytes", "EF01 808080808001 0101", readInt32, archive.ErrVarintOverflow},
		{"11-byte varint", "EF01 8080808080808080808001 01", readUint64, archive.ErrVarintOverflow},
		{"10th byte too big", "EF01 FFFFFFFFFFFFFFFFFF02 01", readUint64, archive.ErrVarintOverflow},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, err := archive.NewUnpacker(archive.Replication, mustHexString(tc.data))
			if err != nil {
				t.Fatal(err)
			}
			tc.read(a)
			var ae *archive.Error
			if err := a.Err(); !errors.Is(err, tc.wantErr) || !errors.As(err, &ae) || ae.Offset != 2 {
				t.Fatalf("error %v, want %v at offset 2", err, tc.wantErr)
			}
		})
	}
}
