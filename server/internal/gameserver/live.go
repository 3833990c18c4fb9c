package gameserver

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing/fstest"

	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
	"github.com/twinframe/twinframe/shared/xdump"
)

// maxDump caps an xdump response (the NetMessageXDumpResponse payload cap is 4 MiB).
const maxDump = 4<<20 - 1024

// dump runs an xdump command on the live state (in the loop): the configuration
// and, as the entity and lost tables, the game's entities now and those destroyed
// recently, each stamped with the frame it last changed, so that
// "?timestamp>T" gives an incremental dump.
func (s *Server) dump(out io.Writer, command string, v xdump.Viewer) error {
	w := s.dumpWorld
	w.Frame = int64(s.game.Frame())
	w.State.Entities = w.State.Entities[:0]
	for _, e := range s.game.Entities() {
		w.State.Entities = append(w.State.Entities, entityRow(e))
	}
	w.State.Lost = append(w.State.Lost[:0], s.lost...)
	return w.Xdump(out, command, v)
}

func entityRow(e *sim.Entity) world.Entity {
	row := world.Entity{ID: int32(e.ID()), Prototype: e.Prototype(), Region: e.Region(), Pos: e.Pos(),
		Yaw: e.Yaw(), Owner: e.Owner(), Timestamp: int64(e.ChangedFrame())}
	if e.Mode() != sim.Idle {
		row.State |= world.StateMoving
		path, next := e.Path()
		if len(path) > 0 {
			row.Goal = path[len(path)-1]
		}
		if next >= 0 && next < len(path) {
			if d := path[next].Sub(e.Pos()); d.Len() > 0 {
				row.Vel = d.Normalize().Mul(e.Speed())
			}
		}
	}
	if e.Flags()&world.FlagStatic != 0 {
		row.State |= world.StateStatic
	}
	return row
}

// xdumpReply answers a session's xdump request (in the loop).
func (s *Server) xdumpReply(c *session, m *pb.NetMessageXDumpRequest) *pb.NetMessageXDumpResponse {
	v := xdump.Viewer{ID: int(c.playerID)}
	if c.role == pb.Role_ROLE_DEITY {
		v = xdump.Viewer{Deity: true}
	}
	cmd := m.GetCommand()
	if !strings.HasPrefix(strings.TrimSpace(cmd), "xdump") {
		cmd = "xdump " + cmd
	}
	var out bytes.Buffer
	r := &pb.NetMessageXDumpResponse{RequestId: m.GetRequestId()}
	if err := s.dump(&out, cmd, v); err != nil {
		r.Error = err.Error()
	} else if out.Len() > maxDump {
		r.Error = "xdump: response too large; narrow it with RECORDS or ?COND"
	} else {
		r.Text = out.String()
	}
	return r
}

// debugCommand applies a deity's debug command (in the loop).
func (s *Server) debugCommand(c *session, m *pb.NetMessageDebugCommand) {
	switch m.GetOp() {
	case pb.DebugOp_DEBUG_OP_PAUSE:
		s.paused, s.stepLeft = true, 0
	case pb.DebugOp_DEBUG_OP_STEP:
		s.paused = true
		s.stepLeft += max(1, min(m.GetFrames(), 1000))
	case pb.DebugOp_DEBUG_OP_RESUME:
		s.paused, s.stepLeft = false, 0
	case pb.DebugOp_DEBUG_OP_DRAW_ON:
		c.draw = true
	case pb.DebugOp_DEBUG_OP_DRAW_OFF:
		c.draw = false
	default:
		c.replies = append(c.replies, &pb.NetMessageError{Code: pb.ErrorCode_ERROR_CODE_BAD_PACKET,
			Text: "unknown debug op " + m.GetOp().String()})
		return
	}
	s.log.Info("debug command", "session", c.id, "op", m.GetOp(), "frames", m.GetFrames())
}

// liveEdit applies a deity's records (in the loop, at the frame boundary before
// the step): the records become one more configuration file, named to load
// after the others, and the world is loaded and verified from scratch exactly
// like the configuration at start, so an error names that file, its line and
// column. On success the game continues from a snapshot of its state in the new
// world (whose navmeshes and blackout zones are rebuilt from the new tables),
// and every client is sent the new region change, followed by its entities again.
func (s *Server) liveEdit(c *session, m *pb.NetMessageLiveEditRequest) *pb.NetMessageLiveEditResponse {
	resp := &pb.NetMessageLiveEditResponse{RequestId: m.GetRequestId(), Frame: s.game.Frame()}
	name := fmt.Sprintf("zz-live-%04d.config", s.edits+1)
	// Game-state tables are computed by the simulation, not loaded: refuse them
	// rather than have the load ignore them.
	data, err := s.world.Registry().Parse(name, []byte(m.GetRecords()), xdump.Viewer{Deity: true})
	if err != nil {
		resp.Error = err.Error()
		return resp
	}
	for _, d := range data {
		if d.Name == "entity" || d.Name == "lost" {
			line := 0
			if len(d.Lines) > 0 {
				line = d.Lines[0]
			}
			resp.Error = fmt.Sprintf("%s:%d: live edit of the game-state table %q is not supported yet", name, line, d.Name)
			return resp
		}
	}
	files := append(slices.Clone(s.tables), &pb.NetStructConfigFile{Name: name, Text: m.GetRecords()})
	fsys := fstest.MapFS{}
	for _, f := range files {
		fsys[f.Name] = &fstest.MapFile{Data: []byte(f.Text)}
	}
	w, err := world.Load(fsys)
	if err != nil {
		resp.Error = err.Error()
		return resp
	}
	dw, err := world.Load(fsys)
	if err != nil {
		resp.Error = err.Error()
		return resp
	}
	snap, err := s.game.Snapshot()
	if err != nil {
		resp.Error = "live edit: snapshot: " + err.Error()
		return resp
	}
	g, err := sim.Restore(w, snap, &sim.Options{Seed: s.cfg.Seed, NoPopulation: s.cfg.NoPopulation})
	if err != nil {
		resp.Error = "live edit: the game does not fit the edited world: " + err.Error()
		return resp
	}
	if g.Region(s.region) == nil {
		resp.Error = fmt.Sprintf("live edit: region %d is gone", s.region)
		return resp
	}
	s.edits++
	s.world, s.dumpWorld, s.game, s.tables = w, dw, g, files
	sum := protocol.HashConfigFiles(files)
	s.hash = sum[:]
	f := s.game.Frame()
	for _, o := range s.sessions {
		o.visible, o.aoiValid = o.visible[:0], false
		o.replies = append(o.replies, &pb.NetMessageRegionChange{RegionId: s.region, Tables: s.tables,
			TablesHash: s.hash, ServerFrame: f})
	}
	s.log.Info("live edit applied", "session", c.id, "file", name, "frame", f)
	return resp
}
