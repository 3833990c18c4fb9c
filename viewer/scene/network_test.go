package scene

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/client/clienttest"
	"github.com/twinframe/twinframe/client/netsim"
	"github.com/twinframe/twinframe/shared/debugdraw"
	"github.com/twinframe/twinframe/shared/debugdraw/debugdrawtest"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/replication/replicationtest"
	"github.com/twinframe/twinframe/shared/world"
	"github.com/twinframe/twinframe/shared/xdump"
)

// startServer runs the scripted server of clienttest at 20 Hz behind a real websocket.
func startServer(t *testing.T) *clienttest.Server {
	t.Helper()
	s, err := clienttest.NewServer(&replicationtest.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	s.Listen()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx, replica.FrameDuration) }()
	t.Cleanup(func() { cancel(); <-done; s.Close() })
	return s
}

// until ticks the source like a viewer (every 10 ms of real time: the client's clock is
// real) until cond holds or the timeout passes.
func until(t *testing.T, n *network, start time.Time, timeout time.Duration, what string, cond func(Status) bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		n.Update(time.Since(start))
		if cond(n.Status()) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s; status %+v", what, n.Status())
}

func TestNetworkSource(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: real websocket and 20 Hz server; make test runs it")
	}
	srv := startServer(t)
	n := newNetwork(NetworkOptions{URL: srv.URL, Name: "viewer-test", NoXdump: true})
	defer n.Close()
	start := time.Now()
	until(t, n, start, 15*time.Second, "connection", func(s Status) bool { return s.Connected && s.AvatarID != 0 && s.ServerFrame > 0 })
	st := n.Status()
	if st.Mode != "network" || st.Entities == 0 {
		t.Fatalf("status %+v", st)
	}
	goal := mgl32.Vec2{st.Avatar[0] + 6, st.Avatar[1] - 3}
	if err := n.Do(Command{Kind: cmdMoveTo, Point: goal}); err != nil {
		t.Fatal(err)
	}
	until(t, n, start, 15*time.Second, "the avatar to arrive", func(s Status) bool {
		return !s.Moving && mgl32.Vec2{s.Avatar[0], s.Avatar[1]}.Sub(goal).Len() < 0.6
	})
	var rec debugdrawtest.Recorder
	n.Draw(&rec, defaultOverlays, 0)
	if len(rec.Calls) < 100 {
		t.Errorf("drew %d primitives", len(rec.Calls))
	}
	var none debugdrawtest.Recorder
	n.Draw(&none, 0, 0)
	if len(none.Calls) != 0 {
		t.Errorf("no overlays drew %d primitives", len(none.Calls))
	}
	st = n.Status()
	if id := n.Pick(mgl32.Vec2{st.Avatar[0], st.Avatar[1]}); id != st.AvatarID {
		t.Errorf("Pick at the avatar = %d, want %d", id, st.AvatarID)
	}
	if f := n.Inspect(st.AvatarID); len(f) < 10 {
		t.Errorf("inspector: %v", f)
	}
	if n.Graphs()[1].Len() == 0 {
		t.Error("no RTT samples")
	}
	if n.simTime() <= 0 {
		t.Error("the frame split has no prediction time")
	}
	// A deity's server-side debug draw shows with the sweeps; server errors reach the log.
	count := func(ov Overlay) int {
		var r debugdrawtest.Recorder
		n.Draw(&r, ov, 0)
		return len(r.Calls)
	}
	before := count(ovSweeps)
	var dd protocol.DrawRecorder
	dd.Segment(mgl32.Vec2{1, 1}, mgl32.Vec2{5, 5}, debugdraw.Red)
	dd.Circle(mgl32.Vec2{5, 5}, 1, debugdraw.Red, false)
	n.onMessage(dd.Msg)
	n.onMessage(&pb.NetMessageError{Text: "test error"})
	if got := count(ovSweeps); got != before+2 {
		t.Errorf("server debug draw: %d primitives, want %d", got, before+2)
	}
	n.Update(time.Since(start))
	if l := n.Log(); len(l) == 0 || !strings.Contains(l[len(l)-1].Text, "test error") {
		t.Errorf("server error not logged: %v", l)
	}

	// The inspector shows the server's xdump row of the entity (scripted here: the test
	// server does not answer xdump requests).
	w := world.New()
	w.State.Entities = []world.Entity{{ID: int64(st.AvatarID), Prototype: 0, Pos: mgl32.Vec2{1.5, 2.5}, Owner: 7}}
	var meta, row bytes.Buffer
	w.Xdump(&meta, "xdump meta entity", xdump.Viewer{Deity: true})
	w.Xdump(&row, "xdump entity *", xdump.Viewer{Deity: true})
	n.onMessage(&pb.NetMessageXDumpResponse{Text: meta.String()})
	n.onMessage(&pb.NetMessageXDumpResponse{Text: row.String()})
	found := false
	for _, f := range n.Inspect(st.AvatarID) {
		if f.Name == "xdump pos(1)" && f.Value == "2.5" {
			found = true
		}
	}
	if !found {
		t.Errorf("no xdump row in the inspector: %v", n.Inspect(st.AvatarID))
	}

	// Latency makes the authoritative state lag: the source keeps working.
	if err := n.SetNet(netsim.Conditions{Latency: 60 * time.Millisecond, Loss: 0.02}); err != nil {
		t.Fatal(err)
	}
	n.Update(time.Since(start))
	if s := n.Status(); s.NetLatencyMS != 60 || s.NetLossPct != 2 {
		t.Errorf("status shows latency %v ms, loss %v %%; want 60 and 2", s.NetLatencyMS, s.NetLossPct)
	}
	if err := n.SetNet(netsim.Conditions{Latency: -1}); err == nil {
		t.Error("negative latency accepted")
	}
	until(t, n, start, 5*time.Second, "frames with latency", func(s Status) bool { return s.ServerFrame > st.ServerFrame+10 })

	// Losing the server: disconnected, with the reason, then retrying.
	srv.Close()
	until(t, n, start, 10*time.Second, "the disconnection", func(s Status) bool { return !s.Connected && s.Error != "" })
}

// TestNetworkKeepsIssuedToken: the source keeps the token its first login was
// issued, hands it to OnIssuedToken, and logs in with it when it reconnects
// (without it the server refuses the name: BAD_SECRET).
func TestNetworkKeepsIssuedToken(t *testing.T) {
	if testing.Short() {
		t.Skip("real websocket and 20 Hz server")
	}
	srv := startServer(t)
	var issued []string
	n := newNetwork(NetworkOptions{URL: srv.URL, Name: "returning", NoXdump: true,
		OnIssuedToken: func(tok string) { issued = append(issued, tok) }})
	defer n.Close()
	start := time.Now()
	until(t, n, start, 15*time.Second, "connection", func(s Status) bool { return s.Connected && s.AvatarID != 0 })
	if len(issued) != 1 || len(issued[0]) < 43 {
		t.Fatalf("issued tokens %q", issued)
	}
	first := n.Status().AvatarID
	srv.Kick()
	until(t, n, start, 10*time.Second, "the disconnection", func(s Status) bool { return !s.Connected })
	until(t, n, start, 15*time.Second, "the reconnection", func(s Status) bool { return s.Connected && s.AvatarID != 0 && s.AvatarID != first })
	if len(issued) != 1 {
		t.Errorf("issued tokens %q: the reconnection was issued another", issued)
	}
	// Another viewer under the name, without the token, is refused.
	other := newNetwork(NetworkOptions{URL: srv.URL, Name: "returning", NoXdump: true})
	defer other.Close()
	until(t, other, start, 15*time.Second, "the refusal", func(s Status) bool {
		return !s.Connected && strings.Contains(s.Error, "BAD_SECRET")
	})
}

func TestNetworkUnreachable(t *testing.T) {
	n := newNetwork(NetworkOptions{URL: "ws://127.0.0.1:1/ws"})
	defer n.Close()
	start := time.Now()
	until(t, n, start, 15*time.Second, "the dial error", func(s Status) bool { return s.Error != "" && !s.Connected })
	if err := n.Do(Command{Kind: cmdMoveTo}); err == nil {
		t.Error("a command without a connection succeeded")
	}
}
