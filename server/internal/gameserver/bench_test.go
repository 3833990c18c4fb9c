package gameserver

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/protocol/legacypb"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/sim"
	"google.golang.org/protobuf/proto"
)

// BenchmarkClientBandwidth measures, end to end on loopback, the bytes per second
// of game time a client receives with N moving entities in view: N wandering
// ghosts kept walking within 30 m of the client's avatar (all inside the AOI's
// 40 m add radius). One iteration is one server frame; frames are 5 ms of real
// time so that the benchmark is quick, and B/s is per 50 ms game frame.
// updates=every is what the replica client needs today (a relative update every
// frame an entity moved); updates=sparse is Config.SparseUpdates.
func BenchmarkClientBandwidth(b *testing.B) {
	for _, sparse := range []bool{false, true} {
		for _, n := range []int{10, 50, 200} {
			name := fmt.Sprintf("entities=%d/updates=every", n)
			if sparse {
				name = fmt.Sprintf("entities=%d/updates=sparse", n)
			}
			b.Run(name, func(b *testing.B) { benchBandwidth(b, n, sparse) })
		}
	}
}

func benchBandwidth(b *testing.B, n int, sparse bool) {
	s := startServer(b, "", func(c *Config) {
		c.Period = 5 * time.Millisecond
		c.NoPopulation = true
		c.EveryFrameUpdates = !sparse
	})
	c := dial(b, s.url, dialOpt{})
	c.login("bench", nil)
	var avatar uint64
	for avatar == 0 {
		for _, m := range c.next(wait) {
			if lr, ok := m.(*pb.NetMessageLoginResult); ok {
				avatar = lr.PlayerEntityId
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	var center mgl32.Vec2
	var ghosts []sim.EntityID
	s.inLoop(b, func() {
		center = s.game.Entity(sim.EntityID(avatar)).Pos()
		for len(ghosts) < n {
			p := center.Add(mgl32.Vec2{rng.Float32()*50 - 25, rng.Float32()*50 - 25})
			if id, err := s.game.Spawn(2, s.region, p, 0); err == nil && s.game.Entity(id).Pos().Sub(center).Len() < 30 {
				ghosts = append(ghosts, id)
			} else if err == nil {
				_ = s.game.Destroy(id)
			}
		}
	})
	// Keep every ghost walking: a new goal whenever it stops.
	keepWalking := func() {
		for _, id := range ghosts {
			e := s.game.Entity(id)
			if e != nil && e.Mode() == sim.Idle {
				_, _ = s.game.MoveAlongPath(id, center.Add(mgl32.Vec2{rng.Float32()*50 - 25, rng.Float32()*50 - 25}))
			}
		}
	}
	// Let the creates go by.
	for range 20 {
		s.inLoop(b, keepWalking)
		c.next(wait)
	}
	drain(c)
	start := c.bytes.Load()
	frames := 0
	b.ResetTimer()
	for b.Loop() {
		s.inLoop(b, keepWalking)
		frames++
	}
	b.StopTimer()
	// Everything the frames produced has been queued; read up to the last one.
	var last uint64
	s.inLoop(b, func() { last = s.game.Frame() })
	for got := uint64(0); got < last; {
		for _, m := range c.next(wait) {
			if f, ok := m.(*pb.NetMessageServerFrame); ok {
				got = f.Frame
			}
		}
	}
	bytes := c.bytes.Load() - start
	b.ReportMetric(float64(bytes)/(float64(frames)*float64(sim.FrameSeconds)), "B/s")
}

func drain(c *client) {
	for {
		select {
		case <-c.packets:
		default:
			return
		}
	}
}

// powerResultSample is a bolt hitting an entity, as the simulation reports it.
var powerResultSample = sim.PowerResult{Power: sim.PowerBolt, Frame: 123456, Source: 812, Projectile: 9031,
	Target: 977, Point: mgl32.Vec2{101.37, 64.02}, Normal: mgl32.Vec2{-0.6, 0.8}, Damage: sim.BoltDamage}

// legacyPowerResult is the same hit as the 1.24 protobuf message.
func legacyPowerResult() *legacypb.NetMessagePowerResult {
	return &legacypb.NetMessagePowerResult{
		PowerPrototypeId: proto.Uint64(uint64(sim.PowerBolt)), TargetEntityId: proto.Uint64(977), Flags: proto.Uint64(0),
		PowerOwnerEntityId: proto.Uint64(812), UltimateOwnerEntityId: proto.Uint64(812),
		DamagePhysical:     proto.Float32(float32(sim.BoltDamage)),
		PowerOwnerPosition: &pb.NetStructPoint3{X: 101.37, Y: 64.02},
		TransferToEntityId: proto.Uint64(9031),
	}
}

// BenchmarkPowerResult compares the simulation's PowerResult as a replication
// archive (in NetMessagePowerResult) with the 1.24 protobuf message carrying the
// same hit: bytes, time and allocations each way.
func BenchmarkPowerResult(b *testing.B) {
	legacy := legacyPowerResult()
	pbBytes, _ := proto.Marshal(legacy)
	a := archive.NewPacker(archive.Replication, archive.Proximity)
	r := powerResultSample
	a.TransferObject(&r)
	arBytes := append([]byte(nil), a.Bytes()...)
	b.Run("protobuf-marshal", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 64)
		for b.Loop() {
			buf, _ = proto.MarshalOptions{}.MarshalAppend(buf[:0], legacy)
		}
		b.ReportMetric(float64(len(pbBytes)), "B/msg")
	})
	b.Run("protobuf-unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var m legacypb.NetMessagePowerResult
			if err := proto.Unmarshal(pbBytes, &m); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(pbBytes)), "B/msg")
	})
	b.Run("archive-pack", func(b *testing.B) {
		b.ReportAllocs()
		p := archive.NewPacker(archive.Replication, archive.Proximity)
		for b.Loop() {
			p.Reset(archive.Replication, archive.Proximity)
			p.TransferObject(&r)
		}
		b.ReportMetric(float64(len(arBytes)), "B/msg")
	})
	b.Run("archive-unpack", func(b *testing.B) {
		b.ReportAllocs()
		u, _ := archive.NewUnpacker(archive.Replication, arBytes)
		for b.Loop() {
			if err := u.ResetUnpacker(archive.Replication, arBytes); err != nil {
				b.Fatal(err)
			}
			var got sim.PowerResult
			u.TransferObject(&got)
			if u.Err() != nil {
				b.Fatal(u.Err())
			}
		}
		b.ReportMetric(float64(len(arBytes)), "B/msg")
	})
}

// BenchmarkEntityCreate measures packing and unpacking a walking entity's
// NetMessageEntityCreate archive (what the server sends when an entity enters a
// client's view).
func BenchmarkEntityCreate(b *testing.B) {
	s := startServer(b, "", func(c *Config) { c.Period = 5 * time.Millisecond; c.NoPopulation = true })
	var payload []byte
	var e *sim.Entity
	s.inLoop(b, func() {
		id, err := s.game.Spawn(2, s.region, mgl32.Vec2{90, 136}, 0)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.game.MoveAlongPath(id, mgl32.Vec2{150, 60}); err != nil {
			b.Fatal(err)
		}
		e = s.game.Entity(id)
	})
	s.stop(b)
	payload, err := packCreate(e, false)
	if err != nil {
		b.Fatal(err)
	}
	var m pb.NetMessageEntityCreate
	if err := proto.Unmarshal(payload, &m); err != nil {
		b.Fatal(err)
	}
	ar := m.ArchiveData
	b.Run("archive-pack", func(b *testing.B) {
		b.ReportAllocs()
		p := archive.NewPacker(archive.Replication, archive.Proximity)
		for b.Loop() {
			p.Reset(archive.Replication, archive.Proximity)
			p.TransferObject(e)
		}
		b.ReportMetric(float64(len(ar)), "B/msg")
	})
	b.Run("archive-unpack", func(b *testing.B) {
		b.ReportAllocs()
		u, _ := archive.NewUnpacker(archive.Replication, ar)
		for b.Loop() {
			if err := u.ResetUnpacker(archive.Replication, ar); err != nil {
				b.Fatal(err)
			}
			var got sim.Entity
			u.TransferObject(&got)
			if u.Err() != nil {
				b.Fatal(u.Err())
			}
		}
		b.ReportMetric(float64(len(ar)), "B/msg")
	})
}
