// Package replicationtest is a socket-free Twinframe server for tests of clients:
// a real sim.Game replicated by the server's own rules (shared/replication), with
// logins, inputs and frames driven by hand.
//
// Tests step it frame by frame and can reorder, delay or drop what it produces;
// client/clienttest puts it behind a websocket.
package replicationtest

import (
	"fmt"
	"io/fs"
	"slices"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replication"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
	"google.golang.org/protobuf/proto"
)

// AvatarPrototype is the prototype of player avatars in the default world.
const AvatarPrototype int32 = 0

// Options configure a Server. The zero value serves the default world with
// population on and the real server's replication settings.
type Options struct {
	Files        fs.FS  // configuration files (default world.DefaultFiles())
	Seed         uint64 // game seed
	NoPopulation bool   // no NPCs
	// Replication is what the real server's Config sets (zero: its defaults).
	Replication replication.Config
	// IgnoreClientFrame is a fault to test clients against: each input applies at
	// the next frame, whatever frame it is stamped with, as when the client's
	// estimate of the server's clock is wrong.
	IgnoreClientFrame bool
}

// Server is the scripted server. It is not safe for concurrent use.
type Server struct {
	Game    *sim.Game
	World   *world.World
	opt     Options
	repl    *replication.Replicator
	tables  []*pb.NetStructConfigFile
	hash    []byte
	region  int32
	clients []*Client
	pk      protocol.Packet
}

// Client is a logged-in client's session state on the Server.
type Client struct {
	Name    string
	Avatar  sim.EntityID
	Role    pb.Role
	view    replication.View
	out     []proto.Message // replies to send with the next frame
	Applied []AppliedInput  // every input applied, in order (for tests)
	Resyncs int             // resync requests answered
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
	if s.repl, err = replication.New(g, s.opt.Replication); err != nil {
		return nil, err
	}
	s.World, s.Game = w, g
	s.region = g.Regions()[0].ID()
	s.pk.Limits = protocol.Limits{MaxPacketSize: protocol.HeaderSize + protocol.MaxBodySize, MaxMessageSize: 4 << 20}
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
	c.view.SetAvatar(id)
	s.repl.Attach(&c.view)
	s.clients = append(s.clients, c)
	return c, s.welcome(c), nil
}

// welcome is what a fresh join gets: the login result and the region.
func (s *Server) welcome(c *Client) []proto.Message {
	f := s.Game.Frame()
	return []proto.Message{
		&pb.NetMessageLoginResult{PlayerEntityId: uint64(c.Avatar), Role: c.Role, ServerFrame: f, ProtocolVersion: protocol.Version},
		&pb.NetMessageRegionChange{RegionId: s.region, Tables: s.tables, TablesHash: s.hash, ServerFrame: f},
	}
}

// Logout removes the client and its avatar.
func (s *Server) Logout(c *Client) {
	if i := slices.Index(s.clients, c); i >= 0 {
		s.clients = slices.Delete(s.clients, i, i+1)
	}
	s.repl.Detach(&c.view)
	_ = s.Game.Destroy(c.Avatar)
}

// Receive handles a client message: inputs are scheduled as the real server
// schedules them (replication.Inputs); a ping is answered with the next frame's
// packet, and a resync request with a fresh copy of the world.
func (s *Server) Receive(c *Client, m proto.Message) error {
	if in, ok := replication.DecodeInput(m); ok {
		next := s.Game.Frame() + 1
		if s.opt.IgnoreClientFrame {
			in.Stamp = next
		}
		return c.view.Queue(in, next, s.repl.Config().MaxInputLead)
	}
	switch m := m.(type) {
	case *pb.NetMessagePing:
		c.out = append(c.out, &pb.NetMessagePong{ClientTimeMicros: m.GetClientTimeMicros(),
			ClientFrame: m.GetClientFrame(), ServerFrame: s.Game.Frame()})
	case *pb.NetMessageResyncRequest:
		c.Resyncs++
		s.repl.Forget(&c.view)
		c.out = append(c.out, s.welcome(c)...)
	default:
		return fmt.Errorf("replicationtest: unexpected %T", m)
	}
	return nil
}

// Step runs one frame: due inputs (in sequence order per client, clients in login
// order), then the simulation step.
func (s *Server) Step() error {
	f := s.Game.Frame() + 1
	var err error
	for _, c := range s.clients {
		c.view.Apply(s.Game, c.Avatar, f, func(in *replication.Input, e error) {
			if e != nil && err == nil {
				err = e
			}
			c.Applied = append(c.Applied, AppliedInput{Seq: in.Seq, ClientFrame: in.Stamp, Frame: f})
		})
	}
	if err != nil {
		return err
	}
	if err := s.Game.Step(); err != nil {
		return err
	}
	s.repl.Prepare(true)
	return nil
}

// Frame returns the client's messages for the frame just stepped, as the real
// server builds its packet (replication.Replicator.Write).
func (s *Server) Frame(c *Client) ([]proto.Message, error) {
	if s.repl.Game().Frame() != s.Game.Frame() {
		return nil, fmt.Errorf("replicationtest: Frame before Step")
	}
	err := s.repl.Write(&s.pk, &c.view, replication.Frame{Replies: c.out})
	clear(c.out)
	c.out = c.out[:0]
	if err != nil {
		return nil, err
	}
	rd := protocol.Reader{Limits: s.pk.Limits}
	_, msgs, err := rd.ReadAll(s.pk.Bytes())
	return msgs, err
}

// Visible returns the ids the client holds (ascending). The slice is the server's.
func (c *Client) Visible() []uint64 { return c.view.Visible() }

// Ack returns the last input sequence applied for the client.
func (c *Client) Ack() uint32 { return c.view.Ack() }
