package gameserver

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/internal/legacypb"
	"github.com/twinframe/twinframe/server/internal/store"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replication"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// BenchmarkClientBandwidth measures, end to end on loopback, the bytes per second
// of game time a client receives with N moving entities in view: N wandering
// ghosts kept walking within 30 m of the client's avatar (all inside the AOI's
// 40 m add radius). One iteration is one server frame; frames are 5 ms of real
// time so that the benchmark is quick, and rates are per 50 ms game frame.
// updates=sparse is the server's default (clients walk remote entities;
// corrections when they stray), updates=every is Config.EveryFrameUpdates.
//
// Each frame the benchmark also encodes the two naive baselines for the same
// client at the same moment: the full state of every entity in its view
// (legacypb.NetMessageWorldState, one per frame in a mux packet) as protobuf, and
// the same as JSON (encoding/json). Metrics: bytes/client/s (what the client
// received), pb-full-bytes/client/s and json-full-bytes/client/s.
func BenchmarkClientBandwidth(b *testing.B) {
	for _, sparse := range []bool{true, false} {
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
		center = s.hub().Entity(sim.EntityID(avatar)).Pos()
		for len(ghosts) < n {
			p := center.Add(mgl32.Vec2{rng.Float32()*50 - 25, rng.Float32()*50 - 25})
			if id, err := s.hub().Spawn(2, s.hubID(), p, 0); err == nil && s.hub().Entity(id).Pos().Sub(center).Len() < 30 {
				ghosts = append(ghosts, id)
			} else if err == nil {
				_ = s.hub().Destroy(id)
			}
		}
	})
	// Keep every ghost walking: a new goal whenever it stops.
	keepWalking := func() {
		for _, id := range ghosts {
			e := s.hub().Entity(id)
			if e != nil && e.Mode() == sim.Idle {
				_, _ = s.hub().MoveAlongPath(id, center.Add(mgl32.Vec2{rng.Float32()*50 - 25, rng.Float32()*50 - 25}))
			}
		}
	}
	// Let the creates go by.
	for range 20 {
		s.inLoop(b, keepWalking)
		c.next(wait)
	}
	drain(c)
	var full fullState
	start := c.bytes.Load()
	frames := 0
	b.ResetTimer()
	for b.Loop() {
		s.inLoop(b, func() {
			keepWalking()
			if len(s.sessions) == 1 {
				full.add(b, s.hub(), s.sessions[0].view.Visible())
			}
		})
		frames++
	}
	b.StopTimer()
	// Everything the frames produced has been queued; read up to the last one.
	var last uint64
	s.inLoop(b, func() { last = s.hub().Frame() })
	for got := uint64(0); got < last; {
		for _, m := range c.next(wait) {
			if f, ok := m.(*pb.NetMessageServerFrame); ok {
				got = f.Frame
			}
		}
	}
	seconds := float64(frames) * float64(sim.FrameSeconds)
	b.ReportMetric(float64(c.bytes.Load()-start)/seconds, "bytes/client/s")
	b.ReportMetric(float64(full.pb)/seconds, "pb-full-bytes/client/s")
	b.ReportMetric(float64(full.json)/seconds, "json-full-bytes/client/s")
}

// fullState encodes the naive baselines of BenchmarkClientBandwidth and counts
// their bytes.
type fullState struct {
	pb, json int
	msg      legacypb.NetMessageWorldState
	js       jsonWorldState
	buf      []byte
}

// jsonWorldState is the JSON baseline: the fields of legacypb.NetMessageWorldState.
type jsonWorldState struct {
	Frame    uint64       `json:"frame"`
	Entities []jsonEntity `json:"entities"`
}

type jsonEntity struct {
	ID        uint64       `json:"id"`
	Prototype int32        `json:"prototype"`
	Region    int32        `json:"region"`
	Owner     int32        `json:"owner"`
	Frame     uint64       `json:"frame"`
	Fields    uint32       `json:"fields"`
	X         float32      `json:"x"`
	Y         float32      `json:"y"`
	Yaw       float32      `json:"yaw"`
	Speed     float32      `json:"speed"`
	Goal      uint32       `json:"goal"`
	Path      [][2]float32 `json:"path,omitempty"`
}

// add encodes the full state of the entities visible (ids) at g's frame both ways.
func (fs *fullState) add(b *testing.B, g *sim.Game, visible []uint64) {
	f := g.Frame()
	fs.msg = legacypb.NetMessageWorldState{Frame: proto.Uint64(f)}
	fs.js = jsonWorldState{Frame: f}
	var st locomotion.State
	for _, id := range visible {
		e := g.Entity(sim.EntityID(id))
		if e == nil {
			continue
		}
		e.LocomotionState(&st, f)
		fs.msg.Entities = append(fs.msg.Entities, legacyCreate(e, &st))
		je := jsonEntity{ID: id, Prototype: e.Prototype(), Region: e.Region(), Owner: e.Owner(), Frame: f,
			Fields: uint32(st.Fields), X: st.Position[0], Y: st.Position[1], Yaw: st.Yaw, Speed: st.Speed, Goal: st.Goal}
		for _, n := range st.Path {
			je.Path = append(je.Path, [2]float32{n.Point[0], n.Point[1]})
		}
		fs.js.Entities = append(fs.js.Entities, je)
	}
	var err error
	if fs.buf, err = (proto.MarshalOptions{}).MarshalAppend(fs.buf[:0], &fs.msg); err != nil {
		b.Fatal(err)
	}
	// In a mux packet as one message: header, a one-byte id, the length.
	fs.pb += protocol.HeaderSize + 1 + protowire.SizeVarint(uint64(len(fs.buf))) + len(fs.buf)
	j, err := json.Marshal(&fs.js)
	if err != nil {
		b.Fatal(err)
	}
	fs.json += len(j)
}

// legacyCreate is e as the plain protobuf message, with st its locomotion state.
func legacyCreate(e *sim.Entity, st *locomotion.State) *legacypb.NetMessageEntityCreate {
	loco := &legacypb.NetStructLocomotionState{FieldFlags: proto.Uint32(uint32(st.Fields)), Frame: proto.Uint64(st.Frame),
		Position: &pb.NetStructPoint3{X: st.Position[0], Y: st.Position[1], Z: st.Position[2]},
		Yaw:      proto.Float32(st.Yaw), Speed: proto.Float32(st.Speed), Goal: proto.Uint32(st.Goal)}
	for _, n := range st.Path {
		node := &legacypb.NetStructPathNode{Point: &pb.NetStructPoint3{X: n.Point[0], Y: n.Point[1], Z: n.Point[2]}}
		if n.Side != locomotion.None {
			node.Side, node.Radius = proto.Int32(int32(n.Side)), proto.Float32(n.Radius)
		}
		loco.Path = append(loco.Path, node)
	}
	return &legacypb.NetMessageEntityCreate{IdEntity: proto.Uint64(uint64(e.ID())), PrototypeId: proto.Int32(e.Prototype()),
		RegionId: proto.Int32(e.Region()), Owner: proto.Int32(e.Owner()), Locomotion: loco}
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
// client's view), against protobuf-go marshalling and unmarshalling the same
// entity as a plain protobuf message (legacypb.NetMessageEntityCreate).
func BenchmarkEntityCreate(b *testing.B) {
	s := startServer(b, "", func(c *Config) { c.Period = 5 * time.Millisecond; c.NoPopulation = true })
	var e *sim.Entity
	s.inLoop(b, func() {
		id, err := s.hub().Spawn(2, s.hubID(), mgl32.Vec2{90, 136}, 0)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.hub().MoveAlongPath(id, mgl32.Vec2{150, 60}); err != nil {
			b.Fatal(err)
		}
		e = s.hub().Entity(id)
	})
	s.stop(b)
	ar, err := replication.PackEntity(e, false)
	if err != nil {
		b.Fatal(err)
	}
	var st locomotion.State
	e.LocomotionState(&st, e.ChangedFrame())
	legacy := legacyCreate(e, &st)
	pbBytes, err := proto.Marshal(legacy)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("protobuf-marshal", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 256)
		for b.Loop() {
			buf, _ = proto.MarshalOptions{}.MarshalAppend(buf[:0], legacy)
		}
		b.ReportMetric(float64(len(pbBytes)), "B/msg")
	})
	b.Run("protobuf-build+marshal", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 256)
		for b.Loop() {
			// What a server holding the simulation's entity does (as archive-pack
			// does): build the message from it, then marshal.
			e.LocomotionState(&st, e.ChangedFrame())
			buf, _ = proto.MarshalOptions{}.MarshalAppend(buf[:0], legacyCreate(e, &st))
		}
		b.ReportMetric(float64(len(pbBytes)), "B/msg")
	})
	b.Run("protobuf-unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var m legacypb.NetMessageEntityCreate
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
	b.Run("archive-unpack-reuse", func(b *testing.B) {
		// Into the same entity each time, as protobuf's decode-reuse: its path
		// storage is reused.
		b.ReportAllocs()
		u, _ := archive.NewUnpacker(archive.Replication, ar)
		got := new(sim.Entity)
		for b.Loop() {
			if err := u.ResetUnpacker(archive.Replication, ar); err != nil {
				b.Fatal(err)
			}
			u.TransferObject(got)
			if u.Err() != nil {
				b.Fatal(u.Err())
			}
		}
		b.ReportMetric(float64(len(ar)), "B/msg")
	})
}

// benchServer is a Server without its frame loop or sockets: the benchmark steps
// the game and replicates by hand, and sessions' packets pile up in their queues.
func benchServer(b testing.TB, mod func(*Config)) *Server {
	b.Helper()
	st, err := store.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = st.Close() })
	cfg := Config{Store: st, DeityToken: testToken, Seed: 7, NoPopulation: true}
	if mod != nil {
		mod(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// walkers spawns n entities of prototype proto within 25 m of center and returns a
// function that gives every idle one a new goal (seeded).
func walkers(b testing.TB, g *sim.Game, region int32, center mgl32.Vec2, proto int32, n int, seed uint64) func() {
	b.Helper()
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	var ids []sim.EntityID
	for tries := 0; len(ids) < n && tries < 100*n; tries++ {
		p := center.Add(mgl32.Vec2{rng.Float32()*50 - 25, rng.Float32()*50 - 25})
		if id, err := g.Spawn(proto, region, p, 0); err == nil && g.Entity(id).Pos().Sub(center).Len() < 25 {
			ids = append(ids, id)
		} else if err == nil {
			_ = g.Destroy(id)
		}
	}
	if len(ids) < n {
		b.Fatalf("only %d of %d walkers placed", len(ids), n)
	}
	return func() {
		for _, id := range ids {
			if e := g.Entity(id); e != nil && e.Mode() == sim.Idle {
				_, _ = g.MoveAlongPath(id, center.Add(mgl32.Vec2{rng.Float32()*50 - 25, rng.Float32()*50 - 25}))
			}
		}
	}
}
