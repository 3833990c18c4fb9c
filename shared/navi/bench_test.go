package navi

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// benchGeometry is a 3×3-cell region (cells of 1000×1000 units, each a
// walkable square sharing its edges with its neighbours) with 300 obstacles
// of 10 to 22 vertices scattered over it; the result has about 10k triangles.
func benchGeometry(seed uint64) Geometry {
	r := rand.New(rand.NewPCG(seed, 7))
	const cell = 1000
	g := Geometry{Bounds: AABB{Max: mgl32.Vec2{3 * cell, 3 * cell}}}
	for y := 0; y < 3; y++ {
		for x := 0; x < 3; x++ {
			g.Polygons = append(g.Polygons, rect(Walkable, float32(x*cell), float32(y*cell), float32((x+1)*cell), float32((y+1)*cell)))
		}
	}
	for i := 0; i < 300; i++ {
		c := mgl32.Vec2{60 + r.Float32()*(3*cell-120), 60 + r.Float32()*(3*cell-120)}
		k := 10 + r.IntN(13)
		rad := 15 + 35*r.Float64()
		pts := make([]mgl32.Vec2, k)
		for j := range pts {
			a := (float64(j) + 0.5*r.Float64()) / float64(k) * 2 * math.Pi
			rr := rad * (0.7 + 0.3*r.Float64())
			pts[j] = mgl32.Vec2{c[0] + float32(rr*math.Cos(a)), c[1] + float32(rr*math.Sin(a))}
		}
		g.Polygons = append(g.Polygons, Polygon{Kind: Obstacle, Points: pts})
	}
	return g
}

func BenchmarkBuild3x3Cells300Obstacles(b *testing.B) {
	g := benchGeometry(1)
	b.ReportAllocs()
	var m *Mesh
	for b.Loop() {
		var err error
		m, err = Build(g, nil)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(m.tris)), "triangles")
}
