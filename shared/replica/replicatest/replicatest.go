// Package replicatest is a scripted, socket-free Twinframe server for tests of
// clients: it runs a real sim.Game, logs clients in, applies their inputs at the
// frames they are stamped with, and builds each client's messages of a frame the
// way docs/ARCHITECTURE.md §3 and §5 describe (server frame first; AOI removes, then adds,
// then relative locomotion changes).
//
// Tests drive it by hand, frame by frame, and can reorder, delay or drop what it
// produces; client/clienttest puts it behind a websocket.
package replicatest

import (
	"fmt"
	"io/fs"
	"slices"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
	"github.com/twinframe/twinframe/shared/world"
	"google.golang.org/protobuf/proto"
)

// AvatarPrototype is the prototype of player avatars in the default world.
const AvatarPrototype int32 = 0

// Options configure a Server. The zero value serves the default world with
// population on and the default AOI.
type Options struct {
	Files        fs.FS       // configuration files (default world.DefaultFiles())
	Seed         uint64      // game seed
	NoPopulation bool        // no NPCs
	AOI          replica.AOI // default replica.DefaultAOI
	// IgnoreClientFrame applies each input at the next frame, whatever frame it is
	// stamped with (a server that does not schedule inputs).
	IgnoreClientFrame bool
	// MoveCommand is the simulation command NetMessageMoveTo becomes (default
	// sim.CmdMoveAlongPath).
	MoveCommand sim.Command
}

// Server is the scripted server. It is not safe for concurrent use.
type Server struct {
	Game    *sim.Game
	World   *world.World
	opt     Options
	tables  []*pb.NetStructConfigFile
	hash    []byte
	region  int32
	clients []*Client
	cands   []replica.Candidate
}

// Client is a logged-in client's session state on the Server.
type Client struct {
	Name    string
	Avatar  sim.EntityID
	Role    pb.Role
	visible []uint64           // ascending
	sent    []locomotion.State // beside visible: the last state sent (the own avatar)
	walked  []replica.Remote   // beside visible: what the client holds of the others
	inputs  []queued
	ack     uint32
	out     []proto.Message // responses (pongs) to send with the next frame
	Applied []AppliedInput  // every input applied, in order (for tests)
	Resyncs int             // resync requests answered
}

type queued struct {
	seq   uint32
	frame uint64
	in    sim.Input
}

// AppliedInput records the frame at which an input was applied.
type AppliedInput struct {
	Seq         uint32
	ClientFrame uint64
	Frame       uint64
}

// NewServer builds the game from the configuration files.
func NewServer(opt *Options) (*Server, error) {
	s := &Server{}
	if opt != nil {
		s.opt = *opt
	}
	if s.opt.Files == nil {
		s.opt.Files = world.DefaultFiles()
	}
	if s.opt.AOI == (replica.AOI{}) {
		s.opt.AOI = replica.DefaultAOI
	}
	if s.opt.MoveCommand == 0 {
		s.opt.MoveCommand = sim.CmdMoveAlongPath
	}
	names, err := fs.Glob(s.opt.Files, "*.config")
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	for _, n := range names {
		b, err := fs.ReadFile(s.opt.Files, n)
		if err != nil {
			return nil, err
		}
		s.tables = append(s.tables, &pb.NetStructConfigFile{Name: n, Text: string(b)})
	}
	sum := protocol.HashConfigFiles(s.tables)
	s.hash = sum[:]
	w, err := world.Load(s.opt.Files)
	if err != nil {
		return nil, err
	}
	g, err := sim.New(w, &sim.Options{Seed: s.opt.Seed, NoPopulation: s.opt.NoPopulation})
	if err != nil {
		return nil, err
	}
	s.World, s.Game = w, g
	s.region = g.Regions()[0].ID()
	return s, nil
}

// Tables returns the configuration files the server sends in a region change.
func (s *Server) Tables() []*pb.NetStructConfigFile { return s.tables }

// Clients returns the logged-in clients in login order.
func (s *Server) Clients() []*Client { return s.clients }

// Login spawns an avatar for name at spawn point number spawn (modulo their count)
// and returns the login result and the region change.
func (s *Server) Login(name string, spawn int) (*Client, []proto.Message, error) {
	r := s.Game.Region(s.region)
	pts := r.SpawnPoints()
	var at mgl32.Vec2
	if len(pts) > 0 {
		at = pts[spawn%len(pts)]
	}
	id, err := s.Game.Spawn(AvatarPrototype, s.region, at, 0)
	if err != nil {
		return nil, nil, err
	}
	c := &Client{Name: name, Avatar: id, Role: pb.Role_ROLE_PLAYER}
	s.clients = append(s.clients, c)
	f := s.Game.Frame()
	return c, []proto.Message{
		&pb.NetMessageLoginResult{PlayerEntityId: uint64(id), Role: c.Role, ServerFrame: f, ProtocolVersion: protocol.Version},
		&pb.NetMessageRegionChange{RegionId: s.region, Tables: s.tables, TablesHash: s.hash, ServerFrame: f},
	}, nil
}

// Logout removes the client and its avatar.
func (s *Server) Logout(c *Client) {
	if i := slices.Index(s.clients, c); i >= 0 {
		s.clients = slices.Delete(s.clients, i, i+1)
	}
	_ = s.Game.Destroy(c.Avatar)
}

// Receive handles a client message: inputs are queued for the frame they are
// stamped with (or the next frame if that has passed); a ping is answered with the
// next frame's packet, and a resync request with a fresh copy of the world.
func (s *Server) Receive(c *Client, m proto.Message) error {
	q := queued{}
	switch m := m.(type) {
	case *pb.NetMessageMoveTo:
		q = queued{m.GetInputSeq(), m.GetClientFrame(), sim.Input{Command: s.opt.MoveCommand,
			Point: mgl32.Vec2{m.GetTarget().GetX(), m.GetTarget().GetY()}}}
	case *pb.NetMessageStop:
		q = queued{m.GetInputSeq(), m.GetClientFrame(), sim.Input{Command: sim.CmdStop}}
	case *pb.NetMessageFire:
		q = queued{m.GetInputSeq(), m.GetClientFrame(), sim.Input{Command: sim.CmdFire,
			Point: mgl32.Vec2{m.GetTarget().GetX(), m.GetTarget().GetY()}}}
	case *pb.NetMessagePing:
		c.out = append(c.out, &pb.NetMessagePong{ClientTimeMicros: m.GetClientTimeMicros(),
			ClientFrame: m.GetClientFrame(), ServerFrame: s.Game.Frame()})
		return nil
	case *pb.NetMessageResyncRequest:
		// What a fresh join gets, with the next frame: the login result and the
		// region, then (Frame) creates of everything in view.
		c.Resyncs++
		c.visible, c.sent, c.walked = c.visible[:0], c.sent[:0], c.walked[:0]
		f := s.Game.Frame()
		c.out = append(c.out,
			&pb.NetMessageLoginResult{PlayerEntityId: uint64(c.Avatar), Role: c.Role, ServerFrame: f, ProtocolVersion: protocol.Version},
			&pb.NetMessageRegionChange{RegionId: s.region, Tables: s.tables, TablesHash: s.hash, ServerFrame: f})
		return nil
	default:
		return fmt.Errorf("replicatest: unexpected %T", m)
	}
	if q.seq <= c.ack {
		return fmt.Errorf("replicatest: input %d already applied", q.seq)
	}
	q.in.Entity = c.Avatar
	q.in.ClientFrame = q.frame
	if s.opt.IgnoreClientFrame || q.frame <= s.Game.Frame() {
		q.frame = s.Game.Frame() + 1
	}
	c.inputs = append(c.inputs, q)
	return nil
}

// Step runs one frame: due inputs (in sequence order per client, clients in login
// order), then the simulation step.
func (s *Server) Step() error {
	f := s.Game.Frame() + 1
	for _, c := range s.clients {
		n := 0
		for _, q := range c.inputs {
			if q.frame > f {
				c.inputs[n] = q
				n++
				continue
			}
			if err := s.Game.Enqueue(q.in); err != nil {
				return err
			}
			c.ack = max(c.ack, q.seq)
			c.Applied = append(c.Applied, AppliedInput{Seq: q.seq, ClientFrame: q.in.ClientFrame, Frame: f})
		}
		c.inputs = c.inputs[:n]
	}
	return s.Game.Step()
}

// Frame builds the client's messages for the frame just stepped: the server frame,
// pending pongs, AOI removes, adds (creates), then relative locomotion updates for
// visible entities whose state changed, and power results.
func (s *Server) Frame(c *Client) ([]proto.Message, error) {
	f := s.Game.Frame()
	msgs := []proto.Message{&pb.NetMessageServerFrame{Frame: f, LastInputSeq: c.ack}}
	msgs = append(msgs, c.out...)
	c.out = c.out[:0]
	center := mgl32.Vec2{}
	if a := s.Game.Entity(c.Avatar); a != nil {
		center = a.Pos()
	}
	s.cands = s.cands[:0]
	for _, e := range s.Game.Entities() {
		s.cands = append(s.cands, replica.Candidate{ID: uint64(e.ID()), Pos: e.Pos()})
	}
	add, remove := s.opt.AOI.Update(center, uint64(c.Avatar), c.visible, s.cands, nil, nil)
	for _, id := range remove {
		msgs = append(msgs, &pb.NetMessageEntityDestroy{IdEntity: id})
		i, _ := slices.BinarySearch(c.visible, id)
		c.visible = slices.Delete(c.visible, i, i+1)
		c.sent = slices.Delete(c.sent, i, i+1)
		c.walked = slices.Delete(c.walked, i, i+1)
	}
	// Changes of entities already visible, before adding the new ones.
	var changes []proto.Message
	for i, id := range c.visible {
		e := s.Game.Entity(sim.EntityID(id))
		var cur locomotion.State
		e.LocomotionState(&cur, f)
		var d locomotion.State
		if id == uint64(c.Avatar) {
			// The own avatar: every change, relative to the last state sent.
			d = locomotion.Diff(&c.sent[i], &cur)
			if d.Fields&^(locomotion.Relative|locomotion.Moving) == 0 && d.Fields&locomotion.Moving == c.sent[i].Fields&locomotion.Moving {
				continue
			}
			c.sent[i] = cur
		} else {
			// Others: the client walks them; correct its copy whenever it is not
			// exactly what the wire can say of the entity.
			m := &c.walked[i]
			m.AdvanceTo(f)
			if !m.Off(&cur, 0, 0) {
				continue
			}
			m.Correction(&cur, &d, false)
			if err := m.Apply(&d); err != nil {
				return nil, err
			}
		}
		b, err := packLocomotion(&d)
		if err != nil {
			return nil, err
		}
		changes = append(changes, &pb.NetMessageLocomotionStateUpdate{ArchiveData: b})
	}
	for _, id := range add {
		e := s.Game.Entity(sim.EntityID(id))
		b, err := PackEntity(e, uint64(c.Avatar) == id)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, &pb.NetMessageEntityCreate{ArchiveData: b})
		i, _ := slices.BinarySearch(c.visible, id)
		c.visible = slices.Insert(c.visible, i, id)
		var st locomotion.State
		e.LocomotionState(&st, f)
		c.sent = slices.Insert(c.sent, i, st)
		// The client holds the create's state: the entity's, truncated by the wire.
		var held locomotion.State
		if err := unpackCreated(b, &held); err != nil {
			return nil, err
		}
		var m replica.Remote
		m.Reset(&held, f)
		c.walked = slices.Insert(c.walked, i, m)
	}
	msgs = append(msgs, changes...)
	for i := range s.Game.PowerResults() {
		pr := s.Game.PowerResults()[i]
		p := archive.NewPacker(archive.Replication, archive.Proximity)
		p.TransferObject(&pr)
		if err := p.Err(); err != nil {
			return nil, err
		}
		msgs = append(msgs, &pb.NetMessagePowerResult{ArchiveData: p.Bytes()})
	}
	return msgs, nil
}

// Visible returns the ids the client holds (ascending). The slice is the server's.
func (c *Client) Visible() []uint64 { return c.visible }

// Ack returns the last input sequence applied for the client.
func (c *Client) Ack() uint32 { return c.ack }

// PackEntity builds an EntityCreate archive: the entity's replication archive
// (sim.Entity.Serialize), with the Owner policy for the client's own avatar.
func PackEntity(e *sim.Entity, own bool) ([]byte, error) {
	pol := e.Policy()
	if own {
		pol |= archive.Owner
	}
	p := archive.NewPacker(archive.Replication, pol)
	p.TransferObject(e)
	return p.Bytes(), p.Err()
}

func packLocomotion(st *locomotion.State) ([]byte, error) {
	p := archive.NewPacker(archive.Replication, archive.Proximity)
	p.TransferObject(st)
	return p.Bytes(), p.Err()
}

// PackLocomotion builds a LocomotionStateUpdate archive of st.
func PackLocomotion(st *locomotion.State) ([]byte, error) { return packLocomotion(st) }

// unpackCreated decodes the locomotion state inside an EntityCreate archive.
func unpackCreated(b []byte, st *locomotion.State) error {
	u, err := archive.NewUnpacker(archive.Replication, b)
	if err != nil {
		return err
	}
	var e sim.Entity
	u.TransferObject(&e)
	if err := u.Done(); err != nil {
		return err
	}
	e.LocomotionState(st, e.ChangedFrame())
	return nil
}
