package replicationtest_test

import (
	"bytes"
	"testing"

	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replication"
	"github.com/twinframe/twinframe/shared/replication/replicationtest"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
)

// TestJoinPackets: the scripted server answers a login and a resync request as
// the real server does: with replication.WriteJoin's packet (the login result and
// the region change), a resync's on its own before the frame's packet, which
// then creates the avatar again; the avatar's owner is the player's account id.
func TestJoinPackets(t *testing.T) {
	t.Parallel()
	s, err := replicationtest.NewServer(&replicationtest.Options{NoPopulation: true, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	tables, err := replication.ReadTables(world.DefaultFiles())
	if err != nil {
		t.Fatal(err)
	}
	want := func(c *replicationtest.Client) []byte {
		t.Helper()
		pk := protocol.Packet{Limits: replication.PacketLimits}
		j := replication.Join{Avatar: c.Avatar, Role: c.Role, Region: tables.RegionChange(c.Region().ID, c.Region().Game.Frame(), "")}
		if err := replication.WriteJoin(&pk, j); err != nil {
			t.Fatal(err)
		}
		return pk.Bytes()
	}
	_, _, err = s.Login("ada", 0)
	if err != nil {
		t.Fatal(err)
	}
	c, login, err := s.LoginPacket("bo", 1)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(login, want(c)) {
		t.Fatalf("login answer:\n%x\nwant\n%x", login, want(c))
	}
	if c.Player != 2 || s.Game.Entity(c.Avatar).Owner() != 2 {
		t.Fatalf("the second player: account %d, its avatar's owner %d; want 2, 2", c.Player, s.Game.Entity(c.Avatar).Owner())
	}
	for range 2 {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Frame(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Receive(c, &pb.NetMessageResyncRequest{}); err != nil {
		t.Fatal(err)
	}
	answer := want(c) // the frame the request is answered at
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	pks, err := s.FramePackets(c)
	if err != nil {
		t.Fatal(err)
	}
	if len(pks) != 2 || !bytes.Equal(pks[0], answer) {
		t.Fatalf("resync: %d packets; want the join packet, then the frame's", len(pks))
	}
	rd := protocol.Reader{Limits: replication.PacketLimits}
	_, msgs, err := rd.ReadAll(pks[1])
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := msgs[0].(*pb.NetMessageServerFrame); !ok {
		t.Fatalf("the frame's packet starts with %T", msgs[0])
	}
	created := false
	for _, m := range msgs {
		if cr, ok := m.(*pb.NetMessageEntityCreate); ok {
			var e sim.Entity
			u, err := archive.NewUnpacker(archive.Replication, cr.GetArchiveData())
			if err != nil {
				t.Fatal(err)
			}
			u.TransferObject(&e)
			created = created || u.Done() == nil && e.ID() == c.Avatar
		}
	}
	if !created {
		t.Fatal("the frame after the resync does not create the avatar again")
	}
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	if pks, _ := s.FramePackets(c); len(pks) != 1 {
		t.Fatalf("the frame after: %d packets, want 1", len(pks))
	}
}
