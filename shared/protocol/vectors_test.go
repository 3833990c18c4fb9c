package protocol_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replication"
	"github.com/twinframe/twinframe/shared/replication/replicationtest"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// -update (fuzz_test.go) rewrites testdata/vectors too.
const vectorDir = "testdata/vectors"

// TestVectors regenerates the protocol test vectors (docs/PROTOCOL.md, "Test
// vectors") from the Go writers and compares them with the files: a change of a
// layout that the files do not follow fails here, so the vectors other clients
// test against cannot go stale. go test -run TestVectors -update rewrites them.
//
// The packets are the bytes replicationtest sends in a real game of the small
// test world, built by the functions the server builds its packets with
// (replication.WriteJoin, replication.Replicator.Write; TestLoginAnswerIsTheVector
// in the server checks a real session's login answer against the vector): a
// login answer, the first frame's creates, a walk's locomotion update, a bolt's
// create and its power result. The payload vectors are archives taken from
// those packets and from a second game (a right turn from the spawn point, and
// the correction another client gets), a saved avatar (Database mode, as the
// server saves one) and an archive of every primitive. The walking vectors
// (walkVectors) add states of walks in a third game and every frame the
// server's copy of what a client holds (replication.Remote) walks from them.
// Each vector's JSON is read back from its bytes field by field as the document
// lays them out (readEntity and friends), and the bytes must be what the Go
// types write again from what they unpack: the document, the Go code and the
// files agree.
func TestVectors(t *testing.T) {
	got := buildVectors(t)
	if *update {
		if err := os.RemoveAll(vectorDir); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(vectorDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, b := range got {
			if err := os.WriteFile(filepath.Join(vectorDir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	ents, err := os.ReadDir(vectorDir)
	if err != nil {
		t.Fatalf("%v (go test -run TestVectors -update writes them)", err)
	}
	on := map[string]bool{}
	for _, e := range ents {
		on[e.Name()] = true
		if _, ok := got[e.Name()]; !ok {
			t.Errorf("%s/%s: not a vector the writers produce (stale; -update removes it)", vectorDir, e.Name())
		}
	}
	for _, name := range slices.Sorted(mapKeys(got)) {
		b, err := os.ReadFile(filepath.Join(vectorDir, name))
		if err != nil {
			t.Errorf("%v (-update writes it)", err)
			continue
		}
		if !bytes.Equal(b, got[name]) {
			t.Errorf("%s/%s differs from what the Go writers produce now (-update rewrites it after a deliberate change):\n%s",
				vectorDir, name, firstDiff(b, got[name]))
		}
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// firstDiff shows the first differing line of two texts.
func firstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range max(len(la), len(lb)) {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n  file: %.200s\n  now:  %.200s", i+1, x, y)
		}
	}
	return "(same lines, different bytes)"
}

// vectors accumulates the files of the vector directory.
type vectors struct {
	t     *testing.T
	files map[string][]byte
}

// hexText is b as lowercase hex, 32 bytes a line.
func hexText(b []byte) []byte {
	var s strings.Builder
	for len(b) > 0 {
		n := min(32, len(b))
		s.WriteString(hex.EncodeToString(b[:n]))
		s.WriteByte('\n')
		b = b[n:]
	}
	return []byte(s.String())
}

// add stores name.hex and name.json.
func (v *vectors) add(name string, b []byte, doc any) {
	v.t.Helper()
	j, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		v.t.Fatal(err)
	}
	v.files[name+".hex"] = hexText(b)
	v.files[name+".json"] = append(j, '\n')
}

// The JSON forms below name the fields as docs/PROTOCOL.md does. Raw float32
// values are JSON numbers that round to the exact float32 (compare after
// rounding to float32); fixed-point values are exact.

type jsonPathNode struct {
	X      float32  `json:"x"`
	Y      float32  `json:"y"`
	Z      float32  `json:"z"`
	Side   int32    `json:"side"`
	Radius *float32 `json:"radius,omitempty"` // only a turn node (side ≠ 0) has one
}

type jsonLocomotion struct {
	Entity   uint64          `json:"entity"`
	Frame    uint64          `json:"frame"`
	Fields   uint32          `json:"fields"`
	Position *[3]float32     `json:"position,omitempty"`
	Yaw      *float32        `json:"yaw,omitempty"`
	Speed    *float32        `json:"speed,omitempty"`
	Goal     *uint32         `json:"goal,omitempty"`
	Path     *[]jsonPathNode `json:"path,omitempty"` // present (maybe empty) with HasPath
}

type jsonProjectile struct {
	Power    int32      `json:"power"`
	Source   uint64     `json:"source"`
	Dir      [2]float32 `json:"dir"`
	EndFrame uint64     `json:"end_frame"`
}

type jsonEntity struct {
	Policy     uint32          `json:"policy"`
	ID         uint64          `json:"id"`
	Prototype  int32           `json:"prototype"`
	Region     int32           `json:"region"`
	Owner      int32           `json:"owner"`
	Locomotion jsonLocomotion  `json:"locomotion"`
	Projectile *jsonProjectile `json:"projectile"`
}

type jsonLocoUpdate struct {
	Policy uint32 `json:"policy"`
	jsonLocomotion
}

type jsonPower struct {
	Policy     uint32     `json:"policy"`
	Power      int32      `json:"power"`
	Frame      uint64     `json:"frame"`
	Source     uint64     `json:"source"`
	Projectile uint64     `json:"projectile"`
	Target     uint64     `json:"target"`
	Point      [2]float32 `json:"point"`
	Normal     [2]float32 `json:"normal"`
	Damage     int32      `json:"damage"`
}

type jsonArc struct {
	Side   int32   `json:"side"`
	Radius float32 `json:"radius"`
}

type jsonSaved struct {
	Size         uint32       `json:"size"`
	Version      uint32       `json:"version"`
	Build        uint32       `json:"build"`
	ObjectSize   uint32       `json:"object_size"`
	ID           uint64       `json:"id"`
	Prototype    int32        `json:"prototype"`
	Region       int32        `json:"region"`
	Owner        int32        `json:"owner"`
	Pos          [2]float32   `json:"pos"`
	Yaw          float32      `json:"yaw"`
	Radius       float32      `json:"radius"`
	Speed        float32      `json:"speed"`
	Collision    uint32       `json:"collision"`
	Flags        uint32       `json:"flags"`
	Footprint    bool         `json:"footprint"`
	Seed         uint32       `json:"seed"`
	Population   int32        `json:"population"`
	Created      uint64       `json:"created_frame"`
	Changed      uint64       `json:"changed_frame"`
	LocoFrame    uint64       `json:"command_frame"`
	Wake         uint64       `json:"wake_frame"`
	Stuck        uint16       `json:"stuck"`
	Mode         uint32       `json:"move_mode"`
	Path         [][2]float32 `json:"path"`
	Arcs         []jsonArc    `json:"arcs"`
	Next         int32        `json:"next"`
	FollowTarget uint64       `json:"follow_target"`
	FollowRange  float32      `json:"follow_range"`
	FollowRepath uint64       `json:"follow_repath_frame"`
	Power        int32        `json:"power"`
	PowerSource  uint64       `json:"power_source"`
	PowerDir     [2]float32   `json:"power_dir"`
	PowerEnd     uint64       `json:"power_end_frame"`
}

func locoJSON(st *locomotion.State) jsonLocomotion {
	j := jsonLocomotion{Entity: st.Entity, Frame: st.Frame, Fields: uint32(st.Fields)}
	if st.Fields&locomotion.HasPosition != 0 {
		p := [3]float32(st.Position)
		j.Position = &p
	}
	if st.Fields&locomotion.HasYaw != 0 {
		y := st.Yaw
		j.Yaw = &y
	}
	if st.Fields&locomotion.HasSpeed != 0 {
		s := st.Speed
		j.Speed = &s
	}
	if st.Fields&locomotion.HasPath != 0 {
		g := st.Goal
		j.Goal = &g
		path := []jsonPathNode{}
		for _, n := range st.Path {
			jn := jsonPathNode{X: n.Point[0], Y: n.Point[1], Z: n.Point[2], Side: int32(n.Side)}
			if n.Side != locomotion.None {
				r := n.Radius
				jn.Radius = &r
			}
			path = append(path, jn)
		}
		j.Path = &path
	}
	return j
}

// readEntity reads an entity create archive as docs/PROTOCOL.md lays it out, and
// checks that sim.Entity unpacks it and packs the same bytes again.
func readEntity(t *testing.T, b []byte) jsonEntity {
	t.Helper()
	a, err := archive.NewUnpacker(archive.Replication, b)
	if err != nil {
		t.Fatal(err)
	}
	j := jsonEntity{Policy: uint32(a.Policy())}
	a.TransferUint64(&j.ID)
	a.TransferInt32(&j.Prototype)
	a.TransferInt32(&j.Region)
	a.TransferInt32(&j.Owner)
	var st locomotion.State
	if err := st.Serialize(a); err != nil {
		t.Fatal(err)
	}
	j.Locomotion = locoJSON(&st)
	var isProj bool
	a.TransferBool(&isProj)
	if isProj {
		p := &jsonProjectile{}
		a.TransferInt32(&p.Power)
		a.TransferUint64(&p.Source)
		a.TransferFloat32(&p.Dir[0])
		a.TransferFloat32(&p.Dir[1])
		a.TransferUint64(&p.EndFrame)
		j.Projectile = p
	}
	if err := a.Done(); err != nil {
		t.Fatalf("entity create read as documented: %v", err)
	}
	var e sim.Entity
	u, _ := archive.NewUnpacker(archive.Replication, b)
	u.TransferObject(&e)
	if err := u.Done(); err != nil {
		t.Fatal(err)
	}
	if again, err := replication.PackEntity(&e, a.Policy().Has(archive.Owner)); err != nil || !bytes.Equal(again, b) {
		t.Fatalf("entity create does not pack back to its bytes (%v):\n%x\n%x", err, b, again)
	}
	return j
}

func readLoco(t *testing.T, b []byte) jsonLocoUpdate {
	t.Helper()
	a, err := archive.NewUnpacker(archive.Replication, b)
	if err != nil {
		t.Fatal(err)
	}
	var st locomotion.State
	a.TransferObject(&st)
	if err := a.Done(); err != nil {
		t.Fatal(err)
	}
	p := archive.NewPacker(archive.Replication, a.Policy())
	p.TransferObject(&st)
	if !bytes.Equal(p.Bytes(), b) {
		t.Fatalf("locomotion update does not pack back to its bytes:\n%x\n%x", b, p.Bytes())
	}
	return jsonLocoUpdate{Policy: uint32(a.Policy()), jsonLocomotion: locoJSON(&st)}
}

func readPower(t *testing.T, b []byte) jsonPower {
	t.Helper()
	a, err := archive.NewUnpacker(archive.Replication, b)
	if err != nil {
		t.Fatal(err)
	}
	var r sim.PowerResult
	a.TransferObject(&r)
	if err := a.Done(); err != nil {
		t.Fatal(err)
	}
	p := archive.NewPacker(archive.Replication, a.Policy())
	p.TransferObject(&r)
	if !bytes.Equal(p.Bytes(), b) {
		t.Fatalf("power result does not pack back to its bytes:\n%x\n%x", b, p.Bytes())
	}
	return jsonPower{Policy: uint32(a.Policy()), Power: r.Power, Frame: r.Frame, Source: uint64(r.Source),
		Projectile: uint64(r.Projectile), Target: uint64(r.Target), Point: [2]float32(r.Point),
		Normal: [2]float32(r.Normal), Damage: r.Damage}
}

// readSaved reads a saved avatar (a Database archive of sim.Entity) field by
// field as docs/PROTOCOL.md lays it out.
func readSaved(t *testing.T, b []byte) jsonSaved {
	t.Helper()
	var j jsonSaved
	a, err := archive.NewUnpacker(archive.Database, b)
	if err != nil {
		t.Fatal(err)
	}
	j.Size, j.Version, j.Build = uint32(len(b)), a.Version(), a.Build()
	var hdr byte
	for i := range 4 { // the nested object's size, raw little-endian, read as bytes
		a.TransferByte(&hdr)
		j.ObjectSize |= uint32(hdr) << (8 * i)
	}
	pair := func(v *[2]float32) { a.TransferFloat32(&v[0]); a.TransferFloat32(&v[1]) }
	a.TransferUint64(&j.ID)
	a.TransferInt32(&j.Prototype)
	a.TransferInt32(&j.Region)
	a.TransferInt32(&j.Owner)
	pair(&j.Pos)
	a.TransferFloat32(&j.Yaw)
	a.TransferFloat32(&j.Radius)
	a.TransferFloat32(&j.Speed)
	a.TransferUint32(&j.Collision)
	a.TransferUint32(&j.Flags)
	a.TransferBool(&j.Footprint)
	a.TransferUint32(&j.Seed)
	a.TransferInt32(&j.Population)
	a.TransferUint64(&j.Created)
	a.TransferUint64(&j.Changed)
	a.TransferUint64(&j.LocoFrame)
	a.TransferUint64(&j.Wake)
	a.TransferUint16(&j.Stuck)
	a.TransferUint32(&j.Mode)
	archive.TransferSlice(a, &j.Path, func(a *archive.Archive, v *[2]float32) { pair(v) })
	archive.TransferSlice(a, &j.Arcs, func(a *archive.Archive, v *jsonArc) {
		a.TransferInt32(&v.Side)
		a.TransferFloat32(&v.Radius)
	})
	a.TransferInt32(&j.Next)
	a.TransferUint64(&j.FollowTarget)
	a.TransferFloat32(&j.FollowRange)
	a.TransferUint64(&j.FollowRepath)
	a.TransferInt32(&j.Power)
	a.TransferUint64(&j.PowerSource)
	pair(&j.PowerDir)
	a.TransferUint64(&j.PowerEnd)
	if err := a.Done(); err != nil {
		t.Fatalf("saved avatar read as documented: %v", err)
	}
	if int(j.ObjectSize) != len(b)-4-1-1 { // size, version, build: one byte each here
		t.Fatalf("object size %d in a save of %d bytes", j.ObjectSize, len(b))
	}
	return j
}

// primitiveOp is one value of the primitives vector, in the order written.
type primitiveOp struct {
	Op        string `json:"op"`
	Value     any    `json:"value"`
	Precision int    `json:"precision,omitempty"`
	Decoded   any    `json:"decoded,omitempty"` // a fixed-point value as it reads back
}

// primitives packs one of each archive primitive, in Replication mode with the
// Proximity policy, the edge cases included.
func primitives(t *testing.T) ([]byte, any) {
	t.Helper()
	a := archive.NewPacker(archive.Replication, archive.Proximity)
	var ops []primitiveOp
	for _, v := range []uint64{0, 1, 127, 128, 300, 1 << 35} {
		a.TransferUint64(&v)
		ops = append(ops, primitiveOp{Op: "uint64", Value: v})
	}
	for _, v := range []int32{0, -1, 1, -64, 64, math.MinInt32, math.MaxInt32} {
		a.TransferInt32(&v)
		ops = append(ops, primitiveOp{Op: "int32", Value: v})
	}
	for _, v := range []int64{-2, 1 << 40} {
		a.TransferInt64(&v)
		ops = append(ops, primitiveOp{Op: "int64", Value: v})
	}
	for _, v := range []float32{0, 1, -2.5, 0.1} {
		a.TransferFloat32(&v)
		ops = append(ops, primitiveOp{Op: "float32", Value: v})
	}
	for _, c := range []struct {
		v float32
		p int
	}{{10.3, 3}, {-10.3, 3}, {1.5707964, 6}, {2.3, -1}, {0.06, 3}} {
		v := c.v
		a.TransferFloatFixed(&v, c.p)
		ops = append(ops, primitiveOp{Op: "fixed", Value: c.v, Precision: c.p, Decoded: archive.Quantize(c.v, c.p)})
	}
	for _, s := range []string{"", "ada", "héllo"} {
		a.TransferString(&s)
		ops = append(ops, primitiveOp{Op: "string", Value: s})
	}
	for _, v := range []uint16{0, 300, math.MaxUint16} {
		a.TransferUint16(&v)
		ops = append(ops, primitiveOp{Op: "uint16", Value: v})
	}
	for _, v := range []uint32{0, 128, math.MaxUint32} {
		a.TransferUint32(&v)
		ops = append(ops, primitiveOp{Op: "uint32", Value: v})
	}
	// A count alone, as the varint before a collection's elements.
	for _, v := range []int{0, 3, 300} {
		a.TransferCount(&v)
		ops = append(ops, primitiveOp{Op: "count", Value: v})
	}
	// Six bools with a value between the first two: the first five share one
	// byte (written at the first bool), the sixth starts a new one.
	bools := []bool{true, false, true, true, true, false}
	for i, v := range bools {
		a.TransferBool(&v)
		ops = append(ops, primitiveOp{Op: "bool", Value: v})
		if i == 0 {
			b := byte(0x7F)
			a.TransferByte(&b)
			ops = append(ops, primitiveOp{Op: "byte", Value: b})
		}
	}
	if err := a.Err(); err != nil {
		t.Fatal(err)
	}
	b := slices.Clone(a.Bytes())
	readPrimitives(t, b, ops)
	return b, map[string]any{"mode": "Replication", "policy": uint32(archive.Proximity), "values": ops}
}

// readPrimitives reads b back op by op, as a client reads the vector from its
// JSON, and checks every value and that nothing is left.
func readPrimitives(t *testing.T, b []byte, ops []primitiveOp) {
	t.Helper()
	a, err := archive.NewUnpacker(archive.Replication, b)
	if err != nil {
		t.Fatal(err)
	}
	for i, op := range ops {
		var got any
		switch op.Op {
		case "uint16":
			var v uint16
			a.TransferUint16(&v)
			got = v
		case "uint32":
			var v uint32
			a.TransferUint32(&v)
			got = v
		case "uint64":
			var v uint64
			a.TransferUint64(&v)
			got = v
		case "count":
			var v int
			a.TransferCount(&v)
			got = v
		case "int32":
			var v int32
			a.TransferInt32(&v)
			got = v
		case "int64":
			var v int64
			a.TransferInt64(&v)
			got = v
		case "float32":
			var v float32
			a.TransferFloat32(&v)
			got = v
		case "fixed":
			var v float32
			a.TransferFloatFixed(&v, op.Precision)
			got = v
		case "string":
			var v string
			a.TransferString(&v)
			got = v
		case "bool":
			var v bool
			a.TransferBool(&v)
			got = v
		case "byte":
			var v byte
			a.TransferByte(&v)
			got = v
		default:
			t.Fatalf("values[%d]: op %q has no reader here", i, op.Op)
		}
		want := op.Value
		if op.Op == "fixed" {
			want = op.Decoded
		}
		if got != want {
			t.Fatalf("values[%d] (%s): read %v, wrote %v", i, op.Op, got, want)
		}
	}
	if err := a.Done(); err != nil {
		t.Fatalf("archive_primitives read op by op: %v", err)
	}
}

// jsonMessage is one message of a packet vector.
type jsonMessage struct {
	ID      protocol.ID     `json:"id"`
	Name    string          `json:"name"`
	Message json.RawMessage `json:"message"` // protobuf JSON, proto field names
	Archive any             `json:"archive,omitempty"`
}

type jsonPacket struct {
	Mux      uint16        `json:"mux"`
	Size     int           `json:"size"`
	Command  uint8         `json:"command"`
	Messages []jsonMessage `json:"messages"`
}

var pjson = protojson.MarshalOptions{UseProtoNames: true}

// packet reads a packet the server built (replicationtest runs the server's
// code: replication.WriteJoin, replication.Replicator.Write) and returns its
// messages and its JSON. The bytes are the vector as they are.
func packet(t *testing.T, b []byte) ([]proto.Message, jsonPacket) {
	t.Helper()
	rd := protocol.Reader{Limits: replication.PacketLimits}
	h, msgs, err := rd.ReadAll(b)
	if err != nil {
		t.Fatal(err)
	}
	j := jsonPacket{Mux: h.Mux, Size: h.Size, Command: uint8(h.Command)}
	for _, m := range msgs {
		id, _ := protocol.IDOf(m)
		raw, err := pjson.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var v any // protojson's spacing is unstable by design: normalise it
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		norm, _ := json.Marshal(v)
		jm := jsonMessage{ID: id, Name: id.String(), Message: norm}
		switch m := m.(type) {
		case *pb.NetMessageEntityCreate:
			jm.Archive = readEntity(t, m.GetArchiveData())
		case *pb.NetMessageLocomotionStateUpdate:
			jm.Archive = readLoco(t, m.GetArchiveData())
		case *pb.NetMessagePowerResult:
			jm.Archive = readPower(t, m.GetArchiveData())
		}
		j.Messages = append(j.Messages, jm)
	}
	return msgs, j
}

func find[T proto.Message](msgs []proto.Message, ok func(T) bool) (T, bool) {
	for _, m := range msgs {
		if x, is := m.(T); is && ok(x) {
			return x, true
		}
	}
	var zero T
	return zero, false
}

// buildVectors plays the scenario and returns every vector file by name.
func buildVectors(t *testing.T) map[string][]byte {
	t.Helper()
	v := &vectors{t: t, files: map[string][]byte{}}
	b, j := primitives(t)
	v.add("archive_primitives", b, j)

	s, err := replicationtest.NewServer(&replicationtest.Options{Files: os.DirFS("../world/testdata/small"), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	c, b, err := s.LoginPacket("ada", 0)
	if err != nil {
		t.Fatal(err)
	}
	_, pj := packet(t, b)
	v.add("packet_login_answer", b, pj)

	// frame steps the game and returns c's packet: exactly one, as no resync
	// is asked for here.
	frame := func(c *replicationtest.Client) ([]byte, []proto.Message) {
		t.Helper()
		pks, err := s.FramePackets(c)
		if err != nil {
			t.Fatal(err)
		}
		if len(pks) != 1 {
			t.Fatalf("%d packets for %s in one frame, want 1", len(pks), c.Name)
		}
		msgs, _ := packet(t, pks[0])
		return pks[0], msgs
	}
	step := func() {
		t.Helper()
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	stepFrame := func() ([]byte, []proto.Message) {
		t.Helper()
		step()
		return frame(c)
	}
	firstB, first := stepFrame()
	_, pj = packet(t, firstB)
	v.add("packet_frame_creates", firstB, pj)
	avatar := uint64(c.Avatar)
	own, ok := find(first, func(m *pb.NetMessageEntityCreate) bool { return readEntity(t, m.GetArchiveData()).ID == avatar })
	if !ok {
		t.Fatal("no create of the avatar in the first frame")
	}
	if o := readEntity(t, own.GetArchiveData()).Owner; o < 1 {
		t.Fatalf("the avatar's owner is %d; a player's is its account id, ≥ 1", o)
	}
	v.add("entity_create_avatar", own.GetArchiveData(), readEntity(t, own.GetArchiveData()))
	other, ok := find(first, func(m *pb.NetMessageEntityCreate) bool {
		e := readEntity(t, m.GetArchiveData())
		return e.ID != avatar
	})
	if !ok {
		t.Fatal("no create of the prop in the first frame")
	}
	v.add("entity_create_prop", other.GetArchiveData(), readEntity(t, other.GetArchiveData()))

	// Walk past the box: the path turns around it.
	seq := uint32(0)
	input := func(m proto.Message) {
		t.Helper()
		if err := s.Receive(c, m); err != nil {
			t.Fatal(err)
		}
	}
	seq++
	input(replication.MoveTo(seq, s.Game.Frame()+1, mgl32.Vec2{18, 5}))
	var walkB []byte
	var walk []proto.Message
	for range 5 {
		b, msgs := stepFrame()
		if _, ok := find(msgs, func(m *pb.NetMessageLocomotionStateUpdate) bool {
			return readLoco(t, m.GetArchiveData()).Entity == avatar
		}); ok {
			walkB, walk = b, msgs
			break
		}
	}
	if walk == nil {
		t.Fatal("no locomotion update of the avatar after its MoveTo")
	}
	_, pj = packet(t, walkB)
	v.add("packet_frame_walk", walkB, pj)
	upd, _ := find(walk, func(m *pb.NetMessageLocomotionStateUpdate) bool {
		return readLoco(t, m.GetArchiveData()).Entity == avatar
	})
	v.add("locomotion_update_owner", upd.GetArchiveData(), readLoco(t, upd.GetArchiveData()))
	if lj := readLoco(t, upd.GetArchiveData()); lj.Path == nil || len(*lj.Path) < 3 {
		t.Fatal("the walk's update has no path with a turn to show the deltas")
	}

	// A second player joins: its first packet creates ada mid-walk, the path
	// in the create.
	bo, _, err := s.Login("bo", 0)
	if err != nil {
		t.Fatal(err)
	}
	step()
	frame(c)
	_, boFirst := frame(bo)
	walker, ok := find(boFirst, func(m *pb.NetMessageEntityCreate) bool { return readEntity(t, m.GetArchiveData()).ID == avatar })
	if !ok || readEntity(t, walker.GetArchiveData()).Locomotion.Fields&uint32(locomotion.Moving) == 0 {
		t.Fatal("the second player's first packet has no create of the first player walking")
	}
	v.add("entity_create_walker", walker.GetArchiveData(), readEntity(t, walker.GetArchiveData()))

	// The saved avatar mid-walk: what the server stores (a Database archive).
	p := archive.NewPacker(archive.Database, 0)
	p.TransferObject(s.Game.Entity(c.Avatar))
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	saved := slices.Clone(p.Bytes())
	v.add("saved_avatar", saved, readSaved(t, saved))

	// Stop, then fire at the box: its create, then the hit.
	seq++
	input(replication.Stop(seq, s.Game.Frame()+1))
	stepFrame()
	seq++
	input(replication.Fire(seq, s.Game.Frame()+1, mgl32.Vec2{15, 5}))
	var firedB, hitB []byte
	var fired, hit []proto.Message
	for range int(sim.BoltFlightFrames) + 3 {
		b, msgs := stepFrame()
		if _, ok := find(msgs, func(m *pb.NetMessageEntityCreate) bool {
			return readEntity(t, m.GetArchiveData()).Projectile != nil
		}); ok && fired == nil {
			firedB, fired = b, msgs
		}
		if _, ok := find(msgs, func(*pb.NetMessagePowerResult) bool { return true }); ok {
			hitB, hit = b, msgs
			break
		}
	}
	if fired == nil || hit == nil {
		t.Fatalf("the bolt: create seen %v, power result seen %v", fired != nil, hit != nil)
	}
	_, pj = packet(t, firedB)
	v.add("packet_frame_fire", firedB, pj)
	proj, _ := find(fired, func(m *pb.NetMessageEntityCreate) bool { return readEntity(t, m.GetArchiveData()).Projectile != nil })
	v.add("entity_create_projectile", proj.GetArchiveData(), readEntity(t, proj.GetArchiveData()))
	_, pj = packet(t, hitB)
	v.add("packet_frame_hit", hitB, pj)
	pr, _ := find(hit, func(*pb.NetMessagePowerResult) bool { return true })
	v.add("power_result", pr.GetArchiveData(), readPower(t, pr.GetArchiveData()))

	// A player's first step from the spawn point, round the top of the wall:
	// its path turns right, and its first update leaves the position out (the
	// avatar has not yet moved a fixed(3) unit), so the path's deltas start from
	// (0, 0, 0). A fresh game: the spawn point is free.
	s, err = replicationtest.NewServer(&replicationtest.Options{Files: os.DirFS("../world/testdata/small"), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if c, _, err = s.LoginPacket("cy", 0); err != nil {
		t.Fatal(err)
	}
	stepFrame()
	if err := s.Receive(c, replication.MoveTo(1, s.Game.Frame()+1, mgl32.Vec2{15, 9})); err != nil {
		t.Fatal(err)
	}
	_, cyWalk := stepFrame()
	cyID := uint64(c.Avatar)
	right, ok := find(cyWalk, func(m *pb.NetMessageLocomotionStateUpdate) bool {
		return readLoco(t, m.GetArchiveData()).Entity == cyID
	})
	if !ok {
		t.Fatal("no update of the avatar after its MoveTo")
	}
	rj := readLoco(t, right.GetArchiveData())
	if rj.Position != nil || rj.Path == nil || !slices.ContainsFunc(*rj.Path, func(n jsonPathNode) bool { return n.Side == -1 }) {
		t.Fatalf("the walk round the top of the wall: want a path with a right turn and no position, got %+v", rj)
	}
	v.add("locomotion_update_right_turn", right.GetArchiveData(), rj)

	// Another player joins: its first packet creates cy mid-walk, and the
	// next frame every holder's copy of the walk is made the same again (the
	// create rounded it to the wire): the correction other clients get
	// (Proximity).
	dee, _, err := s.Login("dee", 0)
	if err != nil {
		t.Fatal(err)
	}
	step()
	frame(c)
	if _, deeFirst := frame(dee); !slices.ContainsFunc(deeFirst, func(m proto.Message) bool {
		cr, ok := m.(*pb.NetMessageEntityCreate)
		return ok && readEntity(t, cr.GetArchiveData()).ID == cyID
	}) {
		t.Fatal("the other player's first packet has no create of cy")
	}
	step()
	frame(c)
	_, deeNext := frame(dee)
	corr, ok := find(deeNext, func(m *pb.NetMessageLocomotionStateUpdate) bool {
		l := readLoco(t, m.GetArchiveData())
		return l.Entity == cyID && l.Policy == uint32(archive.Proximity)
	})
	if !ok {
		t.Fatal("no Proximity update of the walker for the other player the frame after its create")
	}
	v.add("locomotion_update_proximity", corr.GetArchiveData(), readLoco(t, corr.GetArchiveData()))

	walkVectors(t, v)
	return v.files
}
