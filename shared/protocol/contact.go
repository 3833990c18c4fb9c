package protocol

import (
	"strconv"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/geom"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/sim"
)

// ContactMessage is c as the deity's debug stream carries it (the frame is the
// enclosing NetMessageDebugDraw's).
func ContactMessage(c *sim.Contact) *pb.NetStructDebugContact {
	m := &pb.NetStructDebugContact{
		EntityId: uint64(c.A), OtherId: uint64(c.B), Radius: c.RadiusA, OtherRadius: c.RadiusB,
		StartX: c.Start[0], StartY: c.Start[1], MotionX: c.Motion[0], MotionY: c.Motion[1],
		SweptX: c.Swept[0], SweptY: c.Swept[1], EndX: c.End[0], EndY: c.End[1],
		OtherX: c.BAt[0], OtherY: c.BAt[1], Toi: c.TOI, AtX: c.At[0], AtY: c.At[1],
		PointX: c.Point[0], PointY: c.Point[1], NormalX: c.Normal[0], NormalY: c.Normal[1],
		SlideX: c.Slide[0], SlideY: c.Slide[1],
		EdgeHit: uint32(c.Hit + 1),
	}
	if len(c.Edges) > 0 {
		m.Edges = make([]float32, 0, 4*len(c.Edges))
	}
	for _, e := range c.Edges {
		m.Edges = append(m.Edges, e.A[0], e.A[1], e.B[0], e.B[1])
	}
	return m
}

// ContactFromMessage is the inverse of ContactMessage for the contact at index i of
// the debug draw of frame (i names it in the error). It refuses edges that are not
// four floats each and an edge_hit past them.
func ContactFromMessage(frame uint64, i int, m *pb.NetStructDebugContact) (sim.Contact, error) {
	what := "NetMessageDebugDraw.contacts[" + strconv.Itoa(i) + "]"
	if len(m.GetEdges())%4 != 0 {
		return sim.Contact{}, errorf(-1, what, ErrBadPayload, "%d edge coordinates, not 4 per edge", len(m.GetEdges()))
	}
	n := len(m.GetEdges()) / 4
	if int64(m.GetEdgeHit()) > int64(n) {
		return sim.Contact{}, errorf(-1, what, ErrBadPayload, "edge_hit %d past its %d edges", m.GetEdgeHit(), n)
	}
	c := sim.Contact{
		Frame: frame, A: sim.EntityID(m.GetEntityId()), B: sim.EntityID(m.GetOtherId()),
		RadiusA: m.GetRadius(), RadiusB: m.GetOtherRadius(),
		Start: mgl32.Vec2{m.GetStartX(), m.GetStartY()}, Motion: mgl32.Vec2{m.GetMotionX(), m.GetMotionY()},
		Swept: mgl32.Vec2{m.GetSweptX(), m.GetSweptY()}, End: mgl32.Vec2{m.GetEndX(), m.GetEndY()},
		BAt: mgl32.Vec2{m.GetOtherX(), m.GetOtherY()}, TOI: m.GetToi(), At: mgl32.Vec2{m.GetAtX(), m.GetAtY()},
		Point: mgl32.Vec2{m.GetPointX(), m.GetPointY()}, Normal: mgl32.Vec2{m.GetNormalX(), m.GetNormalY()},
		Slide: mgl32.Vec2{m.GetSlideX(), m.GetSlideY()},
		Hit:   int(m.GetEdgeHit()) - 1,
	}
	if n > 0 {
		c.Edges = make([]geom.Segment, n)
	}
	for k := range c.Edges {
		e := m.Edges[4*k : 4*k+4]
		c.Edges[k] = geom.Segment{A: mgl32.Vec2{e[0], e[1]}, B: mgl32.Vec2{e[2], e[3]}}
	}
	return c, nil
}
