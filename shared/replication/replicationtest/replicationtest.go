// Package replicationtest is a socket-free Twinframe server for tests of clients:
// a real sim.Game replicated by the server's own rules (shared/replication), with
// logins, inputs and frames driven by hand.
//
// Tests step it frame by frame and can reorder, delay or drop what it produces;
// client/clienttest puts it behind a websocket.
//
// Like the real server it runs one game per region of the world and hands off an
// avatar that entered a portal (sim.Game.Departures) to the target region's game
// at the end of the frame (Emigrate, Immigrate, the view attached to the target's
// replicator, its unapplied inputs dropped and acknowledged); the client's next
// packet carries the region change, then the creates of its new view.
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
	// AheadFrames steps a region's game this many frames before the server
	// starts (region id → frames), so that its frames count from another origin,
	// as a region run by another node of a cluster does (docs/ARCHITECTURE.md §10).
	AheadFrames map[int32]int
}

// Server is the scripted server. It is not safe for concurrent use.
type Server struct {
	// Game is the first region's game, where clients log in.
	Game    *sim.Game
	World   *world.World
	Regions []*Region // in the world's order
	opt     Options
	repl    *replication.Replicator // the first region's
	tables  replication.Tables
	region  int32
	clients []*Client
	players int64 // players logged in so far: the last account id given
	pk      protocol.Packet
}

// Region is one region's game and its replication.
type Region struct {
	ID   int32
	Name string
	Game *sim.Game
	repl *replication.Replicator
}

// Client is a logged-in client's session state on the Server.
type Client struct {
	Name string
	// Player is the client's account id, as a fresh account store numbers
	// players (from 1, in login order); its avatar's owner is
	// replication.PlayerOwner(Player), as on the real server.
	Player  int64
	Avatar  sim.EntityID
	Role    pb.Role
	reg     *Region
	view    replication.View
	joins   [][]byte        // join packets to send before the next frame's
	out     []proto.Message // replies to send with the next frame
	Applied []AppliedInput  // every input applied, in order (for tests)
	Resyncs int             // resync requests answered
	Travels []Travel        // every region change by travel, in order
}

// Travel records a handoff: the avatar left From and is in To, whose frame was Frame.
type Travel struct {
	From, To int32
	Frame    uint64
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
	var err error
	if s.tables, err = replication.ReadTables(s.opt.Files); err != nil {
		return nil, err
	}
	w, err := world.Load(s.opt.Files)
	if err != nil {
		return nil, err
	}
	for i := range w.Regions {
		wr := &w.Regions[i]
		g, err := sim.New(w, &sim.Options{Region: wr.ID, Seed: sim.RegionSeed(s.opt.Seed, wr.ID), NoPopulation: s.opt.NoPopulation})
		if err != nil {
			return nil, err
		}
		for range s.opt.AheadFrames[wr.ID] {
			if err := g.Step(); err != nil {
				return nil, err
			}
		}
		r := &Region{ID: wr.ID, Name: wr.Name, Game: g}
		if r.repl, err = replication.New(g, s.opt.Replication); err != nil {
			return nil, err
		}
		s.Regions = append(s.Regions, r)
	}
	if len(s.Regions) == 0 {
		return nil, fmt.Errorf("replicationtest: the world has no region")
	}
	s.World, s.Game, s.repl = w, s.Regions[0].Game, s.Regions[0].repl
	s.region = s.Regions[0].ID
	s.pk.Limits = replication.PacketLimits
	return s, nil
}

// Tables returns the configuration files the server sends in a region change.
func (s *Server) Tables() []*pb.NetStructConfigFile { return s.tables.Files }

// Clients returns the logged-in clients in login order.
func (s *Server) Clients() []*Client { return s.clients }

// Login spawns an avatar for name at spawn point number spawn (modulo their count)
// and returns the login result and the region change.
func (s *Server) Login(name string, spawn int) (*Client, []proto.Message, error) {
	c, b, err := s.LoginPacket(name, spawn)
	if err != nil {
		return nil, nil, err
	}
	msgs, err := s.read(b)
	return c, msgs, err
}

// LoginPacket is Login, returning the login's answer as the real server sends
// it: the packet replication.WriteJoin builds.
func (s *Server) LoginPacket(name string, spawn int) (*Client, []byte, error) {
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
	// A player owns its avatar, which is what makes it take portals.
	player := s.players + 1
	if err := s.Game.SetOwner(id, replication.PlayerOwner(player)); err != nil {
		return nil, nil, err
	}
	s.players = player
	c := &Client{Name: name, Player: player, Avatar: id, Role: pb.Role_ROLE_PLAYER, reg: s.Regions[0]}
	c.view.SetAvatar(id)
	s.repl.Attach(&c.view)
	s.clients = append(s.clients, c)
	b, err := s.join(c)
	return c, b, err
}

// join builds what a client gets when it holds nothing of its region: its
// login result and the region change, in a packet of their own.
func (s *Server) join(c *Client) ([]byte, error) {
	var pk protocol.Packet
	pk.Limits = s.pk.Limits
	err := replication.WriteJoin(&pk, replication.Join{Avatar: c.Avatar, Role: c.Role, Region: s.regionChange(c.reg)})
	return slices.Clone(pk.Bytes()), err
}

func (s *Server) regionChange(r *Region) *pb.NetMessageRegionChange {
	return s.tables.RegionChange(r.ID, r.Game.Frame(), "")
}

// read decodes a packet the server built.
func (s *Server) read(b []byte) ([]proto.Message, error) {
	rd := protocol.Reader{Limits: s.pk.Limits}
	_, msgs, err := rd.ReadAll(b)
	return msgs, err
}

// Logout removes the client and its avatar.
func (s *Server) Logout(c *Client) {
	if i := slices.Index(s.clients, c); i >= 0 {
		s.clients = slices.Delete(s.clients, i, i+1)
	}
	c.reg.repl.Detach(&c.view)
	_ = c.reg.Game.Destroy(c.Avatar)
}

// Receive handles a client message: inputs are scheduled as the real server
// schedules them (replication.Inputs); a ping is answered with the next frame's
// packet, and a resync request as the real server answers it: a packet with the
// login result and the region change, before the next frame's packet, whose
// creates hold the whole view again.
func (s *Server) Receive(c *Client, m proto.Message) error {
	if in, ok := replication.DecodeInput(m); ok {
		next := c.reg.Game.Frame() + 1
		if s.opt.IgnoreClientFrame {
			in.Stamp = next
		}
		return c.view.Queue(in, next, c.reg.repl.Config().MaxInputLead)
	}
	switch m := m.(type) {
	case *pb.NetMessagePing:
		c.out = append(c.out, &pb.NetMessagePong{ClientTimeMicros: m.GetClientTimeMicros(),
			ClientFrame: m.GetClientFrame(), ServerFrame: c.reg.Game.Frame()})
	case *pb.NetMessageResyncRequest:
		c.Resyncs++
		c.reg.repl.Forget(&c.view)
		b, err := s.join(c)
		if err != nil {
			return err
		}
		c.joins = append(c.joins, b)
	default:
		return fmt.Errorf("replicationtest: unexpected %T", m)
	}
	return nil
}

// Step runs one frame in every region, as the real server does: each region's due
// inputs (in sequence order per client, clients in login order) and its step, then
// the travel of the avatars that entered a portal, then replication.
func (s *Server) Step() error {
	for _, r := range s.Regions {
		f := r.Game.Frame() + 1
		var err error
		for _, c := range s.clients {
			if c.reg != r {
				continue
			}
			c.view.Apply(r.Game, c.Avatar, f, func(in *replication.Input, e error) {
				if e != nil && err == nil {
					err = e
				}
				c.Applied = append(c.Applied, AppliedInput{Seq: in.Seq, ClientFrame: in.Stamp, Frame: f})
			})
		}
		if err != nil {
			return err
		}
		if err := r.Game.Step(); err != nil {
			return err
		}
	}
	for _, r := range s.Regions {
		for _, d := range r.Game.Departures() {
			if c := s.byAvatar(r, d.Entity); c != nil {
				if err := s.handoff(c, d.Region, d.Marker); err != nil {
					return err
				}
			}
		}
	}
	for _, r := range s.Regions {
		r.repl.Prepare(true)
	}
	return nil
}

func (s *Server) byAvatar(r *Region, id sim.EntityID) *Client {
	for _, c := range s.clients {
		if c.reg == r && c.Avatar == id {
			return c
		}
	}
	return nil
}

// RegionByID returns the region with id, or nil.
func (s *Server) RegionByID(id int32) *Region {
	for _, r := range s.Regions {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// Teleport hands c's avatar off to marker of region to, as the real server's
// DEBUG_OP_TELEPORT does (a marker of its own region moves it there). Call it
// between frames (after Frame, before Step).
func (s *Server) Teleport(c *Client, to, marker int32) error {
	if to == c.reg.ID {
		p, ok := c.reg.Game.MarkerPos(marker)
		if !ok {
			return fmt.Errorf("replicationtest: no marker %d in region %d", marker, to)
		}
		return c.reg.Game.Teleport(c.Avatar, p)
	}
	return s.handoff(c, to, marker)
}

// handoff moves c's avatar into region to at marker in the real server's order:
// packed in Migration mode and removed from its game, unpacked into the target's
// (the same id), its unapplied inputs dropped and acknowledged, its view attached
// to the target's replicator (it holds nothing there), and the region change queued
// as a reply, so that the packet carries it before the creates of the new view.
func (s *Server) handoff(c *Client, to, marker int32) error {
	from, target := c.reg, s.RegionByID(to)
	if target == nil {
		return fmt.Errorf("replicationtest: no region %d", to)
	}
	if _, ok := target.Game.MarkerPos(marker); !ok {
		return fmt.Errorf("replicationtest: no marker %d in region %d", marker, to)
	}
	b, err := from.Game.Emigrate(c.Avatar)
	if err != nil {
		return err
	}
	id, err := target.Game.Immigrate(b, marker)
	if err != nil {
		return fmt.Errorf("replicationtest: immigrate into region %d: %w", to, err)
	}
	c.Avatar, c.reg = id, target
	c.view.SetAvatar(id)
	c.view.DropPending()
	target.repl.Attach(&c.view)
	c.Travels = append(c.Travels, Travel{From: from.ID, To: target.ID, Frame: target.Game.Frame()})
	c.out = append(c.out, s.regionChange(target))
	return nil
}

// Frame returns the client's messages for the frame just stepped, as the real
// server builds its packet (replication.Replicator.Write), preceded by those of
// the join packets a resync request got (FramePackets).
func (s *Server) Frame(c *Client) ([]proto.Message, error) {
	pks, err := s.FramePackets(c)
	if err != nil {
		return nil, err
	}
	var msgs []proto.Message
	for _, b := range pks {
		m, err := s.read(b)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, m...)
	}
	return msgs, nil
}

// FramePackets returns the packets the client is sent for the frame just
// stepped, in order: the answers to its resync requests, then the frame's packet.
// The slices are the caller's.
func (s *Server) FramePackets(c *Client) ([][]byte, error) {
	if s.repl.Game().Frame() != s.Game.Frame() {
		return nil, fmt.Errorf("replicationtest: Frame before Step")
	}
	err := c.reg.repl.Write(&s.pk, &c.view, replication.Frame{Replies: c.out})
	clear(c.out)
	c.out = c.out[:0]
	if err != nil {
		return nil, err
	}
	pks := append(c.joins, slices.Clone(s.pk.Bytes()))
	c.joins = nil
	return pks, nil
}

// Visible returns the ids the client holds (ascending). The slice is the server's.
func (c *Client) Visible() []uint64 { return c.view.Visible() }

// Region returns the region the client's avatar is in.
func (c *Client) Region() *Region { return c.reg }

// Ack returns the last input sequence applied for the client.
func (c *Client) Ack() uint32 { return c.view.Ack() }
