package archive_test

import (
	"testing"

	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/archive/archivetest"
)

func TestRoundTripAllModes(t *testing.T) {
	t.Parallel()
	in := sampleEntity()
	archivetest.RoundTrip(t, archive.AllChannels, in,
		func() *testEntity { return &testEntity{} },
		func(m archive.Mode) *testEntity {
			want := *sampleEntity()
			if m != archive.Database && m != archive.Disk {
				want.SaveOnly = 0
			}
			return &want
		})
}

func TestNestedObjectIsSizedInPersistentModes(t *testing.T) {
	t.Parallel()
	tm := &timer{Current: 1, Paused: true}
	for _, tc := range []struct {
		mode archive.Mode
		want int // bytes of the nested object
	}{
		{archive.Replication, 5}, {archive.Migration, 5}, {archive.Database, 9}, {archive.Disk, 9},
	} {
		a := archive.NewPacker(tc.mode, archive.AllChannels)
		before := a.Offset()
		a.TransferObject(tm)
		if got := a.Offset() - before; got != tc.want || a.Err() != nil {
			t.Errorf("%v: nested object took %d bytes (%v), want %d", tc.mode, got, a.Err(), tc.want)
		}
	}
}

func TestSkipObject(t *testing.T) {
	t.Parallel()
	a := archive.NewPacker(archive.Database, archive.AllChannels)
	before, after := true, int32(7)
	a.TransferBool(&before)
	a.TransferObject(&timer{Current: 5, Paused: true})
	a.TransferInt32(&after)
	u, err := archive.NewUnpacker(archive.Database, a.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var b bool
	var v int32
	u.TransferBool(&b)
	u.SkipObject()
	u.TransferInt32(&v)
	if err := u.Done(); err != nil || !b || v != 7 {
		t.Fatalf("after skip: %v %v %v", b, v, err)
	}
}
