package gameserver

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	tfclient "github.com/twinframe/twinframe/client"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"google.golang.org/protobuf/proto"
)

// BenchmarkClusterHandoff measures travel between nodes as its client sees it:
// from the end of the frame in which the avatar entered a portal on one node
// (the source's OnFrame hook) to the client's receipt of the region change that
// the other node sends, through the front door. Each op is one crossing, downtown
// (node a) to the wilds (node b) and back, the avatar placed in the portal by the
// server (no walking). Real nats-server, real PostgreSQL, loopback, 20 Hz.
func BenchmarkClusterHandoff(b *testing.B) {
	layout := map[string]string{"downtown": "a", "wilds": "b", "vault": "b"}
	var mu sync.Mutex
	entered := map[int32]time.Time{} // target region → when the avatar left for it
	tc := startClusterWith(b, layout, func(_ string, c *Config) {
		c.NoPopulation = true // the handoff, not the NPCs
		c.OnFrame = func(v FrameView) {
			for _, h := range v.Handoffs {
				if h.Away {
					mu.Lock()
					entered[h.To] = time.Now()
					mu.Unlock()
				}
			}
		}
	}, "a", "b")
	a, nb := tc.nodes["a"], tc.nodes["b"]
	park := transitionNamed(b, a.world, "park-gate")
	meadow := transitionNamed(b, a.world, "meadow-gate")
	arrived := make(chan time.Duration, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	c, err := tfclient.Dial(ctx, a.url, &tfclient.Options{Name: "ana", OnMessage: func(m proto.Message) {
		rc, ok := m.(*pb.NetMessageRegionChange)
		if !ok {
			return
		}
		now := time.Now()
		mu.Lock()
		t0, ok := entered[rc.GetRegionId()]
		delete(entered, rc.GetRegionId())
		mu.Unlock()
		if ok {
			arrived <- now.Sub(t0)
		}
	}})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	if err := c.WaitReady(ctx); err != nil {
		b.Fatal(err)
	}
	_, _, id := sessionOf(b, a, "ana")
	var lat []time.Duration
	cross := func(s *testServer, region string, pos [2]float32) {
		s.inLoop(b, func() { must(b, s.regionByName(region).game.Teleport(id, pos)) })
		select {
		case d := <-arrived:
			lat = append(lat, d)
		case <-time.After(30 * time.Second):
			b.Fatalf("no region change 30 s after entering the portal in %s", region)
		}
		waitFor(b, "the client is not ready after travel", 10*time.Second, c.Ready)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%2 == 0 {
			cross(a, "downtown", park.Pos)
		} else {
			cross(nb, "wilds", meadow.Pos)
		}
	}
	b.StopTimer()
	reportLatency(b, lat)
}

// reportLatency reports the median and 99th percentile of d in milliseconds and,
// for the handoff, in 20 Hz frames.
func reportLatency(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	p := func(q float64) float64 { return float64(d[int(q*float64(len(d)-1))]) / float64(time.Millisecond) }
	b.ReportMetric(p(0.5), "p50-ms")
	b.ReportMetric(p(0.99), "p99-ms")
	b.ReportMetric(p(0.99)/50, "p99-frames")
}

// BenchmarkClusterPing measures what the front door adds to a client message: a
// ping's round trip (client → server → pong in the next frame's packet → client)
// with the player run by the node the client is connected to ("direct"), and by
// another node through that node's front door ("relayed": one NATS hop each way).
// The frame period is 1 ms, so that waiting for the frame does not hide the hops.
func BenchmarkClusterPing(b *testing.B) {
	layout := map[string]string{"downtown": "a", "wilds": "b", "vault": "b"}
	tc := startClusterWith(b, layout, func(_ string, c *Config) {
		c.NoPopulation = true
		c.Period = time.Millisecond
	}, "a", "b")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for _, bc := range []struct {
		name string
		door *testServer
	}{{"direct", tc.nodes["a"]}, {"relayed", tc.nodes["b"]}} {
		b.Run(bc.name, func(b *testing.B) {
			pong := make(chan time.Time, 1)
			c, err := tfclient.Dial(ctx, bc.door.url, &tfclient.Options{Name: "pinger-" + bc.name, PingInterval: time.Hour,
				OnMessage: func(m proto.Message) {
					if p, ok := m.(*pb.NetMessagePong); ok && p.GetClientTimeMicros() == 1 {
						pong <- time.Now()
					}
				}})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			if err := c.WaitReady(ctx); err != nil {
				b.Fatal(err)
			}
			if _, name := c.Region(); name != "downtown" {
				b.Fatalf("the pinger is in %q", name)
			}
			rtt := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				if err := c.Send(&pb.NetMessagePing{ClientTimeMicros: 1}); err != nil {
					b.Fatal(err)
				}
				select {
				case t1 := <-pong:
					rtt = append(rtt, t1.Sub(t0))
				case <-time.After(10 * time.Second):
					b.Fatal("no pong in 10 s")
				}
			}
			b.StopTimer()
			slices.Sort(rtt)
			p := func(q float64) float64 { return float64(rtt[int(q*float64(len(rtt)-1))]) / float64(time.Microsecond) }
			b.ReportMetric(p(0.5), "p50-µs")
			b.ReportMetric(p(0.99), "p99-µs")
		})
	}
}

// BenchmarkFrontDoorHops measures the two NATS hops a relayed client message and
// its answer add, alone: a 300-byte packet published by one node's connection to
// a subject the other node's connection subscribes to, published back, received
// (the front door's relay of a client packet and the node's packet to the door).
// The frame loop's wait is not in it, which BenchmarkClusterPing's is.
func BenchmarkFrontDoorHops(b *testing.B) {
	layout := map[string]string{"downtown": "a", "wilds": "b", "vault": "b"}
	tc := startCluster(b, layout, "a", "b")
	a, nb := tc.nodes["a"], tc.nodes["b"]
	back := make(chan struct{}, 1)
	echo, err := nb.cl.nc.Subscribe("bench.hop.in", func(m *nats.Msg) { _ = nb.cl.nc.Publish("bench.hop.out", m.Data) })
	if err != nil {
		b.Fatal(err)
	}
	defer echo.Unsubscribe()
	recv, err := a.cl.nc.Subscribe("bench.hop.out", func(*nats.Msg) { back <- struct{}{} })
	if err != nil {
		b.Fatal(err)
	}
	defer recv.Unsubscribe()
	if err := nb.cl.nc.Flush(); err != nil {
		b.Fatal(err)
	}
	packet := make([]byte, 300)
	rtt := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if err := a.cl.nc.Publish("bench.hop.in", packet); err != nil {
			b.Fatal(err)
		}
		select {
		case <-back:
		case <-time.After(10 * time.Second):
			b.Fatal("no echo in 10 s")
		}
		rtt = append(rtt, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(rtt)
	p := func(q float64) float64 { return float64(rtt[int(q*float64(len(rtt)-1))]) / float64(time.Microsecond) }
	b.ReportMetric(p(0.5), "p50-µs")
	b.ReportMetric(p(0.99), "p99-µs")
}
