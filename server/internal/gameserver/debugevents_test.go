package gameserver

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
	"google.golang.org/protobuf/proto"
)

// wantEvents is what debugEvents must send for the frame just stepped in g.
func wantEvents(g *sim.Game) []*pb.NetStructDebugEvent {
	var out []*pb.NetStructDebugEvent
	kinds := map[sim.EventKind]pb.DebugEventKind{
		sim.OnCollide:      pb.DebugEventKind_DEBUG_EVENT_KIND_COLLIDE,
		sim.OnOverlapBegin: pb.DebugEventKind_DEBUG_EVENT_KIND_OVERLAP_BEGIN,
		sim.OnOverlapEnd:   pb.DebugEventKind_DEBUG_EVENT_KIND_OVERLAP_END,
	}
	for _, ev := range g.Events() {
		if k, ok := kinds[ev.Kind]; ok {
			out = append(out, &pb.NetStructDebugEvent{Kind: k, EntityId: uint64(ev.A), OtherId: uint64(ev.B),
				PointX: ev.Point[0], PointY: ev.Point[1], NormalX: ev.Normal[0], NormalY: ev.Normal[1]})
		}
	}
	for _, r := range g.PowerResults() {
		out = append(out, &pb.NetStructDebugEvent{Kind: pb.DebugEventKind_DEBUG_EVENT_KIND_POWER, EntityId: uint64(r.Source),
			OtherId: uint64(r.Target), PointX: r.Point[0], PointY: r.Point[1], NormalX: r.Normal[0], NormalY: r.Normal[1], Value: r.Damage})
	}
	return out
}

func sameEvents(a, b []*pb.NetStructDebugEvent) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Kind != y.Kind || x.EntityId != y.EntityId || x.OtherId != y.OtherId || x.PointX != y.PointX || x.PointY != y.PointY || x.NormalX != y.NormalX || x.NormalY != y.NormalY || x.Value != y.Value {
			return false
		}
	}
	return true
}

// The deity's debug draw carries every collision, overlap change and power result of
// its frame, in the simulation's order; beyond the cap they are counted, not sent.
func TestDebugDrawCarriesEvents(t *testing.T) {
	t.Parallel()
	w, err := world.LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	g, err := sim.New(w, &sim.Options{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	shooter, _ := g.Spawn(0, 0, mgl32.Vec2{64, 64}, 0)
	if _, err := g.Spawn(3, 0, mgl32.Vec2{72, 64}, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Fire(shooter, mgl32.Vec2{72, 64}); err != nil {
		t.Fatal(err)
	}
	seen := map[pb.DebugEventKind]int{}
	capped := false
	for range 400 {
		if err := g.Step(); err != nil {
			t.Fatal(err)
		}
		m := debugDraw(g)
		want := wantEvents(g)
		if m.Frame != g.Frame() || !sameEvents(m.Events, want) || m.EventsDropped != 0 {
			t.Fatalf("frame %d: %d events (%d dropped), want %d", g.Frame(), len(m.Events), m.EventsDropped, len(want))
		}
		for _, e := range m.Events {
			seen[e.Kind]++
		}
		if len(want) > 2 && !capped {
			capped = true
			var c pb.NetMessageDebugDraw
			debugEvents(&c, g, 2)
			if !sameEvents(c.Events, want[:2]) || int(c.EventsDropped) != len(want)-2 {
				t.Errorf("capped at 2: %d events, %d dropped; want the first 2 and %d dropped", len(c.Events), c.EventsDropped, len(want)-2)
			}
		}
	}
	t.Logf("events sent: %v", seen)
	if seen[pb.DebugEventKind_DEBUG_EVENT_KIND_COLLIDE] == 0 || seen[pb.DebugEventKind_DEBUG_EVENT_KIND_POWER] != 1 || !capped {
		t.Errorf("the run did not exercise collisions, a power result and the cap: %v, capped %v", seen, capped)
	}
}

// Over the websocket: a deity that turned the debug draw on receives the server's
// collisions of the default world within a few seconds.
func TestDeityReceivesEvents(t *testing.T) {
	checkLeaks(t)
	s := startServer(t, "", func(c *Config) { c.Period = 5 * time.Millisecond })
	d := dial(t, s.url, dialOpt{})
	d.login("deity", &[]string{testToken}[0])
	if err := d.send(&pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_DRAW_ON}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		for _, m := range d.next(wait) {
			if x, ok := m.(*pb.NetMessageDebugDraw); ok {
				for _, e := range x.Events {
					if e.Kind == pb.DebugEventKind_DEBUG_EVENT_KIND_COLLIDE && e.EntityId != 0 {
						return
					}
				}
			}
		}
	}
	t.Fatal("no collision in the deity's debug-draw stream")
}

// The deity's debug draw explains each collision of its frame: the contact it
// carries for a mover, read back from the bytes sent, is what ExplainContact says
// of that mover right after the same step, for a wall and for an entity; movers
// past the cap are counted, not explained.
func TestDebugDrawExplainsContacts(t *testing.T) {
	t.Parallel()
	w, err := world.LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	g, err := sim.New(w, &sim.Options{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	// Besides the world's crowd, three dummies side by side walk into the region's
	// edge: wall contacts, several in one frame.
	for _, x := range []float32{60, 64, 68} {
		id, err := g.Spawn(0, 0, mgl32.Vec2{x, 64}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.MoveTo(id, mgl32.Vec2{x, -50}); err != nil {
			t.Fatal(err)
		}
	}
	var walls, entities, edges, capped int
	for range 400 {
		if err := g.Step(); err != nil {
			t.Fatal(err)
		}
		b, err := proto.Marshal(debugDraw(g))
		if err != nil {
			t.Fatal(err)
		}
		var m pb.NetMessageDebugDraw
		if err := proto.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		var movers []uint64 // the frame's colliding movers, in first-event order
		for _, e := range m.Events {
			if e.Kind == pb.DebugEventKind_DEBUG_EVENT_KIND_COLLIDE && !slices.Contains(movers, e.EntityId) {
				movers = append(movers, e.EntityId)
			}
		}
		var explained []uint64
		for i, mc := range m.Contacts {
			got, err := protocol.ContactFromMessage(m.Frame, i, mc)
			if err != nil {
				t.Fatal(err)
			}
			want, err := g.ExplainContact(got.A)
			if err != nil {
				t.Fatalf("frame %d: streamed a contact of %d, which ExplainContact refuses: %v", m.Frame, got.A, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("frame %d: streamed contact\n%+v\nExplainContact\n%+v", m.Frame, got, want)
			}
			explained = append(explained, uint64(got.A))
			if got.B == 0 {
				walls++
			} else {
				entities++
			}
			edges += len(got.Edges)
		}
		// Every mover up to the cap is explained unless ExplainContact refuses it.
		var want []uint64
		for _, a := range movers[:min(len(movers), maxDebugContacts)] {
			if _, err := g.ExplainContact(sim.EntityID(a)); err == nil {
				want = append(want, a)
			}
		}
		if !slices.Equal(explained, want) || int(m.ContactsDropped) != max(0, len(movers)-maxDebugContacts) {
			t.Fatalf("frame %d: explained %v (%d dropped), want %v (%d movers)", m.Frame, explained, m.ContactsDropped, want, len(movers))
		}
		if len(want) > 1 && capped == 0 {
			var c pb.NetMessageDebugDraw
			debugEvents(&c, g, maxDebugEvents)
			debugContacts(&c, g, 1)
			if len(c.Contacts) != 1 || c.Contacts[0].EntityId != want[0] || int(c.ContactsDropped) != len(movers)-1 {
				t.Errorf("capped at 1: %d contacts, %d dropped; want %d's and %d dropped", len(c.Contacts), c.ContactsDropped, want[0], len(movers)-1)
			}
			capped++
		}
	}
	t.Logf("contacts streamed: %d with walls, %d with entities, %d edges tested", walls, entities, edges)
	if walls == 0 || entities == 0 || edges == 0 || capped == 0 {
		t.Errorf("the run did not exercise wall and entity contacts, tested edges and the cap")
	}
}
