package gameserver

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/sim"
	"google.golang.org/protobuf/proto"
)

// TestDeitySpawnKill: the deity's spawn puts an entity of the prototype in the
// region near the position; kill removes any entity of any region but a
// player's avatar; each refusal is a (non-fatal) error reply naming why, and
// changes nothing.
func TestDeitySpawnKill(t *testing.T) {
	t.Parallel()
	s := benchServer(t, nil)
	lc := joinPlayer(t, s, "cy")
	avatar := s.hub().Entity(lc.c.avatar)
	at := avatar.Pos().Add(mgl32.Vec2{3, 0})
	point := func(p mgl32.Vec2) *pb.NetStructPoint3 { return &pb.NetStructPoint3{X: p[0], Y: p[1]} }
	wilds := s.regions[1]
	var prop sim.EntityID
	for _, e := range wilds.game.Entities() {
		prop = e.ID()
		break
	}
	if prop == 0 {
		t.Fatal("the wilds have no entity to kill")
	}
	count := func() (n int) {
		for _, r := range s.regions {
			n += len(r.game.Entities())
		}
		return n
	}
	var spawned sim.EntityID
	for _, tc := range []struct {
		name string
		m    *pb.NetMessageDebugCommand
		err  string // "" when it applies
		diff int    // entities more afterwards
	}{
		{"spawn a dummy", &pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_SPAWN, PrototypeId: 3, RegionId: s.hubID(), Position: point(at)}, "", 1},
		{"spawn in no region", &pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_SPAWN, PrototypeId: 3, RegionId: 77, Position: point(at)}, "spawn: gameserver: no such region or marker: region 77", 0},
		{"spawn no prototype", &pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_SPAWN, PrototypeId: 99, RegionId: s.hubID(), Position: point(at)}, "spawn: sim: no such prototype: 99", 0},
		{"spawn an avatar", &pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_SPAWN, PrototypeId: 0, RegionId: s.hubID(), Position: point(at)}, "by login", 0},
		{"spawn off the ground", &pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_SPAWN, PrototypeId: 3, RegionId: s.hubID(), Position: point(mgl32.Vec2{3000, 3000})}, "spawn: sim: no free walkable spot", 0},
		{"kill the dummy", &pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_KILL}, "", -1},
		{"kill the avatar", &pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_KILL, EntityId: uint64(lc.c.avatar)}, "player's avatar", 0},
		{"kill the dummy again", &pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_KILL}, "kill: sim: no such entity", 0},
		{"kill in another region", &pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_KILL, EntityId: uint64(prop)}, "", -1},
	} {
		if strings.HasPrefix(tc.name, "kill the dummy") {
			tc.m.EntityId = uint64(spawned)
		}
		before := count()
		lc.c.replies = lc.c.replies[:0]
		s.debugCommand(lc.c, tc.m)
		var got string
		for _, r := range lc.c.replies {
			if e, ok := r.(*pb.NetMessageError); ok {
				got = e.Text
			}
		}
		if (got == "") != (tc.err == "") || !strings.Contains(got, tc.err) {
			t.Errorf("%s: answered %q, want %q", tc.name, got, tc.err)
		}
		if d := count() - before; d != tc.diff {
			t.Errorf("%s: %+d entities, want %+d", tc.name, d, tc.diff)
		}
		if tc.name == "spawn a dummy" {
			for _, e := range s.hub().Entities() {
				if e.Prototype() == 3 && e.Pos().Sub(at).Len() <= 8 {
					spawned = e.ID()
				}
			}
			if spawned == 0 {
				t.Fatal("no dummy within 8 m of the spawn point")
			}
		}
	}
	if s.hub().Entity(lc.c.avatar) == nil || wilds.game.Entity(prop) != nil {
		t.Error("the avatar is gone, or the wilds' entity is not")
	}
}

// Over the websocket: a refused debug command is answered by a non-fatal error
// that carries the command's request_id, so a deity that sent several in one
// packet can tell which failed; an accepted command gets no error, and a refused
// command without an id gets an error without one. The ping sent last bounds
// the answers: the server answers a packet's requests in order, in one frame.
func TestDebugCommandRefusalCarriesRequestID(t *testing.T) {
	checkLeaks(t)
	s := startServer(t, "", func(c *Config) { c.Period = 5 * time.Millisecond })
	d := dial(t, s.url, dialOpt{})
	d.login("deity", &[]string{testToken}[0])
	cmds := []struct {
		m    *pb.NetMessageDebugCommand
		want string // the refusal's text starts with it; "": accepted
	}{
		{&pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_TELEPORT, PlayerName: "nobody", RequestId: 7}, "teleport: "},
		{&pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_PAUSE, RequestId: 8}, ""},
		{&pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_KILL, EntityId: math.MaxUint64, RequestId: 1 << 31}, "kill: "},
		{&pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_RESUME, RequestId: 9}, ""},
		{&pb.NetMessageDebugCommand{Op: pb.DebugOp(99), RequestId: 10}, "unknown debug op"},
		{&pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_SPAWN, PrototypeId: 99}, "spawn: "},
	}
	msgs := []proto.Message{}
	for _, c := range cmds {
		msgs = append(msgs, c.m)
	}
	if err := d.send(append(msgs, &pb.NetMessagePing{ClientTimeMicros: 1})...); err != nil {
		t.Fatal(err)
	}
	var got []*pb.NetMessageError
	for pong := false; !pong; {
		for _, m := range d.next(wait) {
			switch m := m.(type) {
			case *pb.NetMessageError:
				got = append(got, m)
			case *pb.NetMessagePong:
				pong = true
			}
		}
	}
	var want []*pb.NetMessageDebugCommand
	for _, c := range cmds {
		if c.want != "" {
			want = append(want, c.m)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d errors before the pong, want %d (one per refused command): %v", len(got), len(want), got)
	}
	k := 0
	for _, c := range cmds {
		if c.want == "" {
			continue
		}
		e := got[k]
		k++
		if e.GetRequestId() != c.m.GetRequestId() || e.GetCode() != pb.ErrorCode_ERROR_CODE_BAD_PACKET ||
			!strings.HasPrefix(e.GetText(), c.want) || e.GetInputSeq() != 0 {
			t.Errorf("%v refused with request_id %d, %v %q, input_seq %d; want request_id %d, BAD_PACKET %q…, input_seq 0",
				c.m.GetOp(), e.GetRequestId(), e.GetCode(), e.GetText(), e.GetInputSeq(), c.m.GetRequestId(), c.want)
		}
	}
}
