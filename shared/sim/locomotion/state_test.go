package locomotion_test

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/archive/archivetest"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
)

func walking() *locomotion.State {
	return &locomotion.State{
		Entity: 42, Frame: 1000,
		Fields:   locomotion.HasPosition | locomotion.HasYaw | locomotion.HasSpeed | locomotion.HasPath | locomotion.Moving,
		Position: mgl32.Vec3{100.125, 200.5, 0}, Yaw: 1.5, Speed: 6.25, Goal: 1,
		Path: []locomotion.PathNode{
			{Point: mgl32.Vec3{100.125, 200.5, 0}},
			{Point: mgl32.Vec3{110, 205.25, 0}, Side: locomotion.Left, Radius: 0.5},
			{Point: mgl32.Vec3{-3000.375, 205.25, 0}},
		},
	}
}

func TestRoundTripAllModes(t *testing.T) {
	t.Parallel()
	archivetest.RoundTrip(t, archive.Proximity, walking(), func() *locomotion.State { return &locomotion.State{} }, nil)
}

func TestPathNodesAreDeltas(t *testing.T) {
	t.Parallel()
	s := &locomotion.State{Entity: 1, Fields: locomotion.HasPosition | locomotion.HasPath,
		Position: mgl32.Vec3{1000, 1000, 0},
		Path:     []locomotion.PathNode{{Point: mgl32.Vec3{1000, 1000, 0}}, {Point: mgl32.Vec3{1001, 1000, 0}}}}
	a := archive.NewPacker(archive.Replication, archive.Proximity)
	a.TransferObject(s)
	// policy 01 | entity 01 | frame 00 | fields 09 | position 1000 → 8000 → zig-zag 16000 = 80 7D,
	// twice, then 00 | goal 00 | count 02 | node 0: deltas 00 00 00, side 00 | node 1: dx 8 → 10, 00 00, side 00
	want := []byte{0x01, 0x01, 0x00, 0x09, 0x80, 0x7D, 0x80, 0x7D, 0x00, 0x00, 0x02,
		0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00}
	if !bytes.Equal(a.Bytes(), want) {
		t.Fatalf("got  % X\nwant % X", a.Bytes(), want)
	}
}

func TestQuantizationDoesNotAccumulate(t *testing.T) {
	t.Parallel()
	s := &locomotion.State{Fields: locomotion.HasPath}
	for i := range 200 {
		s.Path = append(s.Path, locomotion.PathNode{Point: mgl32.Vec3{float32(i) * 0.3333, float32(i) * -0.77, 0}})
	}
	a := archive.NewPacker(archive.Replication, archive.Proximity)
	a.TransferObject(s)
	u, _ := archive.NewUnpacker(archive.Replication, a.Bytes())
	var out locomotion.State
	u.TransferObject(&out)
	if err := u.Done(); err != nil {
		t.Fatal(err)
	}
	for i, n := range out.Path {
		for k := range 3 {
			if want := archive.Quantize(s.Path[i].Point[k], locomotion.PositionPrecision); n.Point[k] != want {
				t.Fatalf("node %d axis %d: %v, want %v", i, k, n.Point[k], want)
			}
		}
	}
}

// TestTurnNodes: a turn node carries its side and a radius of 1/64 m precision (a
// mover's radius plus millimetres of clearance must not round to the next 1/8 m).
func TestTurnNodes(t *testing.T) {
	t.Parallel()
	s := &locomotion.State{Entity: 1, Fields: locomotion.HasPath,
		Path: []locomotion.PathNode{{}, {Point: mgl32.Vec3{1, 0, 0}, Side: locomotion.Right, Radius: 0.51}}}
	a := archive.NewPacker(archive.Replication, archive.Proximity)
	a.TransferObject(s)
	// policy 01 | entity 01 | frame 00 | fields 08 | goal 00 | count 02 | node 0: 00 00 00 side 00 |
	// node 1: dx 8 → 10, 00 00, side -1 → 01, radius 0.51 × 64 = 32 → 40
	want := []byte{0x01, 0x01, 0x00, 0x08, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x01, 0x40}
	if !bytes.Equal(a.Bytes(), want) {
		t.Fatalf("got  % X\nwant % X", a.Bytes(), want)
	}
	u, _ := archive.NewUnpacker(archive.Replication, a.Bytes())
	var out locomotion.State
	u.TransferObject(&out)
	if err := u.Done(); err != nil {
		t.Fatal(err)
	}
	if n := out.Path[1]; n.Side != locomotion.Right || n.Radius != 0.5 {
		t.Fatalf("turn node %+v", n)
	}
}

func TestRelativeUpdates(t *testing.T) {
	t.Parallel()
	prev := walking()
	cur := walking()
	cur.Frame++
	cur.Position[0] += 0.3
	u := locomotion.Diff(prev, cur)
	if u.Fields != locomotion.Relative|locomotion.HasPosition|locomotion.Moving {
		t.Fatalf("diff fields %b", u.Fields)
	}
	a := archive.NewPacker(archive.Replication, archive.Proximity)
	a.TransferObject(&u)
	full := archive.NewPacker(archive.Replication, archive.Proximity)
	full.TransferObject(cur)
	if len(a.Bytes()) >= len(full.Bytes())/2 {
		t.Errorf("relative update %d bytes, full %d", len(a.Bytes()), len(full.Bytes()))
	}
	got, err := prev.Apply(&u)
	if err != nil {
		t.Fatal(err)
	}
	want := *cur
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("apply\n got %+v\nwant %+v", got, want)
	}
	if _, err := prev.Apply(&locomotion.State{Entity: 7}); err == nil {
		t.Fatal("update for another entity accepted")
	}
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data []byte
	}{
		{"goal beyond path", []byte{0x01, 0x01, 0x00, 0x08, 0x05, 0x00}},
		{"too many nodes", []byte{0x01, 0x01, 0x00, 0x08, 0x00, 0x81, 0x02}},
		{"truncated position", []byte{0x01, 0x01, 0x00, 0x01, 0x02}},
		// One node: deltas 00 00 00, side zig-zag 04 = 2.
		{"unknown side", []byte{0x01, 0x01, 0x00, 0x08, 0x00, 0x01, 0x00, 0x00, 0x00, 0x04}},
	}
	for _, tc := range tests {
		u, err := archive.NewUnpacker(archive.Replication, tc.data)
		if err != nil {
			t.Fatal(err)
		}
		var s locomotion.State
		u.TransferObject(&s)
		var ae *archive.Error
		if err := u.Done(); !errors.As(err, &ae) {
			t.Errorf("%s: got %v, want an *archive.Error", tc.name, err)
		}
	}
}

func FuzzUnpack(f *testing.F) {
	a := archive.NewPacker(archive.Replication, archive.Proximity)
	a.TransferObject(walking())
	f.Add(bytes.Clone(a.Bytes()))
	f.Fuzz(func(t *testing.T, data []byte) {
		u, err := archive.NewUnpacker(archive.Replication, data)
		if err != nil {
			return
		}
		var s locomotion.State
		u.TransferObject(&s)
		if u.Done() != nil {
			return
		}
		p := archive.NewPacker(archive.Replication, u.Policy())
		p.TransferObject(&s)
		u2, _ := archive.NewUnpacker(archive.Replication, p.Bytes())
		var s2 locomotion.State
		u2.TransferObject(&s2)
		if err := u2.Done(); err != nil || !reflect.DeepEqual(s, s2) {
			t.Fatalf("unstable round trip: %v\n%+v\n%+v", err, s, s2)
		}
	})
}

func BenchmarkPackUpdate(b *testing.B) {
	s := walking()
	a := archive.NewPacker(archive.Replication, archive.Proximity)
	b.ReportAllocs()
	for b.Loop() {
		a.Reset(archive.Replication, archive.Proximity)
		a.TransferObject(s)
	}
	b.SetBytes(int64(len(a.Bytes())))
}
