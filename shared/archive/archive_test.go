package archive_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
)

// pack runs fn on a replication packer with AllChannels and returns the bytes.
func pack(t *testing.T, fn func(a *archive.Archive)) []byte {
	t.Helper()
	a := archive.NewPacker(archive.Replication, archive.AllChannels)
	fn(a)
	if err := a.Err(); err != nil {
		t.Fatalf("pack: %v", err)
	}
	return a.Bytes()
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func bools(vs ...bool) func(a *archive.Archive) {
	return func(a *archive.Archive) {
		for i := range vs {
			a.TransferBool(&vs[i])
		}
	}
}

const T, F = true, false

// Known answers for each primitive of docs/PROTOCOL.md §4.2, by hand, beside the
// generated vectors of §13 (shared/protocol/testdata/vectors).
func TestReplicationVectors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		fn   func(a *archive.Archive)
		want string
	}{
		{"bools T,F,T,F,T,F", bools(T, F, T, F, T, F), "EF01 AD 01"},
		{"bool T", bools(T), "EF01 81"},
		{"bool F", bools(F), "EF01 01"},
		{"bools T,T", bools(T, T), "EF01 C2"},
		{"bools F,T", bools(F, T), "EF01 42"},
		{"bools F,F,F", bools(F, F, F), "EF01 03"},
		{"bools T,F,T", bools(T, F, T), "EF01 A3"},
		{"bools T x5", bools(T, T, T, T, T), "EF01 FD"},
		{"bools T x6", bools(T, T, T, T, T, T), "EF01 FD 81"},
		{"int32 -200", func(a *archive.Archive) { v := int32(-200); a.TransferInt32(&v) }, "EF01 8F03"},
		{"float32 100", func(a *archive.Archive) { v := float32(100); a.TransferFloat32(&v) }, "EF01 8080A09604"},
		{"fixed 2.125 p3", func(a *archive.Archive) { v := float32(2.125); a.TransferFloatFixed(&v, 3) }, "EF01 22"},
		{"fixed -3.328125 p6", func(a *archive.Archive) { v := float32(-3.328125); a.TransferFloatFixed(&v, 6) }, "EF01 A903"},
		{"fixed 12.3689 p3 truncates", func(a *archive.Archive) { v := float32(12.3689); a.TransferFloatFixed(&v, 3) }, "EF01 C401"},
		{"fixed precision<0 is scale 1", func(a *archive.Archive) { v := float32(-2.9); a.TransferFloatFixed(&v, -1) }, "EF01 03"},
		{"string test", func(a *archive.Archive) { s := "test"; a.TransferString(&s) }, "EF01 04 74657374"},
		{"uint16 300", func(a *archive.Archive) { v := uint16(300); a.TransferUint16(&v) }, "EF01 AC02"},
		{"uint32 max", func(a *archive.Archive) { v := uint32(math.MaxUint32); a.TransferUint32(&v) }, "EF01 FFFFFFFF0F"},
		{"int64 -1", func(a *archive.Archive) { v := int64(-1); a.TransferInt64(&v) }, "EF01 01"},
		{"uint64 max", func(a *archive.Archive) { v := uint64(math.MaxUint64); a.TransferUint64(&v) }, "EF01 FFFFFFFFFFFFFFFFFF01"},
		{"byte is raw", func(a *archive.Archive) { v := byte(0xFE); a.TransferByte(&v) }, "EF01 FE"},
		{"vec3 fixed p3", func(a *archive.Archive) { v := mgl32.Vec3{1, -1, 0.5}; a.TransferVec3Fixed(&v, 3) }, "EF01 10 0F 08"},
		{"yaw only", func(a *archive.Archive) {
			y, p, r := float32(1), float32(2), float32(3)
			a.TransferOrientationFixed(&y, &p, &r, true, 6)
		}, "EF01 8001"},
		{"bools packed across other values", func(a *archive.Archive) {
			b1, i, b2, s, b3, b4, b5, b6 := T, int32(1), F, "x", T, T, F, T
			a.TransferBool(&b1)
			a.TransferInt32(&i)
			a.TransferBool(&b2)
			a.TransferString(&s)
			a.TransferBool(&b3)
			a.TransferBool(&b4)
			a.TransferBool(&b5)
			a.TransferBool(&b6) // sixth: a new byte
		}, "EF01 B5 02 01 78 81"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := pack(t, tc.fn)
			if want := mustHex(t, tc.want); !bytes.Equal(got, want) {
				t.Errorf("got % X, want % X", got, want)
			}
		})
	}
}

func TestBoolsReadBack(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 4, 5, 6, 11} {
		in := make([]bool, n)
		for i := range in {
			in[i] = i%3 != 1
		}
		data := pack(t, bools(in...))
		u, err := archive.NewUnpacker(archive.Replication, data)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]bool, n)
		for i := range out {
			u.TransferBool(&out[i])
		}
		if err := u.Done(); err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		for i := range in {
			if in[i] != out[i] {
				t.Fatalf("n=%d: bool %d = %v, want %v", n, i, out[i], in[i])
			}
		}
	}
}

func TestFloatFixed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in        float32
		precision int
		want      float32
	}{
		{12.3689, 3, 12.25},
		{-12.3689, 3, -12.25}, // toward zero
		{0.015625, 6, 0.015625},
		{float32(math.NaN()), 3, 0},
		{float32(math.Inf(1)), 3, math.MaxInt32 / 8},
		{1e30, 0, math.MaxInt32},
		{-1e30, 0, math.MinInt32},
	}
	for _, tc := range tests {
		v := tc.in
		data := pack(t, func(a *archive.Archive) { a.TransferFloatFixed(&v, tc.precision) })
		u, _ := archive.NewUnpacker(archive.Replication, data)
		var got float32
		u.TransferFloatFixed(&got, tc.precision)
		if err := u.Done(); err != nil || got != tc.want {
			t.Errorf("FloatFixed(%v, %d) → %v (%v), want %v", tc.in, tc.precision, got, err, tc.want)
		}
		if q := archive.Quantize(tc.in, tc.precision); q != tc.want {
			t.Errorf("Quantize(%v, %d) = %v, want %v", tc.in, tc.precision, q, tc.want)
		}
	}
}

func TestPersistentHeader(t *testing.T) {
	t.Parallel()
	for _, mode := range []archive.Mode{archive.Database, archive.Disk} {
		a := archive.NewPacker(mode, archive.Proximity)
		v := int32(-200)
		a.TransferInt32(&v)
		got := a.Bytes()
		// size, version 1, build 1, the value; Disk adds a CRC-32 trailer.
		wantLen := 4 + 1 + 1 + 2
		if mode == archive.Disk {
			wantLen += 4
		}
		if len(got) != wantLen || int(got[0]) != wantLen || got[1]|got[2]|got[3] != 0 {
			t.Fatalf("%v: % X: want a %d-byte archive with its size first", mode, got, wantLen)
		}
		if !bytes.Equal(got[4:8], []byte{0x01, 0x01, 0x8F, 0x03}) {
			t.Errorf("%v: body % X", mode, got[4:8])
		}
		if !bytes.Equal(a.Bytes(), got) {
			t.Errorf("%v: Bytes is not idempotent", mode)
		}
		u, err := archive.NewUnpacker(mode, got)
		if err != nil {
			t.Fatal(err)
		}
		if u.Version() != archive.Version || u.Build() != archive.BuildNumber || u.Policy() != archive.AllChannels {
			t.Errorf("%v: version %d build %d policy %#x", mode, u.Version(), u.Build(), u.Policy())
		}
	}
}

func TestMigrationHeaderIsBuildNumber(t *testing.T) {
	t.Parallel()
	a := archive.NewPacker(archive.Migration, archive.Owner)
	if got := a.Bytes(); !bytes.Equal(got, []byte{byte(archive.BuildNumber)}) {
		t.Fatalf("migration header % X", got)
	}
	if _, err := archive.NewUnpacker(archive.Migration, []byte{byte(archive.BuildNumber + 1)}); !errors.Is(err, archive.ErrBadHeader) {
		t.Fatalf("other build accepted: %v", err)
	}
}

func TestPolicy(t *testing.T) {
	t.Parallel()
	a := archive.NewPacker(archive.Replication, archive.Proximity|archive.Owner)
	u, err := archive.NewUnpacker(archive.Replication, a.Bytes())
	if err != nil || u.Policy() != archive.Proximity|archive.Owner || !u.Policy().Has(archive.Owner) || u.Policy().Has(archive.Party) {
		t.Fatalf("policy %#x, %v", u.Policy(), err)
	}
	if !u.IsReplication() || u.IsPersistent() || u.IsPacking() || u.Mode() != archive.Replication {
		t.Fatal("mode predicates")
	}
}

func TestResetReusesBuffer(t *testing.T) {
	t.Parallel()
	a := archive.NewPacker(archive.Replication, archive.AllChannels)
	s := "hello"
	a.TransferString(&s)
	first := bytes.Clone(a.Bytes())
	a.Reset(archive.Replication, archive.AllChannels)
	a.TransferString(&s)
	if !bytes.Equal(first, a.Bytes()) {
		t.Fatalf("after Reset % X, want % X", a.Bytes(), first)
	}
}

func hexDecode(s string) ([]byte, error) { return hex.DecodeString(s) }

func hexByte(n int) string { return hex.EncodeToString([]byte{byte(n)}) }
