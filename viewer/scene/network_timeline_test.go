package scene

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/sim"
)

// In network mode the server's events come from its deity stream: each event of a
// debug draw is a row at the draw's frame, marked as the server's; events the server
// left out are logged.
func TestNetworkTimelineServerEvents(t *testing.T) {
	t.Parallel()
	n := newNetwork(NetworkOptions{URL: "ws://127.0.0.1:1/ws"})
	n.onMessage(&pb.NetMessageDebugDraw{Frame: 40, Events: []*pb.NetStructDebugEvent{
		{Kind: pb.DebugEventKind_DEBUG_EVENT_KIND_COLLIDE, A: 5, B: 9, X: 1, Y: 2, Nx: 0, Ny: 1},
		{Kind: pb.DebugEventKind_DEBUG_EVENT_KIND_OVERLAP_BEGIN, A: 5, B: 11},
		{Kind: pb.DebugEventKind(99), A: 1},
		{Kind: pb.DebugEventKind_DEBUG_EVENT_KIND_POWER, A: 7, B: 9, X: 3, Y: 4, Value: 10},
	}, EventsDropped: 3})
	rows := n.tl.rowsMatching(TimelineFilter{}, 0)
	want := []TimelineRow{
		{Index: 0, Frame: 40, Kind: KindCollide, A: 5, B: 9, Point: [2]float32{1, 2}, Normal: [2]float32{0, 1}, Origin: OriginServer},
		{Index: 1, Frame: 40, Kind: KindOverlapBegin, A: 5, B: 11, Origin: OriginServer},
		{Index: 2, Frame: 40, Kind: KindPower, A: 7, B: 9, Point: [2]float32{3, 4}, Value: "damage 10", Origin: OriginServer},
	}
	if !slices.Equal(rows, want) {
		t.Fatalf("rows %+v\nwant %+v", rows, want)
	}
	n.inbox.logErrors(&n.log, 40)
	if len(n.log.entries) != 1 || !strings.Contains(n.log.entries[0].Text, "3 events of frame 40") {
		t.Errorf("log %v, want the 3 events left out", n.log.entries)
	}
}

// The client's own rows: its travels, its prediction's corrections (each once, though
// the drift log repeats them every update) and, for a player, replicated power results.
func TestNetworkTimelineClientRows(t *testing.T) {
	t.Parallel()
	for _, deity := range []bool{false, true} {
		n := newNetwork(NetworkOptions{URL: "ws://127.0.0.1:1/ws"})
		if deity {
			n.conn.deityToken = "t"
		}
		r := replica.New(nil)
		n.changes = []replica.RegionChange{{From: 0, To: 1, Frame: 30, Travel: true}, {To: 0, Frame: 1}}
		n.graphs.drifts = []replica.DriftSample{{Frame: 31, PosError: 0.01}, {Frame: 32, Corrected: true, PosError: 0.5, Correction: 0.4, Replayed: 3}}
		n.powers = []sim.PowerResult{{Frame: 33, Source: 2, Target: 3, Projectile: 4, Damage: 10, Point: mgl32.Vec2{1, 1}}}
		n.clientRows(r)
		n.changes, n.powers = nil, nil
		n.clientRows(r) // the same drift log again
		rows := n.tl.rowsMatching(TimelineFilter{}, 0)
		kinds := []string{}
		for _, row := range rows {
			if row.Origin != OriginClient {
				t.Errorf("row %+v not the client's", row)
			}
			kinds = append(kinds, row.Kind)
		}
		want := "region correction power"
		if deity {
			want = "region correction"
		}
		if got := strings.Join(kinds, " "); got != want {
			t.Errorf("deity %v: rows %s, want %s", deity, got, want)
		}
	}
}

// Picking a server row while connected shows the recorded frame of the row, selects
// its entities, and says the contact's sweep is the server's.
func TestNetworkTimelineSelectRow(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: real websocket and 20 Hz server; make test runs it")
	}
	srv := startServer(t)
	n := newNetwork(NetworkOptions{URL: srv.URL, Name: "timeline-test", NoXdump: true})
	defer n.Close()
	start := time.Now()
	until(t, n, start, 15*time.Second, "a recording", func(s Status) bool { return s.Connected && s.Recorded > s.RecordedFrom+10 })
	st := n.Status()
	f := st.RecordedFrom + 5
	n.onMessage(&pb.NetMessageDebugDraw{Frame: f, Events: []*pb.NetStructDebugEvent{
		{Kind: pb.DebugEventKind_DEBUG_EVENT_KIND_COLLIDE, A: st.AvatarID, B: 0, X: 1, Y: 2, Nx: 1}}})
	v := NewView(n)
	rows := v.Timeline(TimelineFilter{Kinds: []string{KindCollide}}, 0)
	if len(rows) != 1 {
		t.Fatalf("rows %+v, want the server's collision", rows)
	}
	if _, err := v.SelectRow(rows[0].Index); err != nil {
		t.Fatal(err)
	}
	v.Tick(time.Since(start), Input{}, 800, 600)
	snap := v.Snapshot()
	if !snap.Replaying || snap.Frame != f || snap.Selected != st.AvatarID {
		t.Fatalf("after picking the row at frame %d: replaying %v, frame %d, selected %d (avatar %d)",
			f, snap.Replaying, snap.Frame, snap.Selected, st.AvatarID)
	}
	if sel := v.Selection(); sel.Row == nil || !strings.Contains(sel.Error, "server") || len(sel.Contact) != 3 {
		t.Errorf("selection %+v: want the row's point and normal and why there is no more", sel)
	}
	if _, err := v.SelectRow(99); err == nil {
		t.Error("picking a row that does not exist succeeded")
	}
}
