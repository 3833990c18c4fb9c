package gameserver

import (
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/sim"
)

// maxDebugEvents caps the events one NetMessageDebugDraw carries: a jammed crowd makes
// thousands of collisions a frame, and the deity's timeline needs the first of them,
// not a message near the size cap. The rest are counted in eventsDropped.
const maxDebugEvents = 4096

// maxDebugContacts caps the collisions one NetMessageDebugDraw explains. An
// explanation is a few hundred bytes (its tested navmesh edges most of it) and
// re-runs the mover's sweeps, so a pile-up of hundreds of movers would send tens
// of kilobytes a frame, 20 times a second, to pick one of them in the timeline;
// the first ones of the frame are explained, the rest counted in contactsDropped.
const maxDebugContacts = 64

// debugEvents adds the events of the frame just stepped in g to m, for the deity's
// event timeline: collisions and overlap changes in the simulation's order, then power
// results. Hotspot changes are left out (the page's log has them from the tables).
func debugEvents(m *pb.NetMessageDebugDraw, g *sim.Game, limit int) {
	add := func(e *pb.NetStructDebugEvent) {
		if len(m.Events) >= limit {
			m.EventsDropped++
			return
		}
		m.Events = append(m.Events, e)
	}
	for _, ev := range g.Events() {
		var k pb.DebugEventKind
		switch ev.Kind {
		case sim.OnCollide:
			k = pb.DebugEventKind_DEBUG_EVENT_KIND_COLLIDE
		case sim.OnOverlapBegin:
			k = pb.DebugEventKind_DEBUG_EVENT_KIND_OVERLAP_BEGIN
		case sim.OnOverlapEnd:
			k = pb.DebugEventKind_DEBUG_EVENT_KIND_OVERLAP_END
		default:
			continue
		}
		add(&pb.NetStructDebugEvent{Kind: k, EntityId: uint64(ev.A), OtherId: uint64(ev.B),
			PointX: ev.Point[0], PointY: ev.Point[1], NormalX: ev.Normal[0], NormalY: ev.Normal[1]})
	}
	for _, r := range g.PowerResults() {
		add(&pb.NetStructDebugEvent{Kind: pb.DebugEventKind_DEBUG_EVENT_KIND_POWER, EntityId: uint64(r.Source), OtherId: uint64(r.Target),
			PointX: r.Point[0], PointY: r.Point[1], NormalX: r.Normal[0], NormalY: r.Normal[1], Value: r.Damage})
	}
}

// debugContacts adds to m, for the deity's timeline, the explanation
// (sim.Game.ExplainContact, right after the step, while the game still holds the
// sweeps) of the collisions among m's events: one per mover, as ExplainContact
// explains a mover's last sweep whether it hit a wall, an entity or both, in the
// order of their first COLLIDE event; past limit they are counted in
// ContactsDropped. A collision ExplainContact cannot explain (its mover or the
// entity it hit was destroyed in the step) is left out: the page then says it has
// no explanation.
func debugContacts(m *pb.NetMessageDebugDraw, g *sim.Game, limit int) {
	seen := map[uint64]bool{}
	for _, e := range m.Events {
		if e.Kind != pb.DebugEventKind_DEBUG_EVENT_KIND_COLLIDE || seen[e.EntityId] {
			continue
		}
		seen[e.EntityId] = true
		if len(m.Contacts) >= limit {
			m.ContactsDropped++
			continue
		}
		c, err := g.ExplainContact(sim.EntityID(e.EntityId))
		if err != nil {
			continue
		}
		m.Contacts = append(m.Contacts, protocol.ContactMessage(&c))
	}
}
