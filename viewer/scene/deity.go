package scene

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/world"
	"github.com/twinframe/twinframe/shared/xdump"
)

// The deity tools (the debug commands and live edit of docs/ARCHITECTURE.md
// §5): teleport, spawn, kill, edit a table, pause and step the server. They
// need the deity token; without it they are refused here, before anything is
// sent, since the server disconnects a player who sends a deity message.
var (
	// ErrNotDeity is why a deity tool is refused to a page without the token.
	ErrNotDeity = errors.New("deity tools need the deity token: open the page with #token=TOKEN (serve prints it)")
	// errNoDeityTools is returned by a source that has no server (the sandbox).
	errNoDeityTools = errors.New("deity tools act on a server: the sandbox has none")
)

// DeityOp is one use of a deity tool.
type DeityOp struct {
	Kind DeityKind
	// Teleport: the player (its name), the region and a marker of it.
	Player         string
	Region, Marker int32
	// Spawn: the prototype, at Point in the region the view shows.
	Prototype int32
	Point     mgl32.Vec2
	// Kill: the entity.
	Entity uint64
	// Edit: records in the xdump language (a table's config text): a table they
	// hold replaces that table whole.
	Records string
}

// DeityKind says which tool a DeityOp uses.
type DeityKind uint8

// Deity tools.
const (
	DeityTeleport DeityKind = iota + 1
	DeitySpawn
	DeityKill
	DeityEdit
	DeityPause
	DeityStep
	DeityResume
)

// deitySource is a source with the deity tools (the networked one).
type deitySource interface {
	deityOp(op DeityOp) error
	tableText(name string) (string, error)
}

// Deity uses a deity tool. It returns why it was refused before anything was
// sent (not the deity, not connected, the sandbox); the server's answer comes
// later, in Snapshot's DeityReply fields and the event log.
func (v *View) Deity(op DeityOp) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	ds, ok := v.src.(deitySource)
	if !ok {
		return errNoDeityTools
	}
	return ds.deityOp(op)
}

// TableText returns configuration table name as the server's current tables
// hold it, in the .config form a table edit takes.
func (v *View) TableText(name string) (string, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	ds, ok := v.src.(deitySource)
	if !ok {
		return "", errNoDeityTools
	}
	return ds.tableText(name)
}

// EditableTables are the configuration tables a deity may edit, in uid order:
// not the read-only ones (meta, symbols) nor the game-state tables entity and
// lost, which the simulation computes.
func EditableTables() []string {
	var out []string
	for _, t := range world.New().Registry().Tables() {
		if editable(t.Schema()) {
			out = append(out, t.Name())
		}
	}
	return out
}

func editable(s *xdump.Schema) bool {
	return !s.ReadOnly && s.Name != "entity" && s.Name != "lost"
}

// EntityInfo is an entity as the view shows it, for window.twinframe.entityList.
type EntityInfo struct {
	ID        uint64  `json:"id"`
	Prototype int32   `json:"prototype"`
	X         float32 `json:"x"`
	Y         float32 `json:"y"`
	Own       bool    `json:"own"`
}

// entityLister is a source that lists the entities it shows.
type entityLister interface {
	entityList() []EntityInfo
}

// Entities lists the entities the view shows (live or replayed), in id order;
// nil for a source that cannot list them.
func (v *View) Entities() []EntityInfo {
	v.mu.Lock()
	defer v.mu.Unlock()
	if el, ok := v.src.(entityLister); ok {
		return el.entityList()
	}
	return nil
}

func (n *network) entityList() []EntityInfo {
	var out []EntityInfo
	for _, e := range n.shown() {
		out = append(out, EntityInfo{ID: e.ID, Prototype: e.Prototype, X: e.Pos[0], Y: e.Pos[1], Own: e.Own})
	}
	return out
}

// deityOp sends the op to the server as the deity.
func (n *network) deityOp(op DeityOp) error {
	if !n.conn.deity() {
		return ErrNotDeity
	}
	cl := n.conn.c
	if cl == nil {
		return fmt.Errorf("scene: not connected to %s", n.conn.url)
	}
	var m *pb.NetMessageDebugCommand
	what := ""
	switch op.Kind {
	case DeityTeleport:
		m = &pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_TELEPORT, PlayerName: op.Player, RegionId: op.Region, MarkerId: op.Marker}
		what = fmt.Sprintf("teleport %s to marker %d of region %d", op.Player, op.Marker, op.Region)
	case DeitySpawn:
		region := int32(-1)
		cl.With(func(r *replica.Replica) { region = r.RegionID() })
		m = &pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_SPAWN, PrototypeId: op.Prototype, RegionId: region,
			Position: &pb.NetStructPoint3{X: op.Point[0], Y: op.Point[1]}}
		what = fmt.Sprintf("spawn prototype %d at (%.1f, %.1f)", op.Prototype, op.Point[0], op.Point[1])
	case DeityKill:
		m = &pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_KILL, EntityId: op.Entity}
		what = fmt.Sprintf("kill %d", op.Entity)
	case DeityPause:
		m, what = &pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_PAUSE}, "pause the server"
	case DeityStep:
		m, what = &pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_STEP, Frames: 1}, "step the server"
	case DeityResume:
		m, what = &pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_RESUME}, "resume the server"
	case DeityEdit:
		id := n.deity.nextEdit()
		if err := cl.Send(&pb.NetMessageLiveEditRequest{RequestId: id, Records: op.Records}); err != nil {
			return err
		}
		n.log.add(n.st.ServerFrame, fmt.Sprintf("deity: table edit %d sent", id))
		return nil
	default:
		return errCommand
	}
	m.RequestId = n.deity.nextCommand()
	if err := cl.Send(m); err != nil {
		return err
	}
	n.log.add(n.st.ServerFrame, "deity: "+what)
	return nil
}

// tableText writes table name of the world the server sent (its current tables).
func (n *network) tableText(name string) (string, error) {
	var b strings.Builder
	err := errors.New("scene: no world yet")
	n.withReplica(func(r *replica.Replica) {
		if w := r.World(); w != nil {
			reg := w.Registry()
			if t := reg.Table(name); t == nil || !editable(t.Schema()) {
				err = fmt.Errorf("scene: %q is not a configuration table a deity may edit", name)
			} else {
				err = reg.WriteConfig(&b, t)
			}
		}
	})
	return b.String(), err
}

// deityReplies keeps the server's answers to the deity tools: live-edit
// responses (to this page's edits, and with request id 0 the world
// directory's) and the errors of refused commands. Written by the client's
// reader goroutine, read by Update.
type deityReplies struct {
	mu       sync.Mutex
	n        int
	text     string
	err      bool
	edits    uint32 // the last edit request id sent (Update's goroutine)
	commands uint32 // the last debug command request id sent (Update's goroutine)
}

func (d *deityReplies) nextEdit() uint32 {
	d.edits++
	return d.edits
}

// nextCommand numbers a debug command from 1, so that the server's error for
// it, which echoes the id (docs/PROTOCOL.md §12), is told from other errors.
func (d *deityReplies) nextCommand() uint32 {
	d.commands++
	return d.commands
}

// answer takes a server message; it reports whether it was a deity answer, and
// its text for the log.
func (d *deityReplies) answer(m any) (string, bool) {
	var text string
	var failed bool
	switch m := m.(type) {
	case *pb.NetMessageLiveEditResponse:
		who := fmt.Sprintf("table edit %d", m.GetRequestId())
		if m.GetRequestId() == 0 {
			who = "world directory"
		}
		if failed = m.GetError() != ""; failed {
			text = who + " refused: " + m.GetError()
		} else {
			text = fmt.Sprintf("%s applied at frame %d", who, m.GetFrame())
		}
	case *pb.NetMessageError:
		// Only the refusal of a debug command carries a request id, and this
		// page numbers every one it sends from 1.
		if m.GetRequestId() == 0 {
			return "", false
		}
		text, failed = m.GetText(), true
	default:
		return "", false
	}
	d.mu.Lock()
	d.n++
	d.text, d.err = text, failed
	d.mu.Unlock()
	return text, true
}

// report copies the newest answer into st.
func (d *deityReplies) report(st *Status, deity bool) {
	d.mu.Lock()
	st.Deity, st.DeityReplies, st.DeityReply, st.DeityReplyError = deity, d.n, d.text, d.err
	d.mu.Unlock()
}
