package scene

import (
	"cmp"
	"fmt"

	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/sim"
)

func (n *network) timeline() *timeline { return &n.tl }

// serverKinds maps the deity stream's event kinds to timeline kinds.
var serverKinds = map[pb.DebugEventKind]string{
	pb.DebugEventKind_DEBUG_EVENT_KIND_COLLIDE:       KindCollide,
	pb.DebugEventKind_DEBUG_EVENT_KIND_OVERLAP_BEGIN: KindOverlapBegin,
	pb.DebugEventKind_DEBUG_EVENT_KIND_OVERLAP_END:   KindOverlapEnd,
	pb.DebugEventKind_DEBUG_EVENT_KIND_POWER:         KindPower,
}

// serverEvents adds the server's events of a deity debug draw (on the client's reader
// goroutine; the timeline has its own lock), each collision with the server's
// explanation of its mover's contact, and returns how many events and contacts the
// server left out, and the first contact it could not read.
func (t *timeline) serverEvents(m *pb.NetMessageDebugDraw) (events, contacts uint32, err error) {
	explained := map[uint64]*sim.Contact{}
	for i, mc := range m.GetContacts() {
		c, cerr := protocol.ContactFromMessage(m.Frame, i, mc)
		if cerr != nil {
			err = cmp.Or(err, cerr)
			continue
		}
		explained[uint64(c.A)] = &c
	}
	why := "the server sent no explanation of this contact (it cannot explain one whose mover or the entity it hit was destroyed in the step)"
	if d := m.GetContactsDropped(); d > 0 {
		why = fmt.Sprintf("the server sent no explanation of this contact: it explained %d of frame %d's and left out %d more",
			len(m.GetContacts()), m.Frame, d)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, e := range m.GetEvents() {
		k, ok := serverKinds[e.Kind]
		if !ok {
			continue // a kind of a newer server
		}
		r := TimelineRow{Frame: m.Frame, Kind: k, A: e.EntityId, B: e.OtherId, Origin: OriginServer,
			Point: [2]float32{e.PointX, e.PointY}, Normal: [2]float32{e.NormalX, e.NormalY}}
		switch k {
		case KindPower:
			r.Value = fmt.Sprintf("damage %d", e.Value)
		case KindCollide:
			if r.contact = explained[e.EntityId]; r.contact == nil {
				r.why = why
			}
		}
		t.addLocked(r)
	}
	return m.GetEventsDropped(), m.GetContactsDropped(), err
}

// clientRows adds the client's own rows of an Update (under the replica's lock): its
// region changes, the prediction's corrections (from the drift log, each once), and,
// for a player, the power results the server replicated (a deity has them from the
// server's stream).
func (n *network) clientRows(r *replica.Replica) {
	me := r.Player()
	for _, ch := range n.changes {
		if ch.Travel {
			n.tl.add(TimelineRow{Frame: ch.Frame, Kind: KindRegion, A: me, Origin: OriginClient,
				Value: fmt.Sprintf("%s → %s", r.RegionName(ch.From), r.RegionName(ch.To))})
		}
	}
	for _, s := range n.graphs.drifts {
		if !s.Corrected || s.Frame <= n.corrected {
			continue
		}
		n.corrected = s.Frame
		n.tl.add(TimelineRow{Frame: s.Frame, Kind: KindCorrection, A: me, Origin: OriginClient,
			Point: [2]float32{s.AuthPos[0], s.AuthPos[1]},
			Value: fmt.Sprintf("rewound %d frames: off by %.3f m, moved %.3f m", s.Replayed, s.PosError, s.Correction)})
	}
	if n.conn.deity() {
		return
	}
	for _, p := range n.powers {
		n.tl.add(TimelineRow{Frame: p.Frame, Kind: KindPower, A: uint64(p.Source), B: uint64(p.Target), Origin: OriginClient,
			Point: [2]float32{p.Point[0], p.Point[1]}, Normal: [2]float32{p.Normal[0], p.Normal[1]},
			Value: fmt.Sprintf("bolt %d, damage %d", p.Projectile, p.Damage)})
	}
}
