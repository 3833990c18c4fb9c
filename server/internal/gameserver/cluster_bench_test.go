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
// on a single-process server ("single"), on a cluster node that runs the player
// and holds its websocket ("direct"), and through another node's front door
// ("relayed": one NATS hop each way). Each op pings the three in turn, so that a
// loaded machine's stalls fall on all three alike. The frame period is 3 ms, so
// that waiting for the frame does not hide the hops (at 1 ms the loop does not
// keep time on a 2-core machine and every round trip lands on 20 ms).
func BenchmarkClusterPing(b *testing.B) {
	fast := func(c *Config) {
		c.NoPopulation = true
		c.Period = 3 * time.Millisecond
	}
	layout := map[string]string{"downtown": "a", "wilds": "b", "vault": "b"}
	tc := startClusterWith(b, layout, func(_ string, c *Config) { fast(c) }, "a", "b")
	single := startServer(b, "", fast)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	type pinger struct {
		name string
		c    *tfclient.Client
		pong chan time.Time
		rtt  []time.Duration
	}
	var ps []*pinger
	for _, d := range []struct {
		name string
		door *testServer
	}{{"single", single}, {"direct", tc.nodes["a"]}, {"relayed", tc.nodes["b"]}} {
		p := &pinger{name: d.name, pong: make(chan time.Time, 1)}
		c, err := tfclient.Dial(ctx, d.door.url, &tfclient.Options{Name: "pinger-" + d.name, PingInterval: time.Hour,
			OnMessage: func(m proto.Message) {
				if pm, ok := m.(*pb.NetMessagePong); ok && pm.GetClientTimeMicros() == 1 {
					p.pong <- time.Now()
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
			b.Fatalf("the %s pinger is in %q", d.name, name)
		}
		p.c = c
		ps = append(ps, p)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, p := range ps {
			t0 := time.Now()
			if err := p.c.Send(&pb.NetMessagePing{ClientTimeMicros: 1}); err != nil {
				b.Fatal(err)
			}
			select {
			case t1 := <-p.pong:
				p.rtt = append(p.rtt, t1.Sub(t0))
			case <-time.After(10 * time.Second):
				b.Fatalf("%s: no pong in 10 s", p.name)
			}
		}
	}
	b.StopTimer()
	q := func(d []time.Duration, f float64) float64 {
		return float64(d[int(f*float64(len(d)-1))]) / float64(time.Microsecond)
	}
	for _, p := range ps {
		slices.Sort(p.rtt)
		b.ReportMetric(q(p.rtt, 0.5), p.name+"-p50-µs")
		b.ReportMetric(q(p.rtt, 0.99), p.name+"-p99-µs")
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
