package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/twinframe/twinframe/client"
	"github.com/twinframe/twinframe/client/netsim"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"google.golang.org/protobuf/proto"
)

// readPacket reads the next packet the client wrote and decodes its messages as the
// server does.
func readPacket(t *testing.T, server netsim.Conn) []proto.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := server.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rd := protocol.Reader{From: protocol.ClientToServer}
	if _, err := rd.Reset(b); err != nil {
		t.Fatal(err)
	}
	var msgs []proto.Message
	for rd.Next() {
		m, err := rd.Message()
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m)
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return msgs
}

// Each request is one packet holding the one message the server expects for it.
func TestRequests(t *testing.T) {
	t.Parallel()
	debug := func(op pb.DebugOp, frames uint32) proto.Message {
		return &pb.NetMessageDebugCommand{Op: op, Frames: frames}
	}
	xdump := func(id uint32, cmd string) proto.Message {
		return &pb.NetMessageXDumpRequest{RequestId: id, Command: cmd}
	}
	tests := []struct {
		name string
		send func(c *client.Client) error
		want proto.Message
	}{
		{"pause", (*client.Client).Pause, debug(pb.DebugOp_DEBUG_OP_PAUSE, 0)},
		{"resume", (*client.Client).Resume, debug(pb.DebugOp_DEBUG_OP_RESUME, 0)},
		{"step", func(c *client.Client) error { return c.Step(3) }, debug(pb.DebugOp_DEBUG_OP_STEP, 3)},
		{"draw on", func(c *client.Client) error { return c.DebugDraw(true) }, debug(pb.DebugOp_DEBUG_OP_DRAW_ON, 0)},
		{"draw off", func(c *client.Client) error { return c.DebugDraw(false) }, debug(pb.DebugOp_DEBUG_OP_DRAW_OFF, 0)},
		{"xdump", func(c *client.Client) error { _, err := c.Xdump("xdump meta entity"); return err }, xdump(1, "xdump meta entity")},
		{"second xdump", func(c *client.Client) error { _, err := c.Xdump("xdump entity 7"); return err }, xdump(2, "xdump entity 7")},
		{"teleport", func(c *client.Client) error { return c.Teleport("bob", 2, 85) },
			&pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_TELEPORT, PlayerName: "bob", RegionId: 2, MarkerId: 85}},
		{"regions", (*client.Client).Regions, debug(pb.DebugOp_DEBUG_OP_REGIONS, 0)},
	}
	cli, srv := netsim.Pipe()
	c, err := client.New(cli, &client.Options{Name: "ada"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if msgs := readPacket(t, srv); len(msgs) != 1 {
		t.Fatalf("login packet: %v", msgs)
	}
	for _, tt := range tests {
		if err := tt.send(c); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if msgs := readPacket(t, srv); len(msgs) != 1 || !proto.Equal(msgs[0], tt.want) {
			t.Errorf("%s sent %v, want %v", tt.name, msgs, tt.want)
		}
	}
}

// Xdump returns the id its request carries.
func TestXdumpID(t *testing.T) {
	t.Parallel()
	cli, srv := netsim.Pipe()
	c, err := client.New(cli, &client.Options{Name: "ada"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	readPacket(t, srv) // the login
	for range 3 {
		id, err := c.Xdump("xdump entity *")
		if err != nil {
			t.Fatal(err)
		}
		msgs := readPacket(t, srv)
		if r, ok := msgs[0].(*pb.NetMessageXDumpRequest); !ok || r.RequestId != id {
			t.Errorf("Xdump returned id %d, sent %v", id, msgs)
		}
	}
}
