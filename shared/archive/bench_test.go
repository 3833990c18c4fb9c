package archive_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/twinframe/twinframe/shared/archive"
)

// The entity benchmarks pack and unpack sampleEntity (about 20 fields, a name and
// eight properties). BenchmarkVarintFloor does the same number of varint writes
// and reads with encoding/binary: the floor an archive can approach.

func BenchmarkPackEntity(b *testing.B) {
	e := sampleEntity()
	a := archive.NewPacker(archive.Replication, archive.AllChannels)
	b.ReportAllocs()
	for b.Loop() {
		a.Reset(archive.Replication, archive.AllChannels)
		a.TransferObject(e)
	}
	if a.Err() != nil {
		b.Fatal(a.Err())
	}
	b.SetBytes(int64(len(a.Bytes())))
}

func BenchmarkUnpackEntity(b *testing.B) {
	p := archive.NewPacker(archive.Replication, archive.AllChannels)
	p.TransferObject(sampleEntity())
	data := p.Bytes()
	var u archive.Archive
	var e testEntity
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := u.ResetUnpacker(archive.Replication, data); err != nil {
			b.Fatal(err)
		}
		u.TransferObject(&e)
		if u.Err() != nil {
			b.Fatal(u.Err())
		}
	}
}

func BenchmarkPackEntityDatabase(b *testing.B) {
	e := sampleEntity()
	a := archive.NewPacker(archive.Database, archive.AllChannels)
	b.ReportAllocs()
	for b.Loop() {
		a.Reset(archive.Database, archive.AllChannels)
		a.TransferObject(e)
		_ = a.Bytes()
	}
	b.SetBytes(int64(len(a.Bytes())))
}

// entityVarints lists the integers sampleEntity becomes on the wire, in order, as
// the encoding/binary floor writes them (bools as one byte, the name as a length).
func entityVarints() []uint64 {
	e := sampleEntity()
	zz := func(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }
	fixed := func(v float32, p int) uint64 { return zz(int64(archive.FixedFromFloat(v, p))) }
	vs := []uint64{uint64(archive.AllChannels), e.ID, e.Prototype, uint64(e.Region),
		fixed(e.Position[0], 3), fixed(e.Position[1], 3), fixed(e.Position[2], 3),
		fixed(e.Yaw, 6), fixed(e.Pitch, 6), fixed(e.Roll, 6),
		uint64(math.Float32bits(e.Velocity[0])), uint64(math.Float32bits(e.Velocity[1])), uint64(math.Float32bits(e.Velocity[2])),
		zz(int64(e.Health)), uint64(e.Level), uint64(e.Team), 0x7E, 0x01, uint64(len(e.Name)), uint64(len(e.Properties))}
	for _, p := range e.Properties {
		vs = append(vs, uint64(p.ID), zz(int64(p.Value)))
	}
	vs = append(vs, zz(int64(e.Timer.Current)), zz(int64(e.Timer.Total)), zz(e.Timer.Start), zz(e.Timer.End), 0x81,
		zz(e.Spawned), e.Owner, uint64(math.Float32bits(e.Scale)))
	return vs
}

func BenchmarkVarintFloorPack(b *testing.B) {
	vs := entityVarints()
	name := sampleEntity().Name
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = buf[:0]
		for _, v := range vs {
			buf = binary.AppendUvarint(buf, v)
		}
		buf = append(buf, name...)
	}
	b.SetBytes(int64(len(buf)))
}

func BenchmarkVarintFloorUnpack(b *testing.B) {
	vs := entityVarints()
	name := sampleEntity().Name
	var buf []byte
	for _, v := range vs {
		buf = binary.AppendUvarint(buf, v)
	}
	buf = append(buf, name...)
	b.ReportAllocs()
	b.SetBytes(int64(len(buf)))
	var sink uint64
	var s string
	for b.Loop() {
		data := buf
		for range vs {
			v, n := binary.Uvarint(data)
			if n <= 0 {
				b.Fatal("bad varint")
			}
			sink += v
			data = data[n:]
		}
		s = string(data)
	}
	_, _ = sink, s
}
