package gameserver

import (
	"bytes"
	"cmp"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/coder/websocket"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
)

// TestAppendLocoPayload checks that the reused encoder writes the bytes a fresh
// archive and protocol.Marshal write, whatever was in the buffer and the packer
// before (a long state, then a short one, so stale bytes would show).
func TestAppendLocoPayload(t *testing.T) {
	t.Parallel()
	long := locomotion.State{Entity: 42, Frame: 1000,
		Fields:   locomotion.HasPosition | locomotion.HasYaw | locomotion.HasSpeed | locomotion.HasPath | locomotion.Moving,
		Position: mgl32.Vec3{100.125, 200.5, 0}, Yaw: 1.5, Speed: 6.25, Goal: 1,
		Path: []locomotion.PathNode{
			{Point: mgl32.Vec3{100.125, 200.5, 0}},
			{Point: mgl32.Vec3{110, 205.25, 0}, Side: locomotion.Left, Radius: 0.5},
		}}
	short := locomotion.State{Entity: 7, Frame: 1001, Fields: locomotion.HasYaw, Yaw: -0.25}
	s := &Server{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	var buf []byte
	for _, tc := range []struct {
		name string
		st   *locomotion.State
		pol  archive.Policy
	}{
		{"long proximity", &long, archive.Proximity},
		{"short proximity", &short, archive.Proximity},
		{"long owner", &long, archive.Proximity | archive.Owner},
		{"short owner", &short, archive.Proximity | archive.Owner},
	} {
		a := archive.NewPacker(archive.Replication, tc.pol)
		a.TransferObject(tc.st)
		if a.Err() != nil {
			t.Fatal(a.Err())
		}
		_, want, err := protocol.Marshal(&pb.NetMessageLocomotionStateUpdate{ArchiveData: a.Bytes()})
		if err != nil {
			t.Fatal(err)
		}
		buf = s.appendLocoPayload(buf[:0], tc.st, tc.pol)
		if !bytes.Equal(buf, want) {
			t.Errorf("%s: % x, want % x", tc.name, buf, want)
		}
	}
}

// TestQueueRecycles checks that queued packets own their bytes (a packet built
// after another is queued does not change it) and that a buffer the writer
// hands back is refilled rather than a new one allocated.
func TestQueueRecycles(t *testing.T) {
	t.Parallel()
	s := &Server{metrics: newMetrics()}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &session{ctx: ctx, cancel: cancel, out: make(chan []byte, 4), free: make(chan []byte, 4)}
	var pk protocol.Packet
	build := func(frame uint64) []byte {
		pk.Reset(protocol.MuxGame, protocol.CommandData)
		if err := pk.Append(&pb.NetMessageServerFrame{Frame: frame}); err != nil {
			t.Fatal(err)
		}
		return bytes.Clone(pk.Bytes())
	}
	want1 := build(1)
	s.queue(c, &pk)
	want2 := build(1 << 40) // a longer packet in the same builder
	s.queue(c, &pk)
	p1, p2 := <-c.out, <-c.out
	if !bytes.Equal(p1, want1) || !bytes.Equal(p2, want2) {
		t.Fatalf("queued % x and % x, want % x and % x", p1, p2, want1, want2)
	}
	c.recycle(p2)
	want3 := build(3)
	s.queue(c, &pk)
	p3 := <-c.out
	if !bytes.Equal(p3, want3) {
		t.Fatalf("queued % x, want % x", p3, want3)
	}
	if &p3[0] != &p2[0] {
		t.Error("the recycled buffer was not reused")
	}
	if !bytes.Equal(p1, want1) {
		t.Errorf("an earlier packet changed to % x", p1)
	}
	if c.closed() {
		t.Error("the session ended")
	}
}

// TestSearchCands checks the galloping search against a plain binary search, for
// ascending runs of ids looked up as the remove check does (each search starting
// where the last ended), on regions of many sizes and densities.
func TestSearchCands(t *testing.T) {
	t.Parallel()
	const seed = 9
	rng := rand.New(rand.NewPCG(seed, 0))
	for n := range 70 {
		var cands []replica.Candidate
		id := uint64(0)
		for range n {
			id += 1 + rng.Uint64N(uint64(1+n%5))
			cands = append(cands, replica.Candidate{ID: id})
		}
		var queries []uint64 // ascending: some held, some gone, some past the end
		for q := uint64(0); q <= id+2; q++ {
			if rng.IntN(3) == 0 {
				queries = append(queries, q)
			}
		}
		lo := 0
		for _, q := range queries {
			i, ok := searchCands(cands, lo, q)
			wi, wok := slices.BinarySearchFunc(cands, q, func(c replica.Candidate, q uint64) int { return cmp.Compare(c.ID, q) })
			if i != wi || ok != wok {
				t.Fatalf("seed %d, %d candidates: search(%d from %d) = %d, %v; want %d, %v", seed, n, q, lo, i, ok, wi, wok)
			}
			lo = i
		}
	}
}

// TestWriteWatchdog runs a session's writer on a real websocket: towards a
// client that reads, every packet arrives and the session stays; towards one
// that never reads, a write blocks once the socket buffers are full and the
// watchdog ends the session as a slow consumer after WriteTimeout.
func TestWriteWatchdog(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		read    bool
		timeout time.Duration
		size    int // bytes a packet: the deaf client's must outgrow loopback buffers
	}{
		{"reader", true, 5 * time.Second, 64 << 10},
		{"deaf", false, 100 * time.Millisecond, 1 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := &Server{cfg: Config{WriteTimeout: tc.timeout}, metrics: newMetrics()}
			accepted := make(chan *websocket.Conn, 1)
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				conn, err := websocket.Accept(w, r, nil)
				if err != nil {
					t.Error(err)
					return
				}
				accepted <- conn
				<-r.Context().Done()
			}))
			defer hs.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			client, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(hs.URL, "http"), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer client.CloseNow()
			client.SetReadLimit(-1)
			const packets = 24
			got := make(chan int, 1)
			if tc.read {
				go func() {
					n := 0
					for n < packets {
						if _, _, err := client.Read(ctx); err != nil {
							break
						}
						n++
					}
					got <- n
				}()
			}
			sctx, scancel := context.WithCancel(context.Background())
			c := &session{conn: <-accepted, ctx: sctx, cancel: scancel,
				out: make(chan []byte, packets), free: make(chan []byte, packets)}
			for range packets {
				c.out <- make([]byte, tc.size)
			}
			done := make(chan struct{})
			go func() { s.writeLoop(c); close(done) }()
			if tc.read {
				if n := <-got; n != packets {
					t.Errorf("client read %d packets, want %d", n, packets)
				}
				if c.closed() {
					t.Errorf("session ended: %s", c.reasonText())
				}
				if len(c.free) != packets {
					t.Errorf("%d buffers recycled, want %d", len(c.free), packets)
				}
				scancel()
				<-done
				return
			}
			select {
			case <-done:
			case <-ctx.Done():
				t.Fatal("the writer is still blocked")
			}
			if got := c.reason(); got != "slow_consumer" || !strings.Contains(c.reasonText(), "timed out") {
				t.Errorf("session ended with %q (%q), want slow_consumer after a timed out write", got, c.reasonText())
			}
		})
	}
}
