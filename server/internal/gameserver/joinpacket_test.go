package gameserver

import (
	"bytes"
	"context"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replication"
	"github.com/twinframe/twinframe/shared/sim"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// loginAnswerVector is the login answer of docs/PROTOCOL.md §13, which
// shared/protocol's TestVectors captures from the scripted server.
const loginAnswerVector = "../../../shared/protocol/testdata/vectors/packet_login_answer.hex"

// TestLoginAnswerIsTheVector: the packet a real session gets at its login, and
// in answer to a resync request, is the test vector's. The vector's messages
// with the session's values put in (the fields of valueFields: ids, frames,
// the tables of the world the server runs, the token) frame to exactly the
// bytes the session got: the same messages in the same order, and no other
// field set or different. And the bytes are what replication.WriteJoin (which
// the scripted server behind the vectors runs) builds from those values.
func TestLoginAnswerIsTheVector(t *testing.T) {
	checkLeaks(t)
	vector := readVector(t, loginAnswerVector)
	s := startServer(t, "", nil)

	first := dial(t, s.url, dialOpt{noRead: true})
	first.login("ada", nil)
	b, msgs := rawJoin(t, first)
	checkJoinBytes(t, s, "first login", b, msgs)
	checkLikeVector(t, "first login", vector, b, msgs)
	token := msgs[0].(*pb.NetMessageLoginResult).GetIssuedToken()
	if token == "" {
		t.Fatal("first login: no token issued")
	}
	first.close()

	again := dial(t, s.url, dialOpt{noRead: true})
	again.loginSecret("ada", token, nil)
	b, msgs = rawJoin(t, again)
	checkJoinBytes(t, s, "login", b, msgs)
	checkLikeVector(t, "login", vector, b, msgs)

	if err := again.send(&pb.NetMessageResyncRequest{Reason: pb.ResyncReason_RESYNC_REASON_UNKNOWN_ENTITY}); err != nil {
		t.Fatal(err)
	}
	b, msgs = rawJoin(t, again)
	checkJoinBytes(t, s, "resync", b, msgs)
	checkLikeVector(t, "resync", vector, b, msgs)
}

// readVector reads a packet vector's messages.
func readVector(t *testing.T, path string) []proto.Message {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := hex.DecodeString(strings.Join(strings.Fields(string(text)), ""))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	rd := protocol.Reader{Limits: serverPacketLimits}
	_, msgs, err := rd.ReadAll(b)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return msgs
}

// valueFields are the fields of a login answer whose values depend on the
// session and the world, not on the layout.
var valueFields = map[protoreflect.Name][]protoreflect.Name{
	"NetMessageLoginResult":  {"player_entity_id", "server_frame", "issued_token"},
	"NetMessageRegionChange": {"region_id", "server_frame", "tables", "tables_hash", "node"},
}

// checkLikeVector puts the values of got's valueFields into the vector's
// messages, and checks that they frame to b.
func checkLikeVector(t *testing.T, what string, vector []proto.Message, b []byte, got []proto.Message) {
	t.Helper()
	if len(got) != len(vector) {
		t.Fatalf("%s: %d messages, the vector %d", what, len(got), len(vector))
	}
	var pk protocol.Packet
	pk.Limits = serverPacketLimits
	for i, v := range vector {
		dst, src := proto.Clone(v).ProtoReflect(), got[i].ProtoReflect()
		if dst.Descriptor() != src.Descriptor() {
			t.Fatalf("%s: message %d is %s, the vector's %s", what, i, src.Descriptor().Name(), dst.Descriptor().Name())
		}
		for _, name := range valueFields[dst.Descriptor().Name()] {
			fd := dst.Descriptor().Fields().ByName(name)
			if fd == nil {
				t.Fatalf("%s: %s has no field %s", what, dst.Descriptor().Name(), name)
			}
			dst.Clear(fd)
			if src.Has(fd) {
				dst.Set(fd, src.Get(fd))
			}
		}
		if err := pk.Append(dst.Interface()); err != nil {
			t.Fatal(err)
		}
	}
	if w := pk.Bytes(); !bytes.Equal(w, b) {
		at := 0
		for at < min(len(w), len(b)) && w[at] == b[at] {
			at++
		}
		t.Errorf("%s: the vector with the session's values is not what the session got: %d and %d bytes, first difference at byte %d",
			what, len(w), len(b), at)
	}
}

// rawJoin reads c's packets until one that starts with a login result (frame
// packets may come before a resync's answer) and returns its bytes and messages.
func rawJoin(t *testing.T, c *client) ([]byte, []proto.Message) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rd := protocol.Reader{Limits: serverPacketLimits}
	for {
		_, b, err := c.conn.Read(ctx)
		if err != nil {
			t.Fatalf("no login answer: %v", err)
		}
		_, msgs, err := rd.ReadAll(b)
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) > 0 {
			if _, ok := msgs[0].(*pb.NetMessageLoginResult); ok {
				return b, msgs
			}
		}
	}
}

// checkJoinBytes checks that b is what replication.WriteJoin builds from the
// values it carries and the server's tables.
func checkJoinBytes(t *testing.T, s *testServer, what string, b []byte, msgs []proto.Message) {
	t.Helper()
	if len(msgs) != 2 {
		t.Fatalf("%s: %d messages, want the login result and the region change", what, len(msgs))
	}
	lr, ok1 := msgs[0].(*pb.NetMessageLoginResult)
	rc, ok2 := msgs[1].(*pb.NetMessageRegionChange)
	if !ok1 || !ok2 {
		t.Fatalf("%s: %T, %T; want the login result, then the region change", what, msgs[0], msgs[1])
	}
	var tables replication.Tables
	s.inLoop(t, func() { tables = replication.Tables{Files: s.tables, Hash: s.hash} })
	var pk protocol.Packet
	pk.Limits = serverPacketLimits
	j := replication.Join{Avatar: sim.EntityID(lr.GetPlayerEntityId()), Role: lr.GetRole(), Token: lr.GetIssuedToken(),
		Region: tables.RegionChange(rc.GetRegionId(), rc.GetServerFrame(), rc.GetNode())}
	if err := replication.WriteJoin(&pk, j); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, pk.Bytes()) {
		t.Errorf("%s: the server sent %d bytes, replication.WriteJoin builds %d from the same values:\n%x\n%x",
			what, len(b), pk.Size(), b[:min(len(b), 64)], pk.Bytes()[:min(pk.Size(), 64)])
	}
}
