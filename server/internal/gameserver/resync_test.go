package gameserver

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/go-gl/mathgl/mgl32"
	tfclient "github.com/twinframe/twinframe/client"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/replication"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
	"google.golang.org/protobuf/proto"
)

// tamperConn is the project client's websocket with a script between it and the
// server: armed, it rewrites the next packet the script accepts; it counts the
// resync requests the client writes.
type tamperConn struct {
	ws *websocket.Conn

	mu       sync.Mutex
	script   func(msgs []proto.Message) ([]proto.Message, bool) // nil: disarmed
	tampered int
	requests []*pb.NetMessageResyncRequest
}

func (c *tamperConn) arm(script func([]proto.Message) ([]proto.Message, bool)) {
	c.mu.Lock()
	c.script = script
	c.mu.Unlock()
}

func (c *tamperConn) Read(ctx context.Context) ([]byte, error) {
	_, b, err := c.ws.Read(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.script == nil {
		return b, nil
	}
	rd := protocol.Reader{Limits: tfclient.ReadLimits}
	h, msgs, err := rd.ReadAll(b)
	if err != nil {
		return nil, err
	}
	out, ok := c.script(msgs)
	if !ok {
		return b, nil
	}
	c.script = nil
	c.tampered++
	pk := protocol.Packet{Limits: serverPacketLimits}
	pk.Reset(h.Mux, h.Command)
	for _, m := range out {
		if err := pk.Append(m); err != nil {
			return nil, err
		}
	}
	return slices.Clone(pk.Bytes()), nil
}

func (c *tamperConn) Write(ctx context.Context, p []byte) error {
	var rd protocol.Reader
	if _, err := rd.Reset(p); err == nil {
		for rd.Next() {
			if m, err := rd.Message(); err == nil {
				if r, ok := m.(*pb.NetMessageResyncRequest); ok {
					c.mu.Lock()
					c.requests = append(c.requests, r)
					c.mu.Unlock()
				}
			}
		}
	}
	return c.ws.Write(ctx, websocket.MessageBinary, p)
}

func (c *tamperConn) Close() error { return c.ws.Close(websocket.StatusNormalClosure, "") }

func (c *tamperConn) counts() (tampered int, requests []*pb.NetMessageResyncRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tampered, slices.Clone(c.requests)
}

// firstOf is a script that rewrites the first packet holding a message of T.
func firstOf[T proto.Message](rewrite func(msgs []proto.Message) []proto.Message) func([]proto.Message) ([]proto.Message, bool) {
	return func(msgs []proto.Message) ([]proto.Message, bool) {
		for _, m := range msgs {
			if _, ok := m.(T); ok {
				return rewrite(msgs), true
			}
		}
		return nil, false
	}
}

// TestResync: scripted inconsistent data between the real server and the
// project's client (an update before the create, a destroy of an unknown entity,
// a region whose tables do not match their hash) makes the client send one
// resync request; the server's answer leaves its replica holding exactly what
// the server says it holds, and the avatar walks on.
func TestResync(t *testing.T) {
	checkLeaks(t)
	s := startServer(t, "", nil)
	const unknown = 1 << 40
	update, err := replication.PackLocomotion(&locomotion.State{Entity: unknown, Frame: 1,
		Fields: locomotion.Relative | locomotion.HasPosition})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		atLogin bool // the script applies to the login packet
		script  func([]proto.Message) ([]proto.Message, bool)
		reason  pb.ResyncReason
	}{
		{"update-before-create", false, firstOf[*pb.NetMessageServerFrame](func(msgs []proto.Message) []proto.Message {
			return append(msgs, &pb.NetMessageLocomotionStateUpdate{ArchiveData: update})
		}), pb.ResyncReason_RESYNC_REASON_UNKNOWN_ENTITY},
		{"destroy-unknown", false, firstOf[*pb.NetMessageServerFrame](func(msgs []proto.Message) []proto.Message {
			return append(msgs, &pb.NetMessageEntityDestroy{EntityId: unknown})
		}), pb.ResyncReason_RESYNC_REASON_UNKNOWN_ENTITY},
		{"hash-mismatch", true, firstOf[*pb.NetMessageRegionChange](func(msgs []proto.Message) []proto.Message {
			for _, m := range msgs {
				if rc, ok := m.(*pb.NetMessageRegionChange); ok {
					rc.TablesHash = make([]byte, len(rc.TablesHash))
				}
			}
			return msgs
		}), pb.ResyncReason_RESYNC_REASON_HASH_MISMATCH},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			ws, _, err := websocket.Dial(ctx, s.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			ws.SetReadLimit(int64(tfclient.ReadLimits.MaxPacketSize))
			conn := &tamperConn{ws: ws}
			if tc.atLogin {
				conn.arm(tc.script)
			}
			name := fmt.Sprintf("resync%d", i)
			c, err := tfclient.New(conn, &tfclient.Options{Name: name})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := c.WaitReady(ctx); err != nil {
				t.Fatal(err)
			}
			if !tc.atLogin {
				conn.arm(tc.script)
			}
			// Wait for the inconsistency and its resync.
			var st replica.Stats
			var reason error
			for {
				c.With(func(r *replica.Replica) { st, reason = r.Stats(), r.ResyncReason() })
				tampered, _ := conn.counts()
				if tampered == 1 && st.Resyncs == 1 && reason == nil && st.Errors > 0 {
					break
				}
				step(t, ctx, c)
			}
			// Pause the game and let the client catch up: then the replica must
			// hold exactly the session's view.
			s.inLoop(t, func() { s.paused = true })
			var frame uint64
			var view []uint64
			s.inLoop(t, func() { frame, view = s.hub().Frame(), slices.Clone(s.byName[name].view.Visible()) })
			var held []uint64
			for {
				var at uint64
				var paused bool
				c.With(func(r *replica.Replica) {
					at, paused, held, reason = r.ServerFrame(), r.Paused(), r.IDs(held[:0]), r.ResyncReason()
				})
				if at == frame && paused {
					break
				}
				step(t, ctx, c)
			}
			if reason != nil {
				t.Fatalf("inconsistent after the resync: %v", reason)
			}
			if !slices.Equal(held, view) || len(view) == 0 {
				t.Fatalf("the replica holds %v; the server's view is %v", held, view)
			}
			_, reqs := conn.counts()
			if len(reqs) != 1 || reqs[0].GetReason() != tc.reason || reqs[0].GetDetail() == "" {
				t.Fatalf("resync requests %v, want one with reason %v", reqs, tc.reason)
			}
			t.Logf("%d inconsistencies, one request (%v: %s), %d entities after the resync",
				st.Errors, reqs[0].GetReason(), reqs[0].GetDetail(), len(held))
			// The client carries on: an input is predicted, applied and
			// acknowledged, and nothing is inconsistent any more.
			s.inLoop(t, func() { s.paused = false })
			var pos mgl32.Vec2
			c.With(func(r *replica.Replica) {
				st, _ := r.State(r.Player())
				pos = st.Position.Vec2()
			})
			if err := c.MoveTo(pos.Add(mgl32.Vec2{1, 0})); err != nil {
				t.Fatal(err)
			}
			for end := frame + 20; ; {
				var pending int
				var after replica.Stats
				var at uint64
				c.With(func(r *replica.Replica) {
					pending, after, at, reason = r.PendingInputs(), r.Stats(), r.ServerFrame(), r.ResyncReason()
				})
				if reason != nil || after.Errors != st.Errors || after.ResyncRequests != 1 {
					t.Fatalf("after the resync: %v, stats %+v", reason, after)
				}
				if pending == 0 && at >= end {
					break
				}
				step(t, ctx, c)
			}
		})
	}
}

// step runs the client's per-frame update and waits about a frame.
func step(t *testing.T, ctx context.Context, c *tfclient.Client) {
	t.Helper()
	if err := c.Update(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Done():
		t.Fatalf("disconnected: %v", c.Err())
	case <-ctx.Done():
		t.Fatal("timed out")
	case <-time.After(10 * time.Millisecond):
	}
}

// TestResyncFlood: a client that floods resync requests is disconnected with a
// close code and a reason, while another client keeps receiving its frames.
func TestResyncFlood(t *testing.T) {
	checkLeaks(t)
	s := startServer(t, "", func(c *Config) { c.NoPopulation = true })
	good := dial(t, s.url, dialOpt{})
	good.login("good", nil)
	w := watch(t, good)
	bad := dial(t, s.url, dialOpt{})
	bad.login("flooder", nil)
	// Within the limit: answered with the login result and the region.
	req := &pb.NetMessageResyncRequest{Reason: pb.ResyncReason_RESYNC_REASON_OTHER, Detail: "test"}
	if err := bad.send(req); err != nil {
		t.Fatal(err)
	}
	regions := 0
	for regions < 2 { // the login's and the answer's
		for _, m := range bad.next(wait) {
			if _, ok := m.(*pb.NetMessageRegionChange); ok {
				regions++
			}
		}
	}
	// Over it.
	msgs := slices.Repeat([]proto.Message{req}, resyncBurst)
	if err := bad.send(msgs...); err != nil {
		t.Fatal(err)
	}
	code, msg := bad.closedWith(wait)
	want := websocket.StatusCode(CloseCodeBase + int(pb.ErrorCode_ERROR_CODE_FLOOD))
	if code != want || msg == nil || msg.Code != pb.ErrorCode_ERROR_CODE_FLOOD || msg.Text == "" {
		t.Fatalf("closed with %d after %v; want %d after a flood error with a reason", code, msg, want)
	}
	t.Logf("close %d, %q", code, msg.Text)
	n0 := w.count()
	deadline := time.Now().Add(wait)
	for w.count() < n0+10 {
		select {
		case <-good.done:
			t.Fatalf("the good client was disconnected: %v", good.err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the good client stopped receiving frames")
		}
		s.inLoop(t, func() {})
	}
	close(w.stop)
	<-w.done
}
