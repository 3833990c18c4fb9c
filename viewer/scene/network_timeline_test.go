package scene

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/geom"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/sim"
)

// testContact is a server's explanation of a mover's contact with a wall.
func testContact(frame uint64, a sim.EntityID) sim.Contact {
	return sim.Contact{Frame: frame, A: a, RadiusA: 0.5, Start: mgl32.Vec2{1, 2.7}, Motion: mgl32.Vec2{0, -0.4},
		Swept: mgl32.Vec2{0, -0.4}, End: mgl32.Vec2{1.2, 2.5}, TOI: 0.5, At: mgl32.Vec2{1, 2.5}, Point: mgl32.Vec2{1, 2},
		Normal: mgl32.Vec2{0, 1}, Slide: mgl32.Vec2{0.2, 0},
		Edges: []geom.Segment{{A: mgl32.Vec2{0, 2}, B: mgl32.Vec2{4, 2}}, {A: mgl32.Vec2{4, 2}, B: mgl32.Vec2{4, 0}}}, Hit: 0}
}

// In network mode the server's events come from its deity stream: each event of a
// debug draw is a row at the draw's frame, marked as the server's, a collision with
// the server's explanation of its mover's contact (both of a mover's collisions of
// the frame share it) or why there is none; events and contacts the server left out,
// and a contact it sent that cannot be read, are logged.
func TestNetworkTimelineServerEvents(t *testing.T) {
	t.Parallel()
	n := newNetwork(NetworkOptions{URL: "ws://127.0.0.1:1/ws"})
	c := testContact(40, 5)
	n.onMessage(&pb.NetMessageDebugDraw{Frame: 40, Events: []*pb.NetStructDebugEvent{
		{Kind: pb.DebugEventKind_DEBUG_EVENT_KIND_COLLIDE, EntityId: 5, OtherId: 0, PointX: 1, PointY: 2, NormalX: 0, NormalY: 1},
		{Kind: pb.DebugEventKind_DEBUG_EVENT_KIND_COLLIDE, EntityId: 5, OtherId: 9, PointX: 1, PointY: 2, NormalX: 0, NormalY: 1},
		{Kind: pb.DebugEventKind_DEBUG_EVENT_KIND_COLLIDE, EntityId: 6, OtherId: 9, PointX: 3, PointY: 2, NormalX: 1, NormalY: 0},
		{Kind: pb.DebugEventKind_DEBUG_EVENT_KIND_OVERLAP_BEGIN, EntityId: 5, OtherId: 11},
		{Kind: pb.DebugEventKind(99), EntityId: 1},
		{Kind: pb.DebugEventKind_DEBUG_EVENT_KIND_POWER, EntityId: 7, OtherId: 9, PointX: 3, PointY: 4, Value: 10},
	}, EventsDropped: 3, Contacts: []*pb.NetStructDebugContact{protocol.ContactMessage(&c), {EntityId: 8, Edges: []float32{1}}},
		ContactsDropped: 2})
	rows := n.tl.rowsMatching(TimelineFilter{}, 0)
	const why = "the server sent no explanation of this contact: it explained 2 of frame 40's and left out 2 more"
	want := []TimelineRow{
		{Index: 0, Frame: 40, Kind: KindCollide, A: 5, B: 0, Point: [2]float32{1, 2}, Normal: [2]float32{0, 1}, Origin: OriginServer},
		{Index: 1, Frame: 40, Kind: KindCollide, A: 5, B: 9, Point: [2]float32{1, 2}, Normal: [2]float32{0, 1}, Origin: OriginServer},
		{Index: 2, Frame: 40, Kind: KindCollide, A: 6, B: 9, Point: [2]float32{3, 2}, Normal: [2]float32{1, 0}, Origin: OriginServer, why: why},
		{Index: 3, Frame: 40, Kind: KindOverlapBegin, A: 5, B: 11, Origin: OriginServer},
		{Index: 4, Frame: 40, Kind: KindPower, A: 7, B: 9, Point: [2]float32{3, 4}, Value: "damage 10", Origin: OriginServer},
	}
	for i := range rows {
		if i < 2 && (rows[i].contact == nil || !reflect.DeepEqual(*rows[i].contact, c)) {
			t.Errorf("row %d: contact %+v, want %+v", i, rows[i].contact, c)
		}
		rows[i].contact = nil
	}
	if !slices.Equal(rows, want) {
		t.Fatalf("rows %+v\nwant %+v", rows, want)
	}
	n.inbox.logErrors(&n.log, 40)
	var log []string
	for _, e := range n.log.entries {
		log = append(log, e.Text)
	}
	for _, w := range []string{"3 events of frame 40", "2 contacts of frame 40", "frame 40: protocol: malformed message payload (NetMessageDebugDraw.contacts[1])"} {
		if !slices.ContainsFunc(log, func(l string) bool { return strings.Contains(l, w) }) {
			t.Errorf("log %q lacks %q", log, w)
		}
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
// its entities, and lists and draws the server's explanation of the contact, or says
// why there is none.
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
	c := testContact(f, sim.EntityID(st.AvatarID))
	n.onMessage(&pb.NetMessageDebugDraw{Frame: f, Events: []*pb.NetStructDebugEvent{
		{Kind: pb.DebugEventKind_DEBUG_EVENT_KIND_COLLIDE, EntityId: st.AvatarID, OtherId: 0, PointX: 1, PointY: 2, NormalX: 1},
		{Kind: pb.DebugEventKind_DEBUG_EVENT_KIND_COLLIDE, EntityId: st.AvatarID + 1, OtherId: 0, PointX: 5, PointY: 2, NormalX: 1}},
		Contacts: []*pb.NetStructDebugContact{protocol.ContactMessage(&c)}})
	v := NewView(n)
	rows := v.Timeline(TimelineFilter{Kinds: []string{KindCollide}}, 0)
	if len(rows) != 2 {
		t.Fatalf("rows %+v, want the server's collisions", rows)
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
	// The contact the server explained is listed and drawn as the sandbox does its own.
	if sel := v.Selection(); sel.Row == nil || sel.Error != "" || !slices.Equal(sel.Contact, contactFields(&c)) {
		t.Errorf("selection %+v: want the server's contact %v", sel, contactFields(&c))
	}
	if !hasLabel(v.Build().Labels(), "toi ") {
		t.Error("the server's contact is not drawn (no time-of-impact label)")
	}
	// A collision the server did not explain: its point and normal, and why no more.
	if _, err := v.SelectRow(rows[1].Index); err != nil {
		t.Fatal(err)
	}
	v.Tick(time.Since(start), Input{}, 800, 600)
	if sel := v.Selection(); sel.Row == nil || !strings.Contains(sel.Error, "no explanation") || len(sel.Contact) != 3 {
		t.Errorf("selection %+v: want the row's point and normal and why there is no more", sel)
	}
	if hasLabel(v.Build().Labels(), "toi ") {
		t.Error("a contact is drawn for a row without one")
	}
	if _, err := v.SelectRow(99); err == nil {
		t.Error("picking a row that does not exist succeeded")
	}
}
