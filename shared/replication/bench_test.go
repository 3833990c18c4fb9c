package replication

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
)

// BenchmarkReplicate measures Prepare and Write for 50 clients among 50 walking
// ghosts (the simulation's step not counted), against encoding every shared
// correction again for each client that gets it: what sharing the bytes saves.
func BenchmarkReplicate(b *testing.B) {
	for _, mode := range []string{"shared", "per-client-encoding"} {
		for _, every := range []bool{false, true} {
			updates := "sparse"
			if every {
				updates = "every"
			}
			b.Run(fmt.Sprintf("clients=50/entities=50/updates=%s/encoding=%s", updates, mode), func(b *testing.B) {
				benchReplicate(b, 50, 50, every, mode != "shared")
			})
		}
	}
}

func benchReplicate(b *testing.B, clients, n int, every, perClient bool) {
	w, err := world.LoadDefault()
	if err != nil {
		b.Fatal(err)
	}
	g, err := sim.New(w, &sim.Options{Seed: 1, NoPopulation: true})
	if err != nil {
		b.Fatal(err)
	}
	r, err := New(g, Config{EveryFrameUpdates: every})
	if err != nil {
		b.Fatal(err)
	}
	region := g.Regions()[0].ID()
	center := g.Regions()[0].SpawnPoints()[0]
	for i := range clients {
		id, err := g.Spawn(0, region, center.Add(mgl32.Vec2{float32(i%10) - 5, float32(i/10) - 2.5}), 0)
		if err != nil {
			b.Fatal(err)
		}
		v := &View{}
		v.SetAvatar(id)
		r.Attach(v)
	}
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	var ghosts []sim.EntityID
	for tries := 0; len(ghosts) < n && tries < 100*n; tries++ {
		p := center.Add(mgl32.Vec2{rng.Float32()*50 - 25, rng.Float32()*50 - 25})
		if id, err := g.Spawn(2, region, p, 0); err == nil && g.Entity(id).Pos().Sub(center).Len() < 25 {
			ghosts = append(ghosts, id)
		} else if err == nil {
			_ = g.Destroy(id)
		}
	}
	if len(ghosts) < n {
		b.Fatalf("only %d of %d ghosts placed", len(ghosts), n)
	}
	var pk protocol.Packet
	pk.Limits = protocol.Limits{MaxPacketSize: protocol.HeaderSize + protocol.MaxBodySize, MaxMessageSize: 4 << 20}
	var buf []byte
	frame := func() {
		b.StopTimer() // the simulation's step is not what is measured
		for _, id := range ghosts {
			if e := g.Entity(id); e != nil && e.Mode() == sim.Idle {
				_, _ = g.MoveAlongPath(id, center.Add(mgl32.Vec2{rng.Float32()*50 - 25, rng.Float32()*50 - 25}))
			}
		}
		if err := g.Step(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		r.Prepare(true)
		for _, v := range r.views {
			if err := r.Write(&pk, v, Frame{}); err != nil {
				b.Fatal(err)
			}
			if perClient {
				for _, t := range r.updates {
					if _, held := slices.BinarySearch(v.visible, uint64(t.id)); held && t.shared && t.id != v.avatar {
						buf = r.appendLocoPayload(buf[:0], &t.upd, archive.Proximity)
					}
				}
			}
		}
	}
	for range 40 { // the creates go by
		frame()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		frame()
	}
}
