package protocol_test

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/internal/legacypb"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"google.golang.org/protobuf/proto"
)

// powerResult is the archive (1.25) form of a power result: a varint saying which
// optional fields follow, ids as varints, damage and healing in whole points, the
// owner position fixed-point (p=3). It is a stand-in for the simulation's own
// type, to compare the two wire forms of the same values.
type powerResult struct {
	Present                             uint32
	PowerPrototype, Target, Flags       uint64
	PowerOwner, UltimateOwner, Combined uint64
	Physical, Energy, Mental, Healing   uint32
	OwnerPosition                       mgl32.Vec3
	AssetRefOverride                    int64
	TransferTo                          uint64
}

const (
	prSelfTarget = 1 << iota
	prOwner
	prUltimateOwner
	prCombinedOwner
	prPhysical
	prEnergy
	prMental
	prHealing
	prOwnerPosition
	prAssetRef
	prTransferTo
)

func (r *powerResult) Serialize(a *archive.Archive) error {
	a.TransferUint32(&r.Present)
	a.TransferUint64(&r.PowerPrototype)
	a.TransferUint64(&r.Target)
	a.TransferUint64(&r.Flags)
	for _, f := range []struct {
		bit uint32
		v   *uint64
	}{{prOwner, &r.PowerOwner}, {prUltimateOwner, &r.UltimateOwner}, {prCombinedOwner, &r.Combined}} {
		if r.Present&f.bit != 0 {
			a.TransferUint64(f.v)
		}
	}
	for _, f := range []struct {
		bit uint32
		v   *uint32
	}{{prPhysical, &r.Physical}, {prEnergy, &r.Energy}, {prMental, &r.Mental}, {prHealing, &r.Healing}} {
		if r.Present&f.bit != 0 {
			a.TransferUint32(f.v)
		}
	}
	if r.Present&prOwnerPosition != 0 {
		a.TransferVec3Fixed(&r.OwnerPosition, 3)
	}
	if r.Present&prAssetRef != 0 {
		a.TransferInt64(&r.AssetRefOverride)
	}
	if r.Present&prTransferTo != 0 {
		a.TransferUint64(&r.TransferTo)
	}
	return nil
}

// A typical hit: one power, one target, physical damage, the owner's position.
// Both forms carry the same values (the prototype as the same small index).
var (
	hitArchive = powerResult{
		Present:        prOwner | prUltimateOwner | prPhysical | prOwnerPosition,
		PowerPrototype: 12, Target: 1042, Flags: 0x5,
		PowerOwner: 1001, UltimateOwner: 1001, Physical: 137,
		OwnerPosition: mgl32.Vec3{1234.5, -87.25, 0},
	}
	hitProto = &legacypb.NetMessagePowerResult{
		PowerPrototypeId: proto.Uint64(12), TargetEntityId: proto.Uint64(1042), Flags: proto.Uint64(0x5),
		PowerOwnerEntityId: proto.Uint64(1001), UltimateOwnerEntityId: proto.Uint64(1001),
		DamagePhysical:     proto.Float32(137),
		PowerOwnerPosition: &pb.NetStructPoint3{X: 1234.5, Y: -87.25, Z: 0},
	}
)

func TestPowerResultForms(t *testing.T) {
	a := archive.NewPacker(archive.Replication, archive.Proximity)
	a.TransferObject(&hitArchive)
	if a.Err() != nil {
		t.Fatal(a.Err())
	}
	u, err := archive.NewUnpacker(archive.Replication, a.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var got powerResult
	u.TransferObject(&got)
	if err := u.Done(); err != nil || got != hitArchive {
		t.Fatalf("archive round trip: %+v, %v", got, err)
	}
	b, err := proto.Marshal(hitProto)
	if err != nil {
		t.Fatal(err)
	}
	wrapped, _ := proto.Marshal(&pb.NetMessagePowerResult{ArchiveData: a.Bytes()})
	t.Logf("power result: protobuf (1.24) %d bytes; archive %d bytes, %d in NetMessagePowerResult", len(b), len(a.Bytes()), len(wrapped))
	if len(wrapped) >= len(b) {
		t.Errorf("the archive form (%d bytes wrapped) is not smaller than protobuf (%d)", len(wrapped), len(b))
	}
}

// BenchmarkPowerResult compares the two wire forms of the same power result.
func BenchmarkPowerResult(b *testing.B) {
	pbBytes, _ := proto.Marshal(hitProto)
	a := archive.NewPacker(archive.Replication, archive.Proximity)
	a.TransferObject(&hitArchive)
	arBytes := append([]byte(nil), a.Bytes()...)

	b.Run("protobuf-marshal", func(b *testing.B) {
		b.ReportAllocs()
		b.ReportMetric(float64(len(pbBytes)), "B/msg")
		buf := make([]byte, 0, 64)
		for b.Loop() {
			buf, _ = proto.MarshalOptions{}.MarshalAppend(buf[:0], hitProto)
		}
	})
	b.Run("protobuf-unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		b.ReportMetric(float64(len(pbBytes)), "B/msg")
		for b.Loop() {
			var m legacypb.NetMessagePowerResult
			if err := proto.Unmarshal(pbBytes, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("archive-pack", func(b *testing.B) {
		b.ReportAllocs()
		b.ReportMetric(float64(len(arBytes)), "B/msg")
		p := archive.NewPacker(archive.Replication, archive.Proximity)
		for b.Loop() {
			p.Reset(archive.Replication, archive.Proximity)
			p.TransferObject(&hitArchive)
		}
	})
	b.Run("archive-unpack", func(b *testing.B) {
		b.ReportAllocs()
		b.ReportMetric(float64(len(arBytes)), "B/msg")
		u, _ := archive.NewUnpacker(archive.Replication, arBytes)
		for b.Loop() {
			if err := u.ResetUnpacker(archive.Replication, arBytes); err != nil {
				b.Fatal(err)
			}
			var r powerResult
			u.TransferObject(&r)
			if u.Err() != nil {
				b.Fatal(u.Err())
			}
		}
	})
}
