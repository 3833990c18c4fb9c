package client

import "github.com/twinframe/twinframe/shared/protocol/pb"

// The requests a client sends besides its inputs and pings. The debug commands are
// the deity's: the server answers a player's with an error (see Options.OnMessage).

// Pause stops the server's frame clock (deity).
func (c *Client) Pause() error {
	return c.Send(&pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_PAUSE})
}

// Resume restarts the server's frame clock (deity).
func (c *Client) Resume() error {
	return c.Send(&pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_RESUME})
}

// Step runs frames frames of the paused server, which then stays paused (deity).
func (c *Client) Step(frames uint32) error {
	return c.Send(&pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_STEP, Frames: frames})
}

// DebugDraw starts (on) or stops the stream of the server's own debug drawing: its
// sweeps and contacts, as NetMessageDebugDraw messages through Options.OnMessage (deity).
func (c *Client) DebugDraw(on bool) error {
	op := pb.DebugOp_DEBUG_OP_DRAW_OFF
	if on {
		op = pb.DebugOp_DEBUG_OP_DRAW_ON
	}
	return c.Send(&pb.NetMessageDebugCommand{Op: op})
}

// Xdump sends an xdump command (e.g. "xdump meta entity", "xdump entity 7") and
// returns the id of the request, which the NetMessageXDumpResponse that answers it
// carries (through Options.OnMessage). Ids count from 1 on each client.
func (c *Client) Xdump(command string) (id uint32, err error) {
	id = c.xdumpID.Add(1)
	return id, c.Send(&pb.NetMessageXDumpRequest{RequestId: id, Command: command})
}

// Teleport moves the avatar of the player named player to marker of region
// (deity): by the same handoff as a portal when the region is another, and the
// player's client gets a region change; within the player's region, a move.
func (c *Client) Teleport(player string, region, marker int32) error {
	return c.Send(&pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_TELEPORT, PlayerName: player, RegionId: region, MarkerId: marker})
}

// Regions asks for the list of regions with their players (deity); the answer is a
// NetMessageRegionList through Options.OnMessage.
func (c *Client) Regions() error {
	return c.Send(&pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_REGIONS})
}
