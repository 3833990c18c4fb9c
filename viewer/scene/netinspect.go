package scene

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twinframe/twinframe/client"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replica"
)

// xdumpEvery is how often the inspector asks the server for the selected entity's row.
const xdumpEvery = 500 * time.Millisecond

// xdumpRows are the rows of the server's entity table the inspector shows: asked
// for every xdumpEvery, filled in from the answers by the client's reader goroutine.
type xdumpRows struct {
	off bool // the server does not answer xdump requests: never ask

	mu    sync.Mutex
	names []string           // columns of the entity table (xdump meta entity)
	rows  map[uint64][]Field // the latest dumped row of inspected entities
	asked map[uint64]time.Duration
}

// answer keeps the entity table's columns or rows from a response; it returns the
// server's error, if the response is one.
func (x *xdumpRows) answer(m *pb.NetMessageXDumpResponse) (errText string) {
	if m.Error != "" {
		return m.Error
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	switch {
	case strings.HasPrefix(m.Text, "XDUMP meta entity "):
		x.names = metaNames(m.Text)
	case strings.HasPrefix(m.Text, "XDUMP entity "):
		if x.rows == nil {
			x.rows = map[uint64][]Field{}
		}
		for _, line := range dataLines(m.Text) {
			f := strings.Fields(line)
			if len(f) == 0 {
				continue
			}
			if id, err := strconv.ParseUint(f[0], 10, 64); err == nil {
				x.rows[id] = rowFields(x.names, line, "xdump ")
			}
		}
	}
	return ""
}

// ask requests the entity's row (and the table's columns, once) over c (nil: not
// connected) when xdumpEvery has passed since the last request; it returns the
// latest row received.
func (x *xdumpRows) ask(c *client.Client, id uint64, now time.Duration) []Field {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.asked == nil {
		x.asked = map[uint64]time.Duration{}
	}
	if at, ok := x.asked[id]; c != nil && !x.off && (!ok || now-at >= xdumpEvery) {
		x.asked[id] = now
		if x.names == nil {
			c.Xdump("xdump meta entity")
		}
		c.Xdump("xdump entity " + strconv.FormatUint(id, 10))
	}
	return x.rows[id]
}

// Inspect returns what the client knows of an entity: how it is drawn and the last
// authoritative locomotion state; for the own avatar, the drift statistics too; then
// its row of the server's entity table (xdump, refreshed every xdumpEvery; deity fields
// when logged in as the deity).
func (n *network) Inspect(id uint64) []Field {
	for _, v := range n.shown() {
		if v.ID != id {
			continue
		}
		live := n.rec.replay == nil
		var xd []Field
		if live {
			xd = n.xdump.ask(n.conn.c, id, n.now) // the live row: not the replayed frame's
		}
		s := v.Server
		f := []Field{
			{"id", strconv.FormatUint(v.ID, 10)},
			{"prototype", strconv.Itoa(int(v.Prototype))},
			{"prototype name", n.drawing.gd.ProtoName(v.Prototype)},
			{"owner", strconv.Itoa(int(v.Owner))},
			{"pos(0)", ftoa(v.Pos[0])}, {"pos(1)", ftoa(v.Pos[1])},
			{"yaw", ftoa(v.Yaw)},
			{"moving", strconv.FormatBool(v.Moving)},
			{"own (predicted)", strconv.FormatBool(v.Own)},
			{"extrapolated", strconv.FormatBool(v.Extrapolated)},
			{"held", strconv.FormatBool(v.Held)},
			{"server frame", strconv.FormatUint(s.Frame, 10)},
			{"server pos", fmt.Sprintf("(%s, %s)", ftoa(s.Position[0]), ftoa(s.Position[1]))},
			{"server yaw", ftoa(s.Yaw)},
			{"server speed", ftoa(s.Speed)},
			{"server path", fmt.Sprintf("%d nodes, goal %d", len(s.Path), s.Goal)},
		}
		if v.Own && n.conn.c != nil && live {
			n.conn.c.With(func(r *replica.Replica) {
				d := r.Drift()
				f = append(f,
					Field{"drift compared", strconv.Itoa(d.Compared)},
					Field{"drift corrections", strconv.Itoa(d.Corrections)},
					Field{"drift max error", ftoa(d.MaxPosError)},
					Field{"pending inputs", strconv.Itoa(r.PendingInputs())},
					Field{"rtt", r.Clock().RTT().String()})
				if drifts := n.graphs.drifts; len(drifts) > 0 {
					f = append(f, Field{"last comparison", drifts[len(drifts)-1].String()})
				}
			})
		}
		return append(f, xd...)
	}
	return nil
}
