package gameserver

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing/fstest"

	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replication"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
	"github.com/twinframe/twinframe/shared/xdump"
	"google.golang.org/protobuf/proto"
)

// debugCommand applies a deity's debug command (in the loop). A refusal is a
// non-fatal error that echoes the command's request_id, so a client that sent
// several can tell which one failed (docs/PROTOCOL.md §12).
func (s *Server) debugCommand(c *session, m *pb.NetMessageDebugCommand) {
	refuse := func(text string) {
		c.replies = append(c.replies, &pb.NetMessageError{Code: pb.ErrorCode_ERROR_CODE_BAD_PACKET, Text: text,
			RequestId: m.GetRequestId()})
	}
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
	case pb.DebugOp_DEBUG_OP_TELEPORT:
		if err := s.teleport(m); err != nil {
			refuse("teleport: " + err.Error())
			return
		}
	case pb.DebugOp_DEBUG_OP_REGIONS:
		c.replies = append(c.replies, s.regionList())
	case pb.DebugOp_DEBUG_OP_SPAWN:
		id, err := s.spawn(m)
		if err != nil {
			refuse("spawn: " + err.Error())
			return
		}
		s.log.Info("deity spawned", "session", c.id, "entity", id, "prototype", m.GetPrototypeId(), "region", m.GetRegionId())
	case pb.DebugOp_DEBUG_OP_KILL:
		if err := s.kill(m); err != nil {
			refuse("kill: " + err.Error())
			return
		}
	default:
		refuse("unknown debug op " + m.GetOp().String())
		return
	}
	s.log.Info("debug command", "session", c.id, "op", m.GetOp(), "frames", m.GetFrames())
}

// liveEdit applies a deity's records (in the loop, at the frame boundary before
// the step): the records become one more configuration file, named to load
// after the others, and the world is loaded and verified from scratch exactly
// like the configuration at start, so an error names that file, its line and
// column. A table an edit holds replaces that table whole. The edited tables
// are then kept in their current form, not as the history of edits: the tables
// clients get are the starting files followed by one file of every table
// edited so far, as it is now (liveFile), and an edit that would make them
// larger than maxRegionChange is refused before anything changes. On success
// the game continues from a snapshot of its state in the new world (whose
// navmeshes and blackout zones are rebuilt from the new tables), and every
// client is sent the new region change, followed by its entities again.
func (s *Server) liveEdit(c *session, m *pb.NetMessageLiveEditRequest) *pb.NetMessageLiveEditResponse {
	resp := &pb.NetMessageLiveEditResponse{RequestId: m.GetRequestId(), Frame: s.frameNumber()}
	name := fmt.Sprintf("zz-live-%04d.config", s.edits+1)
	names, err := configTables(s.world.Registry(), name, m.GetRecords())
	if err != nil {
		resp.Error = err.Error()
		return resp
	}
	edited := slices.Clone(s.edited)
	for _, n := range names {
		if !slices.Contains(edited, n) {
			edited = append(edited, n)
		}
	}
	// The edit as a file after the current tables: its errors name its lines.
	w, err := world.Load(filesFS(append(slices.Clone(s.tables), &pb.NetStructConfigFile{Name: name, Text: m.GetRecords()})))
	if err != nil {
		resp.Error = err.Error()
		return resp
	}
	reg := w.Registry()
	slices.SortFunc(edited, func(a, b string) int { return cmp.Compare(reg.Table(a).Schema().UID, reg.Table(b).Schema().UID) })
	live, err := liveFile(w, edited)
	if err != nil {
		resp.Error = "live edit: " + err.Error()
		return resp
	}
	if err := s.install(slices.Clone(s.baseTables), live, edited); err != nil {
		resp.Error = "live edit: " + err.Error()
		return resp
	}
	s.edits++
	s.log.Info("live edit applied", "session", c.id, "file", name, "frame", resp.Frame)
	return resp
}

// install makes the starting files base followed by live (nil: no table edited
// since) the tables the server runs and clients load, with edited the tables
// live holds. Nothing changes unless every check passes: the tables fit a
// region change, they load, the regions stay the same set, and every region's
// game continues from a snapshot of its state in the new world. Every client is
// then sent the new region change, followed by its entities again.
func (s *Server) install(base []*pb.NetStructConfigFile, live *pb.NetStructConfigFile, edited []string) error {
	files := slices.Clone(base)
	if live != nil {
		files = append(files, live)
	}
	rc := &pb.NetMessageRegionChange{RegionId: s.regions[0].id, Tables: files, TablesHash: make([]byte, 32), ServerFrame: s.frameNumber()}
	if n := proto.Size(rc); n > s.maxTables {
		return fmt.Errorf("refused, nothing applied: the tables would take %d bytes, over the %d bytes a region change may carry", n, s.maxTables)
	}
	// What the server runs is what clients load: the starting files and the
	// edited tables as they now are.
	w, err := world.Load(filesFS(files))
	if err != nil {
		return fmt.Errorf("the merged tables do not load: %w", err)
	}
	// Every region's game continues from a snapshot in the new world. The set of
	// regions must stay: a region's game cannot appear or vanish under its players.
	if len(w.Regions) != len(s.regions) {
		return fmt.Errorf("refused, nothing applied: the world would have %d regions, not %d (regions change at a restart)", len(w.Regions), len(s.regions))
	}
	games := make([]*sim.Game, len(s.regions))
	for i, r := range s.regions {
		if w.Regions[i].ID != r.id {
			return fmt.Errorf("refused, nothing applied: region %d (%s) is gone", r.id, r.name)
		}
		snap, err := r.game.Snapshot()
		if err != nil {
			return fmt.Errorf("snapshot: %w", err)
		}
		games[i], err = sim.Restore(w, snap, &sim.Options{Region: r.id, Seed: sim.RegionSeed(s.cfg.Seed, r.id), NoPopulation: s.cfg.NoPopulation})
		if err != nil {
			return fmt.Errorf("region %s does not fit the edited world: %w", r.name, err)
		}
	}
	repls := make([]*replication.Replicator, len(games))
	for i, g := range games {
		if repls[i], err = s.newReplicator(g); err != nil {
			return err
		}
	}
	s.world, s.tables, s.baseTables, s.edited = w, files, base, edited
	for i, r := range s.regions {
		r.game, r.repl, r.name = games[i], repls[i], w.Regions[i].Name
	}
	sum := protocol.HashConfigFiles(files)
	s.hash = sum[:]
	for _, o := range s.sessions {
		if o.joined && o.reg != nil {
			o.reg.repl.Attach(&o.view) // holds nothing of the new game yet
			o.replies = append(o.replies, s.regionChange(o.reg))
		}
	}
	return nil
}

// configTables returns the tables that configuration file name (text) holds,
// parsed with reg. Game-state tables are computed by the simulation, not
// loaded: a file holding one is refused at its line rather than have the load
// ignore it.
func configTables(reg *xdump.Registry, name, text string) ([]string, error) {
	data, err := reg.Parse(name, []byte(text), xdump.Viewer{Deity: true})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, d := range data {
		if d.Name == "entity" || d.Name == "lost" {
			line := 0
			if len(d.Lines) > 0 {
				line = d.Lines[0]
			}
			return nil, fmt.Errorf("%s:%d: live edit of the game-state table %q is not supported yet", name, line, d.Name)
		}
		if !d.Meta && !slices.Contains(names, d.Name) {
			names = append(names, d.Name)
		}
	}
	return names, nil
}

// maxRegionChange caps the tables a live edit may leave: a region change
// carries them all, and must fit a client's 4 MiB message limit with room to spare.
const maxRegionChange = 3 << 20

// liveFileName is the file of the edited tables; it loads after the starting files.
const liveFileName = "zz-live.config"

// liveFile writes the named tables of w as one configuration file.
func liveFile(w *world.World, tables []string) (*pb.NetStructConfigFile, error) {
	var b strings.Builder
	b.WriteString("# Tables changed by live edits, as they are now.\n")
	reg := w.Registry()
	for _, n := range tables {
		if err := reg.WriteConfig(&b, reg.Table(n)); err != nil {
			return nil, err
		}
	}
	return &pb.NetStructConfigFile{Name: liveFileName, Text: b.String()}, nil
}

// filesFS is configuration files as a file system for world.Load.
func filesFS(files []*pb.NetStructConfigFile) fstest.MapFS {
	fsys := fstest.MapFS{}
	for _, f := range files {
		fsys[f.Name] = &fstest.MapFile{Data: []byte(f.Text)}
	}
	return fsys
}
