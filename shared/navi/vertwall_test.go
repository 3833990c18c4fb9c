package navi

import (
	"fmt"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// TestVertWalls checks the per-vertex clearance against every wall (no
// wall but the vertex's own two comes nearer within its walkable wedge) and that
// fitsBeside accepts only discs containsFrom accepts, for points and radii
// around each vertex; and that it does accept most of them where a path
// puts its corners (so emit's shortcut is taken).
func TestVertWalls(t *testing.T) {
	t.Parallel()
	seed := uint64(20261202)
	t.Logf("seed %d", seed)
	rnd := newRand(seed)
	type tc struct {
		name string
		m    *Mesh
		step int // check every step-th vertex against every wall
	}
	cases := []tc{{"bench region", benchMesh(), 60}}
	for i := range 12 {
		m, err := Build(obstacleMap(rnd, 4+rnd.IntN(12)), nil)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, tc{fmt.Sprintf("obstacle map %d", i), m, 1})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := c.m
			var ws [][2]int32
			for ti := range m.tris {
				if m.tris[ti].Flags&Walk == 0 {
					continue
				}
				for i := 0; i < 3; i++ {
					if m.blocks(int32(ti), i, Walk) {
						ws = append(ws, [2]int32{m.tris[ti].V[i], m.tris[ti].V[next(i)]})
					}
				}
			}
			simple, accepted, tried := 0, 0, 0
			for v := int32(0); v < int32(len(m.verts)); v++ {
				w := m.vertWallAt(xy{m.verts[v][0], m.verts[v][1]})
				if w == nil {
					continue
				}
				simple++
				if int(v)%c.step == 0 {
					checkVertClear(t, m, v, w, ws)
				}
				for range 6 {
					r := 0.05 + 2*rnd.Float32()
					// Points out to r·√2·1.2 around the vertex, where
					// corners go, and some a little farther.
					rad := float32(float32(r*1.7) * rnd.Float32())
					d := unitDirs[rnd.IntN(64)]
					p := mgl32.Vec2{m.verts[v][0] + float32(rad*d[0]), m.verts[v][1] + float32(rad*d[1])}
					tried++
					if !m.fitsBeside(xy{m.verts[v][0], m.verts[v][1]}, p, r) {
						continue
					}
					accepted++
					if !m.containsFrom(m.Locate(p), p, float32(r*0.999), Walk) {
						t.Fatalf("vertex %d at %v: fitsBeside(%v, r=%v) but containsFrom rejects it", v, m.verts[v], p, r)
					}
				}
			}
			t.Logf("%d vertices, %d with two walls; %d of %d discs accepted", len(m.verts), simple, accepted, tried)
			stored := 0
			for _, w := range m.vwall {
				if w.clear > 0 {
					stored++
				}
			}
			if stored != simple {
				t.Errorf("%d records in the table, %d found by position", stored, simple)
			}
			if simple == 0 || accepted == 0 {
				t.Errorf("no vertex or disc answered: the shortcut is never taken")
			}
		})
	}
}

// checkVertClear fails when a wall ws not at vertex v has a point nearer to
// v than its clearance inside v's walkable wedge (the wedge from c→a
// counter-clockwise to c→b): points sampled along each wall, and its point
// nearest to v.
func checkVertClear(t *testing.T, m *Mesh, v int32, w *vertWall, ws [][2]int32) {
	t.Helper()
	c := v64(m.verts[v])
	a, b := vec2{float64(w.a.x), float64(w.a.y)}, vec2{float64(w.b.x), float64(w.b.y)}
	convex := orient(c, a, b) >= 0
	inWedge := func(p vec2) bool {
		left, right := orient(c, a, p) > 0, orient(c, p, b) > 0
		if convex {
			return left && right
		}
		return left || right
	}
	for _, e := range ws {
		if e[0] == v || e[1] == v {
			continue
		}
		pa, pb := v64(m.verts[e[0]]), v64(m.verts[e[1]])
		check := func(p vec2) {
			if d := dist64(c, p); d < float64(w.clear) && inWedge(p) {
				t.Fatalf("vertex %d at %v (walls to %v, %v): clearance %v, but wall %v–%v has a point %v in its wedge %v away",
					v, m.verts[v], w.a, w.b, w.clear, m.verts[e[0]], m.verts[e[1]], p, d)
			}
		}
		ex, ey := pb.x-pa.x, pb.y-pa.y
		for k := 0; k <= 64; k++ {
			s := float64(k) / 64
			check(vec2{pa.x + s*ex, pa.y + s*ey})
		}
		if l2 := ex*ex + ey*ey; l2 > 0 {
			s := min(max(((c.x-pa.x)*ex+(c.y-pa.y)*ey)/l2, 0), 1)
			check(vec2{pa.x + s*ex, pa.y + s*ey})
		}
	}
}
