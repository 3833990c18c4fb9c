package navi

import "github.com/go-gl/mathgl/mgl32"

// zoneSegments adds the corners of each zone's inscribed polygon as points
// and returns its sides as constraint segments that change no content, so
// the flood gives the triangles on both sides the same flags.
func (b *builder) zoneSegments(zones []Circle) []segment {
	var segs []segment
	bd := b.bounds
	for _, z := range zones {
		if !finite2(z.Center) || !finite32(z.Radius) || !(z.Radius > 0) {
			continue
		}
		var ids [ZoneSides]int32
		for k := range ids {
			d := zoneDirs[k]
			p := mgl32.Vec2{z.Center[0] + float32(z.Radius*d[0]), z.Center[1] + float32(z.Radius*d[1])}
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

// zoneDirs[k] is the unit vector at angle 2πk/ZoneSides, from a table so
// no platform's trigonometry can change a mesh.
var zoneDirs = [ZoneSides][2]float32{
	{1, 0}, {0.98078528, 0.19509032}, {0.92387953, 0.38268343}, {0.83146961, 0.55557023},
	{0.70710678, 0.70710678}, {0.55557023, 0.83146961}, {0.38268343, 0.92387953}, {0.19509032, 0.98078528},
	{0, 1}, {-0.19509032, 0.98078528}, {-0.38268343, 0.92387953}, {-0.55557023, 0.83146961},
	{-0.70710678, 0.70710678}, {-0.83146961, 0.55557023}, {-0.92387953, 0.38268343}, {-0.98078528, 0.19509032},
	{-1, 0}, {-0.98078528, -0.19509032}, {-0.92387953, -0.38268343}, {-0.83146961, -0.55557023},
	{-0.70710678, -0.70710678}, {-0.55557023, -0.83146961}, {-0.38268343, -0.92387953}, {-0.19509032, -0.98078528},
	{0, -1}, {0.19509032, -0.98078528}, {0.38268343, -0.92387953}, {0.55557023, -0.83146961},
	{0.70710678, -0.70710678}, {0.83146961, -0.55557023}, {0.92387953, -0.38268343}, {0.98078528, -0.19509032},
}
