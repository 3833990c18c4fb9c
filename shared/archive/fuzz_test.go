package archive_test

import (
	"bytes"
	"math"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
)

// FuzzUnpack feeds arbitrary bytes through a schema that uses every Transfer, in
// every mode. It must never panic; whatever it accepts must survive a pack/unpack
// round trip unchanged.
func FuzzUnpack(f *testing.F) {
	for _, mode := range []archive.Mode{archive.Migration, archive.Database, archive.Replication, archive.Disk} {
		a := archive.NewPacker(mode, archive.AllChannels)
		a.TransferObject(sampleEntity())
		f.Add(uint8(mode), bytes.Clone(a.Bytes()))
	}
	f.Add(uint8(archive.Replication), []byte{0xEF, 0x01, 0xAD, 0x01})
	f.Fuzz(func(t *testing.T, mode uint8, data []byte) {
		m := archive.Mode(mode%4 + 1)
		u, err := archive.NewUnpacker(m, data)
		if err != nil {
			return
		}
		u.SetLimits(archive.Limits{MaxString: 1 << 10, MaxCount: 1 << 10})
		var e testEntity
		u.TransferObject(&e)
		if u.Done() != nil {
			return
		}
		p := archive.NewPacker(m, u.Policy())
		p.TransferObject(&e)
		if p.Err() != nil {
			t.Fatalf("repacking an accepted entity: %v", p.Err())
		}
		u2, err := archive.NewUnpacker(m, p.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		var e2 testEntity
		u2.TransferObject(&e2)
		if err := u2.Done(); err != nil {
			t.Fatalf("unpacking a repacked entity: %v", err)
		}
		if !sameEntity(&e, &e2) {
			t.Fatalf("round trip changed the entity\n%+v\n%+v", e, e2)
		}
	})
}

// FuzzRoundTrip packs random values and checks they come back (fixed-point ones quantized).
func FuzzRoundTrip(f *testing.F) {
	f.Add(uint8(3), uint64(1), int64(-1), float32(1.5), float32(-3.328125), "name", true, false, uint8(7))
	f.Add(uint8(2), uint64(math.MaxUint64), int64(math.MinInt64), float32(math.Inf(-1)), float32(1e9), "", false, true, uint8(0))
	f.Fuzz(func(t *testing.T, mode uint8, id uint64, spawned int64, scale, x float32, name string, b1, b2 bool, props uint8) {
		m := archive.Mode(mode%4 + 1)
		in := &testEntity{ID: id, Spawned: spawned, Scale: scale, Position: mgl32.Vec3{x, -x, x / 2},
			Yaw: x, Name: name, Visible: b1, Dead: b2, Health: int32(spawned), Level: uint16(id)}
		for i := range int(props % 16) {
			in.Properties = append(in.Properties, property{ID: uint32(i), Value: int32(id) - int32(i)})
		}
		p := archive.NewPacker(m, archive.AllChannels)
		p.TransferObject(in)
		if p.Err() != nil {
			if !utf8Valid(name) {
				return
			}
			t.Fatalf("pack: %v", p.Err())
		}
		u, err := archive.NewUnpacker(m, p.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		var out testEntity
		u.TransferObject(&out)
		if err := u.Done(); err != nil {
			t.Fatalf("unpack: %v", err)
		}
		want := *in
		for i := range 3 {
			want.Position[i] = archive.Quantize(in.Position[i], 3)
		}
		want.Yaw = archive.Quantize(in.Yaw, 6)
		if !sameEntity(&out, &want) {
			t.Fatalf("round trip\n got %+v\nwant %+v", out, want)
		}
	})
}

// sameEntity compares entities treating floats by their bits (NaN equals NaN).
func sameEntity(a, b *testEntity) bool {
	fa, fb := *a, *b
	for _, p := range [][2]*float32{{&fa.Scale, &fb.Scale}, {&fa.Velocity[0], &fb.Velocity[0]},
		{&fa.Velocity[1], &fb.Velocity[1]}, {&fa.Velocity[2], &fb.Velocity[2]}} {
		if math.Float32bits(*p[0]) != math.Float32bits(*p[1]) {
			return false
		}
		*p[0], *p[1] = 0, 0
	}
	if len(fa.Properties) == 0 && len(fb.Properties) == 0 {
		fa.Properties, fb.Properties = nil, nil
	}
	return reflect.DeepEqual(fa, fb)
}

func utf8Valid(s string) bool { return utf8.ValidString(s) }
