package protocol_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/geom"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/sim"
	"google.golang.org/protobuf/proto"
)

// A contact survives the debug stream's bytes field for field: against an entity
// (the edge hit none), against a wall (an edge hit), and with no edge tested.
func TestContactMessageRoundTrip(t *testing.T) {
	t.Parallel()
	edges := []geom.Segment{{A: mgl32.Vec2{0, 0}, B: mgl32.Vec2{4, 0}}, {A: mgl32.Vec2{4, 0}, B: mgl32.Vec2{4, -3.5}}}
	for _, c := range []sim.Contact{
		{Frame: 812, A: 17, B: 23, RadiusA: 0.45, RadiusB: 0.6, Start: mgl32.Vec2{10.5, 7.25}, Motion: mgl32.Vec2{0.2, -0.1},
			Swept: mgl32.Vec2{0.19, -0.11}, End: mgl32.Vec2{10.6, 7.2}, BAt: mgl32.Vec2{11.4, 7}, TOI: 0.37,
			At: mgl32.Vec2{10.57, 7.21}, Point: mgl32.Vec2{10.9, 7.1}, Normal: mgl32.Vec2{-0.8, 0.6}, Slide: mgl32.Vec2{0.03, -0.01},
			Edges: edges, Hit: -1},
		{Frame: 813, A: 17, RadiusA: 0.45, Start: mgl32.Vec2{3, 0.6}, Motion: mgl32.Vec2{0, -0.3}, Swept: mgl32.Vec2{0, -0.3},
			End: mgl32.Vec2{3, 0.45}, TOI: 0.5, At: mgl32.Vec2{3, 0.45}, Point: mgl32.Vec2{3, 0}, Normal: mgl32.Vec2{0, 1},
			Edges: edges, Hit: 1},
		{Frame: 1, A: 2, B: 3, RadiusA: 1, RadiusB: 1, TOI: 1, Hit: -1},
	} {
		b, err := proto.Marshal(protocol.ContactMessage(&c))
		if err != nil {
			t.Fatal(err)
		}
		var m pb.NetStructDebugContact
		if err := proto.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		got, err := protocol.ContactFromMessage(c.Frame, 0, &m)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, c) {
			t.Errorf("round trip:\n%+v\nwant\n%+v", got, c)
		}
	}
}

// A contact whose edges are not four floats each, or whose edge hit is past them,
// is refused with the contact's place in its message.
func TestContactFromMessageRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		m    *pb.NetStructDebugContact
		want string
	}{
		{"edges not 4 floats each", &pb.NetStructDebugContact{Edges: []float32{0, 0, 1}}, "(NetMessageDebugDraw.contacts[3]): 3 edge coordinates, not 4 per edge"},
		{"edge hit past the edges", &pb.NetStructDebugContact{Edges: []float32{0, 0, 1, 1}, EdgeHit: 2}, "(NetMessageDebugDraw.contacts[3]): edge_hit 2 past its 1 edges"},
		{"edge hit without edges", &pb.NetStructDebugContact{EdgeHit: 1}, "edge_hit 1 past its 0 edges"},
	} {
		_, err := protocol.ContactFromMessage(9, 3, tc.m)
		if !errors.Is(err, protocol.ErrBadPayload) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrBadPayload with %q", tc.name, err, tc.want)
		}
	}
}

// FuzzContactFromMessage decodes arbitrary NetStructDebugContact payloads (the
// server's explanation of a collision, read by the viewer). It must never panic;
// a refused contact returns no contact; an accepted one has whole edges and an
// edge hit among them, and encodes back to a message that decodes to the same.
func FuzzContactFromMessage(f *testing.F) {
	edges := []float32{0, 0, 4, 0, 4, 0, 4, -3.5}
	for _, m := range []*pb.NetStructDebugContact{
		{EntityId: 17, OtherId: 23, Radius: 0.45, OtherRadius: 0.6, StartX: 10.5, MotionX: 0.2, Toi: 0.37, Edges: edges},
		{EntityId: 17, Radius: 0.45, Toi: 0.5, NormalY: 1, Edges: edges, EdgeHit: 2},
		{Edges: []float32{0, 0, 1}},
		{Edges: edges[:4], EdgeHit: 2},
		{},
	} {
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<14 {
			return
		}
		var m pb.NetStructDebugContact
		if proto.Unmarshal(b, &m) != nil {
			return
		}
		c, err := protocol.ContactFromMessage(5, 0, &m)
		if err != nil {
			if !errors.Is(err, protocol.ErrBadPayload) || !reflect.DeepEqual(c, sim.Contact{}) {
				t.Fatalf("refused with %v and contact %+v", err, c)
			}
			return
		}
		if len(c.Edges) != len(m.GetEdges())/4 || c.Hit < -1 || c.Hit >= len(c.Edges) {
			t.Fatalf("%d edges from %d floats, hit %d", len(c.Edges), len(m.GetEdges()), c.Hit)
		}
		again, err := protocol.ContactFromMessage(5, 0, protocol.ContactMessage(&c))
		if err != nil {
			t.Fatalf("a decoded contact does not decode again: %v", err)
		}
		b1, _ := proto.Marshal(protocol.ContactMessage(&c))
		b2, _ := proto.Marshal(protocol.ContactMessage(&again))
		if !bytes.Equal(b1, b2) {
			t.Fatalf("the contact changed on a round trip:\n% x\n% x", b1, b2)
		}
	})
}
