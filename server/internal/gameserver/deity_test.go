package gameserver

import (
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/sim"
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
