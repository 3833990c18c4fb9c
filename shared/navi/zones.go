package navi

import (
	"github.com/go-gl/mathgl/mgl32"

	"github.com/twinframe/twinframe/shared/geom"
)

// zoneSegments adds the corners of each zone's polygon as points and
// returns its sides as constraint segments that change no content, so the
// flood gives the triangles on both sides the same flags.
//
// The polygon has ZoneSides corners at zoneScale times the radius, so its
// area is the circle's: the triangles inside it, which a blackout zone on
// the circle flags (their centroids lie inside the circle), cover the
// circle's area. An inscribed polygon would need 32 sides to come within
// 1% of it (99.36%), and twice the thin triangles around it: paths near
// zones then expanded 61 triangles a query instead of 53 (default world,
// r = 0.5; 44 without zones).
func (b *builder) zoneSegments(zones []geom.Circle) []segment {
	var segs []segment
	bd := b.bounds
	for _, z := range zones {
		if !geom.Finite2(z.Center) || !geom.Finite(z.Radius) || !(z.Radius > 0) {
			continue
		}
		rad := float32(z.Radius * zoneScale)
		var ids [ZoneSides]int32
		for k := range ids {
			d := zoneDirs[k]
			p := mgl32.Vec2{z.Center[0] + float32(rad*d[0]), z.Center[1] + float32(rad*d[1])}
			p[0] = min(max(p[0], bd.Min[0]), bd.Max[0])
			p[1] = min(max(p[1], bd.Min[1]), bd.Max[1])
			ids[k] = b.addPoint(v64(p))
		}
		for k := range ids {
			// a == b (merged points) is skipped by insertSegment.
			segs = append(segs, segment{ids[k], ids[(k+1)%ZoneSides], content{}})
		}
	}
	return segs
}

// zoneScale is √(π / (8 sin(π/8))): a regular 16-gon with corners at
// zoneScale·r has the area of the circle of radius r.
const zoneScale = 1.0130015

// zoneDirs[k] is the unit vector at angle 2πk/ZoneSides, from a table so
// no platform's trigonometry can change a mesh.
var zoneDirs = [ZoneSides][2]float32{
	{1, 0}, {0.92387953, 0.38268343}, {0.70710678, 0.70710678}, {0.38268343, 0.92387953},
	{0, 1}, {-0.38268343, 0.92387953}, {-0.70710678, 0.70710678}, {-0.92387953, 0.38268343},
	{-1, 0}, {-0.92387953, -0.38268343}, {-0.70710678, -0.70710678}, {-0.38268343, -0.92387953},
	{0, -1}, {0.38268343, -0.92387953}, {0.70710678, -0.70710678}, {0.92387953, -0.38268343},
}
