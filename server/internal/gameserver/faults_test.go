package gameserver

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"google.golang.org/protobuf/proto"
)

// watcher is a well-behaved client that records the server frames it receives.
type watcher struct {
	mu      sync.Mutex
	frames  []uint64
	arrived []time.Time
	stop    chan struct{}
	done    chan struct{}
}

func watch(t *testing.T, c *client) *watcher {
	w := &watcher{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			select {
			case p := <-c.packets:
				for _, m := range p {
					if f, ok := m.(*pb.NetMessageServerFrame); ok {
						w.mu.Lock()
						w.frames = append(w.frames, f.Frame)
						w.arrived = append(w.arrived, time.Now())
						w.mu.Unlock()
					}
				}
			case <-c.done:
				return
			case <-w.stop:
				return
			}
		}
	}()
	return w
}

func (w *watcher) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.frames)
}

// TestFaults: malformed packets, unknown ids, oversized messages, a flood, a
// deity message from a player, a bad token and a client that never reads are
// each disconnected with a close code and a reason, while a well-behaved client
// keeps receiving every frame at 20 Hz.
func TestFaults(t *testing.T) {
	checkLeaks(t)
	smallSendBuffer := func(ts *httptest.Server) {
		ts.Config.ConnContext = nil
		ts.Config.ConnState = func(c net.Conn, st http.ConnState) {
			if st == http.StateNew {
				_ = c.(*net.TCPConn).SetWriteBuffer(4096)
			}
		}
	}
	s := startServer(t, "", func(c *Config) { c.OutboxSize = 8 }, smallSendBuffer)
	good := dial(t, s.url, dialOpt{})
	good.login("good", nil)
	w := watch(t, good)
	start := time.Now()

	packet := func(id protocol.ID, payload []byte) []byte {
		b := protocol.AppendHeader(nil, protocol.Header{Mux: protocol.MuxGame, Command: protocol.CommandData,
			Size: protocol.SizeRawMessage(id, len(payload))})
		return protocol.AppendRawMessage(b, id, payload)
	}
	ping, _ := proto.Marshal(&pb.NetMessagePing{ClientTimeMicros: 1})
	cases := []struct {
		name  string
		token *string
		login bool
		act   func(c *client) error
		code  pb.ErrorCode
	}{
		{"malformed", nil, true, func(c *client) error { return c.sendRaw([]byte{1, 0, 9, 0, 0, 5, 1}) },
			pb.ErrorCode_ERROR_CODE_BAD_PACKET},
		{"bad-payload", nil, true, func(c *client) error { return c.sendRaw(packet(2, []byte{0xff, 0xff})) },
			pb.ErrorCode_ERROR_CODE_BAD_PACKET},
		{"unknown-id", nil, true, func(c *client) error { return c.sendRaw(packet(99, nil)) },
			pb.ErrorCode_ERROR_CODE_UNKNOWN_MESSAGE},
		{"server-message", nil, true, func(c *client) error { return c.sendRaw(packet(66, nil)) },
			pb.ErrorCode_ERROR_CODE_UNKNOWN_MESSAGE},
		{"oversized-message", nil, true, func(c *client) error {
			return c.sendRaw(packet(5, bytes.Repeat([]byte{0}, 100)))
		}, pb.ErrorCode_ERROR_CODE_TOO_LARGE},
		{"oversized-packet", nil, true, func(c *client) error {
			return c.sendRaw(packet(6, bytes.Repeat([]byte{0}, 300<<10)))
		}, pb.ErrorCode_ERROR_CODE_TOO_LARGE},
		{"flood", nil, true, func(c *client) error {
			var b []byte
			for range 60 {
				b = protocol.AppendRawMessage(b, 5, ping)
			}
			pk := protocol.AppendHeader(nil, protocol.Header{Mux: protocol.MuxGame, Command: protocol.CommandData, Size: len(b)})
			pk = append(pk, b...)
			for range 1000 {
				if err := c.sendRaw(pk); err != nil {
					break // closed by the server: expected
				}
			}
			return nil
		}, pb.ErrorCode_ERROR_CODE_FLOOD},
		{"deity-only", nil, true, func(c *client) error {
			return c.send(&pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_PAUSE})
		}, pb.ErrorCode_ERROR_CODE_NOT_AUTHORIZED},
		{"teleport by a player", nil, true, func(c *client) error {
			return c.send(&pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_TELEPORT, PlayerName: "p6", RegionId: 1, MarkerId: 69})
		}, pb.ErrorCode_ERROR_CODE_NOT_AUTHORIZED},
		{"bad-token", proto.String("wrong"), true, func(*client) error { return nil },
			pb.ErrorCode_ERROR_CODE_NOT_AUTHORIZED},
		{"no-login", nil, false, func(c *client) error { return c.send(&pb.NetMessagePing{}) },
			pb.ErrorCode_ERROR_CODE_NOT_LOGGED_IN},
		{"bad-name", nil, false, func(c *client) error {
			return c.send(&pb.NetMessageLogin{Name: " ", ProtocolVersion: protocol.Version})
		}, pb.ErrorCode_ERROR_CODE_BAD_LOGIN},
		{"old-protocol", nil, false, func(c *client) error {
			return c.send(&pb.NetMessageLogin{Name: "old", ProtocolVersion: protocol.Version + 1})
		}, pb.ErrorCode_ERROR_CODE_PROTOCOL_VERSION},
	}
	for i, tc := range cases {
		c := dial(t, s.url, dialOpt{})
		if tc.login {
			c.login(fmt.Sprintf("bad%d", i), tc.token)
		}
		if err := tc.act(c); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		code, msg := c.closedWith(wait)
		want := websocket.StatusCode(CloseCodeBase + int(tc.code))
		if code != want || msg == nil || msg.Code != tc.code || msg.Text == "" {
			t.Errorf("%s: closed with %d after %v; want %d after an error %v with a reason", tc.name, code, msg, want, tc.code)
		} else {
			t.Logf("%s: close %d, %q", tc.name, code, msg.Text)
		}
	}
	// A client that never reads is cut as a slow consumer.
	before := s.metrics.disconnectCount("slow_consumer")
	deaf := dial(t, s.url, dialOpt{readBuffer: 4096, noRead: true})
	deaf.login("deaf", nil)
	deadline := time.Now().Add(wait)
	for s.metrics.disconnectCount("slow_consumer") == before {
		if time.Now().After(deadline) {
			t.Fatal("the client that never reads is still connected")
		}
		s.inLoop(t, func() {}) // wait one frame
	}
	s.inLoop(t, func() {}) // the loop has seen the session end
	if got := s.metrics.disconnectCount("slow_consumer"); got != before+1 {
		t.Errorf("slow consumers disconnected: %d, want %d", got, before+1)
	}

	// The good client saw every frame, in order, at about 20 Hz.
	n0 := w.count()
	for w.count() < n0+10 {
		select {
		case <-good.done:
			t.Fatalf("the good client was disconnected: %v", good.err)
		case <-time.After(wait):
			t.Fatal("the good client stopped receiving frames")
		default:
		}
		s.inLoop(t, func() {})
	}
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := 1; i < len(w.frames); i++ {
		if w.frames[i] != w.frames[i-1]+1 {
			t.Errorf("frame %d after %d", w.frames[i], w.frames[i-1])
		}
	}
	elapsed := w.arrived[len(w.arrived)-1].Sub(w.arrived[0]).Seconds()
	rate := float64(len(w.frames)-1) / elapsed
	t.Logf("good client: %d frames in %.2f s (%.1f Hz) over %v", len(w.frames), elapsed, rate, time.Since(start))
	if rate < 10 || rate > 30 {
		t.Errorf("good client received %.1f frames/s, want about 20", rate)
	}
}
