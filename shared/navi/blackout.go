package navi

import (
	"github.com/go-gl/mathgl/mgl32"

	"github.com/twinframe/twinframe/shared/geom"
)

// BlackOutZoneID names a blackout zone of a Mesh. The zero value names none.
// Ids carry a generation, so the id of a removed zone never names a new one.
type BlackOutZoneID struct{ index, gen uint32 }

type zone struct {
	center mgl32.Vec2
	radius float32
	gen    uint32
	live   bool
}

func sq(x float32) float32 { return float32(x * x) }

func (z *zone) containsPoint(p mgl32.Vec2) bool {
	return sq(p[0]-z.center[0])+sq(p[1]-z.center[1]) <= sq(z.radius)
}

func (m *Mesh) centroid(t int32) mgl32.Vec2 {
	v := &m.tris[t].V
	a, b, c := m.verts[v[0]], m.verts[v[1]], m.verts[v[2]]
	return mgl32.Vec2{(a[0] + b[0] + c[0]) / 3, (a[1] + b[1] + c[1]) / 3}
}

// blackoutFlag is BlackOut when t's centroid lies in a live zone.
func (m *Mesh) blackoutFlag(t int32) Flags {
	c := m.centroid(t)
	for i := range m.zones {
		if m.zones[i].live && m.zones[i].containsPoint(c) {
			return BlackOut
		}
	}
	return 0
}

// AddBlackOutZone adds a circular blackout zone: every triangle whose
// centroid lies inside it gets the BlackOut flag. A zone with a negative or
// non-finite radius or centre is ignored and gets the zero id.
func (m *Mesh) AddBlackOutZone(center mgl32.Vec2, radius float32) BlackOutZoneID {
	if !geom.Finite(center[0]) || !geom.Finite(center[1]) || !geom.Finite(radius) || radius < 0 {
		return BlackOutZoneID{}
	}
	idx := -1
	for i := range m.zones {
		if !m.zones[i].live {
			idx = i
			break
		}
	}
	if idx < 0 {
		m.zones = append(m.zones, zone{})
		idx = len(m.zones) - 1
	}
	z := &m.zones[idx]
	z.gen++
	if z.gen == 0 {
		z.gen = 1
	}
	z.center, z.radius, z.live = center, radius, true
	for t := range m.tris {
		if z.containsPoint(m.centroid(int32(t))) {
			m.tris[t].Flags |= BlackOut
		}
	}
	return BlackOutZoneID{uint32(idx), z.gen}
}

// RemoveBlackOutZone removes a zone and reports whether id named a live one.
// Triangles keep the BlackOut flag where another zone still covers them.
func (m *Mesh) RemoveBlackOutZone(id BlackOutZoneID) bool {
	if id.gen == 0 || int(id.index) >= len(m.zones) {
		return false
	}
	z := &m.zones[id.index]
	if !z.live || z.gen != id.gen {
		return false
	}
	z.live = false
	for t := range m.tris {
		if z.containsPoint(m.centroid(int32(t))) {
			m.tris[t].Flags = m.tris[t].Flags&^BlackOut | m.blackoutFlag(int32(t))
		}
	}
	return true
}

// BlackOutZones calls fn for each live zone, in id order.
func (m *Mesh) BlackOutZones(fn func(id BlackOutZoneID, center mgl32.Vec2, radius float32)) {
	for i := range m.zones {
		if z := &m.zones[i]; z.live {
			fn(BlackOutZoneID{uint32(i), z.gen}, z.center, z.radius)
		}
	}
}

// InBlackOutZone reports whether the disc of radius r at p overlaps a zone.
func (m *Mesh) InBlackOutZone(p mgl32.Vec2, r float32) bool {
	for i := range m.zones {
		z := &m.zones[i]
		if z.live && sq(p[0]-z.center[0])+sq(p[1]-z.center[1]) < sq(z.radius+r) {
			return true
		}
	}
	return false
}

// SpawnableArea returns the area inside bounds that is walkable and not
// blacked out (the triangles with Walk and without BlackOut, clipped to bounds).
func (m *Mesh) SpawnableArea(bounds geom.AABB) float32 {
	var sum float64
	var buf [2][8]vec2
	for t := range m.tris {
		tr := &m.tris[t]
		if tr.Flags&(Walk|BlackOut) != Walk {
			continue
		}
		a, b, c := m.verts[tr.V[0]], m.verts[tr.V[1]], m.verts[tr.V[2]]
		if max(a[0], b[0], c[0]) <= bounds.Min[0] || min(a[0], b[0], c[0]) >= bounds.Max[0] ||
			max(a[1], b[1], c[1]) <= bounds.Min[1] || min(a[1], b[1], c[1]) >= bounds.Max[1] {
			continue
		}
		sum += clippedArea(&buf, [3]vec2{v64(a), v64(b), v64(c)}, bounds)
	}
	return float32(sum)
}

// clippedArea clips a triangle to the box (Sutherland–Hodgman) and returns
// the area of what is left.
func clippedArea(buf *[2][8]vec2, tri [3]vec2, bd geom.AABB) float64 {
	in := buf[0][:0]
	in = append(in, tri[:]...)
	out := buf[1][:0]
	lim := [4]float64{float64(bd.Min[0]), float64(bd.Max[0]), float64(bd.Min[1]), float64(bd.Max[1])}
	for side := 0; side < 4; side++ {
		out = out[:0]
		inside := func(p vec2) bool {
			switch side {
			case 0:
				return p.x >= lim[0]
			case 1:
				return p.x <= lim[1]
			case 2:
				return p.y >= lim[2]
			}
			return p.y <= lim[3]
		}
		cross := func(p, q vec2) vec2 {
			var u float64
			if side < 2 {
				u = (lim[side] - p.x) / (q.x - p.x)
				return vec2{lim[side], p.y + float64(u*(q.y-p.y))}
			}
			u = (lim[side] - p.y) / (q.y - p.y)
			return vec2{p.x + float64(u*(q.x-p.x)), lim[side]}
		}
		for i := range in {
			p, q := in[i], in[(i+1)%len(in)]
			pin, qin := inside(p), inside(q)
			if pin {
				out = append(out, p)
			}
			if pin != qin {
				out = append(out, cross(p, q))
			}
		}
		in, out = out, in
		if len(in) < 3 {
			return 0
		}
	}
	var a float64
	for i := range in {
		p, q := in[i], in[(i+1)%len(in)]
		a += float64(p.x*q.y) - float64(q.x*p.y)
	}
	return a / 2
}
