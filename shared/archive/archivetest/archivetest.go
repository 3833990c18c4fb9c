// Package archivetest checks Serializer implementations against the archive format.
// RoundTrip packs a value in every mode, unpacks it into a fresh one, and compares.
package archivetest

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/twinframe/twinframe/shared/archive"
)

// AllModes lists the four archive modes in their numeric order.
var AllModes = []archive.Mode{archive.Migration, archive.Database, archive.Replication, archive.Disk}

// RoundTrip packs in with policy in each mode, unpacks into fresh(), and fails the
// test unless the result equals want(mode) (in itself when want is nil), the unpacker
// consumed every byte, and packing the result again gives the same bytes.
func RoundTrip[T archive.Serializer](t testing.TB, policy archive.Policy, in T, fresh func() T, want func(archive.Mode) T) {
	t.Helper()
	for _, mode := range AllModes {
		p := archive.NewPacker(mode, policy)
		p.TransferObject(in)
		if err := p.Err(); err != nil {
			t.Errorf("%v: pack: %v", mode, err)
			continue
		}
		packed := bytes.Clone(p.Bytes())
		out := fresh()
		u, err := archive.NewUnpacker(mode, packed)
		if err != nil {
			t.Errorf("%v: header: %v", mode, err)
			continue
		}
		u.TransferObject(out)
		if err := u.Done(); err != nil {
			t.Errorf("%v: unpack % x: %v", mode, packed, err)
			continue
		}
		expect := in
		if want != nil {
			expect = want(mode)
		}
		if !reflect.DeepEqual(out, expect) {
			t.Errorf("%v: round trip\n got %+v\nwant %+v", mode, out, expect)
		}
		again := archive.NewPacker(mode, policy)
		again.TransferObject(out)
		if !bytes.Equal(again.Bytes(), packed) {
			t.Errorf("%v: repacking changed the bytes\nfirst  % x\nsecond % x", mode, packed, again.Bytes())
		}
	}
}
