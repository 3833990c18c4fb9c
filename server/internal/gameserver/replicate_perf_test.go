package gameserver

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/coder/websocket"
	"testing"

	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
)

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
