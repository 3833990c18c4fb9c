package protocol_test

import (
	"fmt"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replication"
	"github.com/twinframe/twinframe/shared/replication/replicationtest"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
	"google.golang.org/protobuf/proto"
)

// maxWalkVectorFrames bounds the frames a walking vector lists: its walk must
// pass every node and stop within them.
const maxWalkVectorFrames = 400

// jsonF32 is a walked float32 written exactly: its bits, and the shortest
// decimal that rounds to it.
type jsonF32 struct {
	Value float32 `json:"value"`
	Bits  string  `json:"bits"`
}

func f32(v float32) jsonF32 {
	return jsonF32{Value: v, Bits: fmt.Sprintf("0x%08x", math.Float32bits(v))}
}

// jsonWalkFrame is the walked state after the frame packet of Frame: where
// docs/PROTOCOL.md §6.1 takes the entity. Walking is whether the next frame
// moves it (Moving set and a node left to walk to at a positive speed).
type jsonWalkFrame struct {
	Frame   uint64  `json:"frame"`
	X       jsonF32 `json:"x"`
	Y       jsonF32 `json:"y"`
	Yaw     jsonF32 `json:"yaw"`
	Goal    uint32  `json:"goal"`
	Moving  bool    `json:"moving"`
	Walking bool    `json:"walking"`
}

// jsonWalk is a walking vector: the .hex is the archive_data of Message, Archive
// its decoded form (as the entity_create_ and locomotion_update_ vectors give it),
// Frames the walk from its state, one frame packet after another.
type jsonWalk struct {
	Message string          `json:"message"`
	Archive any             `json:"archive"`
	Frames  []jsonWalkFrame `json:"frames"`
}

// createState reads the locomotion state out of an entity create archive.
func createState(t *testing.T, b []byte) locomotion.State {
	t.Helper()
	a, err := archive.NewUnpacker(archive.Replication, b)
	if err != nil {
		t.Fatal(err)
	}
	var id uint64
	var proto, region, owner int32
	a.TransferUint64(&id)
	a.TransferInt32(&proto)
	a.TransferInt32(&region)
	a.TransferInt32(&owner)
	var st locomotion.State
	if err := st.Serialize(a); err != nil {
		t.Fatal(err)
	}
	return st
}

// walkFrames walks st frame by frame with the server's own copy of what a
// client holds (replication.Remote, on sim.Walker), from the frame after st's
// until one frame after the walk stopped, and checks that it passed every node
// and stopped at the last.
func walkFrames(t *testing.T, name string, st *locomotion.State) []jsonWalkFrame {
	t.Helper()
	var m replication.Remote
	m.Reset(st, st.Frame)
	var out []jsonWalkFrame
	stopped := 0
	for f := st.Frame + 1; stopped < 2; f++ {
		if len(out) == maxWalkVectorFrames {
			t.Fatalf("%s: still walking after %d frames", name, len(out))
		}
		m.AdvanceTo(f)
		w := m.State()
		out = append(out, jsonWalkFrame{Frame: f, X: f32(w.Position[0]), Y: f32(w.Position[1]), Yaw: f32(w.Yaw),
			Goal: w.Goal, Moving: w.Fields&locomotion.Moving != 0, Walking: m.Walking()})
		if !m.Walking() {
			stopped++
		}
	}
	end := m.State()
	last := st.Path[len(st.Path)-1].Point
	if int(end.Goal) != len(st.Path) || (mgl32.Vec2{end.Position[0] - last[0], end.Position[1] - last[1]}).Len() > 1e-4 {
		t.Fatalf("%s: the walk ended at %v, goal %d, not at the path's end %v (%d nodes)", name, end.Position, end.Goal, last, len(st.Path))
	}
	return out
}

// walkVectors adds the walking vectors (docs/PROTOCOL.md §6.1): entity creates
// of a player walking real paths of the small test world, as another player's
// first packet carries them (the server's walked copy, on the wire's grid), and
// two absolute updates made from them whose paths a client must walk with
// straight corners only. Each lists the walk the server's copy takes from the
// state to the path's end.
func walkVectors(t *testing.T, v *vectors) {
	t.Helper()
	// No population: nothing crosses the walks.
	s, err := replicationtest.NewServer(&replicationtest.Options{Files: os.DirFS("../world/testdata/small"), Seed: 1, NoPopulation: true})
	if err != nil {
		t.Fatal(err)
	}
	// step runs a frame and builds every client's packet, as the server
	// does; it returns c's messages.
	step := func(c *replicationtest.Client) []proto.Message {
		t.Helper()
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		var out []proto.Message
		for _, cl := range s.Clients() {
			msgs, err := s.Frame(cl)
			if err != nil {
				t.Fatal(err)
			}
			if cl == c {
				out = msgs
			}
		}
		return out
	}
	ann, _, err := s.Login("ann", 0)
	if err != nil {
		t.Fatal(err)
	}
	step(nil)
	seq := uint32(0)
	moveTo := func(to mgl32.Vec2) {
		t.Helper()
		seq++
		if err := s.Receive(ann, replication.MoveTo(seq, s.Game.Frame()+1, to)); err != nil {
			t.Fatal(err)
		}
	}
	// walkTo walks ann to a point and waits until she stands there.
	walkTo := func(to mgl32.Vec2) {
		t.Helper()
		moveTo(to)
		var st locomotion.State
		for range 1000 {
			step(nil)
			s.Game.Entity(ann.Avatar).LocomotionState(&st, s.Game.Frame())
			if st.Fields&locomotion.Moving == 0 {
				if d := (mgl32.Vec2{st.Position[0] - to[0], st.Position[1] - to[1]}).Len(); d > 0.01 {
					t.Fatalf("ann stopped at %v, %.3f m from %v", st.Position, d, to)
				}
				return
			}
		}
		t.Fatalf("ann did not reach %v: %+v", to, st)
	}
	// created starts ann's walk to a point and returns the create of her that
	// a player logging in the frame after it started gets in its first packet.
	viewers := 0
	created := func(to mgl32.Vec2) []byte {
		t.Helper()
		moveTo(to)
		step(nil)
		viewers++
		c, _, err := s.Login(fmt.Sprintf("viewer%d", viewers), 0)
		if err != nil {
			t.Fatal(err)
		}
		msgs := step(c)
		cr, ok := find(msgs, func(m *pb.NetMessageEntityCreate) bool {
			return readEntity(t, m.GetArchiveData()).ID == uint64(ann.Avatar)
		})
		if !ok {
			t.Fatal("the viewer's first packet has no create of ann")
		}
		s.Logout(c) // out of ann's way
		b := cr.GetArchiveData()
		if st := createState(t, b); st.Fields&locomotion.Moving == 0 || st.Goal != 1 {
			t.Fatalf("the create of ann walking to %v: fields %d, goal %d; want Moving, goal 1", to, st.Fields, st.Goal)
		}
		return b
	}
	addCreate := func(name string, b []byte) locomotion.State {
		t.Helper()
		st := createState(t, b)
		v.add(name, b, jsonWalk{Message: "NetMessageEntityCreate", Archive: readEntity(t, b), Frames: walkFrames(t, name, &st)})
		return st
	}
	// An absolute update (policy Proximity, no Relative) of st.
	addUpdate := func(name string, st locomotion.State) {
		t.Helper()
		p := archive.NewPacker(archive.Replication, archive.Proximity)
		p.TransferObject(&st)
		if err := p.Err(); err != nil {
			t.Fatal(err)
		}
		b := slices.Clone(p.Bytes())
		// Walk what a client reads from the bytes, not st.
		u, err := archive.NewUnpacker(archive.Replication, b)
		if err != nil {
			t.Fatal(err)
		}
		var got locomotion.State
		u.TransferObject(&got)
		if err := u.Done(); err != nil {
			t.Fatal(err)
		}
		v.add(name, b, jsonWalk{Message: "NetMessageLocomotionStateUpdate", Archive: readLoco(t, b), Frames: walkFrames(t, name, &got)})
	}
	sides := func(st *locomotion.State) (left, right int) {
		for _, n := range st.Path {
			switch n.Side {
			case locomotion.Left:
				left++
			case locomotion.Right:
				right++
			}
		}
		return left, right
	}

	// One straight leg from the spawn point, diagonally.
	st := addCreate("walk_straight", created(mgl32.Vec2{7, 9}))
	if l, r := sides(&st); l+r != 0 || len(st.Path) != 2 {
		t.Fatalf("walk_straight: %d nodes, %d turns; want one straight leg", len(st.Path), l+r)
	}
	walkTo(mgl32.Vec2{7, 9})

	// From the bottom right corner to the top left: right round the box,
	// then left round the top of the wall.
	walkTo(mgl32.Vec2{19, 1})
	turns := addCreate("walk_turns", created(mgl32.Vec2{7, 9}))
	if l, r := sides(&turns); l == 0 || r == 0 {
		t.Fatalf("walk_turns: %d left and %d right turns; want both", l, r)
	}
	walkTo(mgl32.Vec2{7, 9})

	// The walk_turns path with its first turn's radius 0: walked with straight
	// corners only, though its second turn alone would make an arc.
	radius := turns
	radius.Path = slices.Clone(turns.Path)
	radius.Path[1].Radius = 0
	addUpdate("walk_fallback_radius", radius)

	// Up the right side of the wall and sharply left over its top, the path's
	// last node made a turn: walked with straight corners too, and a frame's
	// motion then stops at the corner, which turns by more than 45°.
	walkTo(mgl32.Vec2{11.6, 3})
	sharp := createState(t, created(mgl32.Vec2{9, 8.8}))
	if len(sharp.Path) != 3 || sharp.Path[1].Side == locomotion.None {
		t.Fatalf("the walk over the top of the wall: path %+v, want one turn node between two", sharp.Path)
	}
	sharp.Path = slices.Clone(sharp.Path)
	sharp.Path[2].Side, sharp.Path[2].Radius = locomotion.Left, sharp.Path[1].Radius
	addUpdate("walk_fallback_end", sharp)
}
