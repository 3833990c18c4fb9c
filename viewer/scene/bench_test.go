package scene

import (
	"runtime"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/internal/cputime"
	"github.com/twinframe/twinframe/shared/navi"
	"github.com/twinframe/twinframe/viewer/draw"

	"github.com/twinframe/twinframe/shared/geom"
)

// gridMesh builds a navmesh of a 200 m square with n×n small square obstacles.
func gridMesh(tb testing.TB, n int) *navi.Mesh {
	tb.Helper()
	g := navi.Geometry{Bounds: geom.AABB{Max: mgl32.Vec2{200, 200}}}
	g.Polygons = append(g.Polygons, navi.Polygon{Kind: navi.Walkable, Points: []mgl32.Vec2{{0, 0}, {200, 0}, {200, 200}, {0, 200}}})
	step := float32(200) / float32(n+1)
	for i := 1; i <= n; i++ {
		for j := 1; j <= n; j++ {
			x, y := float32(i)*step, float32(j)*step
			g.Polygons = append(g.Polygons, navi.Polygon{Kind: navi.Obstacle, Points: []mgl32.Vec2{
				{x, y}, {x + 1, y}, {x + 1, y + 1}, {x, y + 1}}})
		}
	}
	m, err := navi.Build(g, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// BenchmarkDrawList10kTriangles2kEntities builds one frame's draw list with everything on
// screen: a navmesh of ≥ 10k triangles (filled by flags, constraint edges) and a game of
// 2k walking entities (bounds, facing, labels, paths, sweeps).
func BenchmarkDrawList10kTriangles2kEntities(b *testing.B) {
	mesh := gridMesh(b, 36)
	if n := len(mesh.Triangles()); n < 10000 {
		b.Fatalf("mesh of %d triangles", n)
	}
	l, err := newLocal(LocalOptions{Seed: 1, NoAvatar: true, NoPopulation: true})
	if err != nil {
		b.Fatal(err)
	}
	g := l.Game()
	placed := 0
	for _, area := range []string{"streets", "park", "lab"} {
		n, err := g.SpawnInArea(0, area, 1, 2000-placed)
		if err != nil {
			b.Fatal(err)
		}
		placed += n
	}
	if got := len(g.Entities()); got < 2000 {
		b.Fatalf("%d entities", got)
	}
	run(l, 0, 2*time.Second) // wanderers pick paths and sweep
	cam := draw.NewCamera(1280, 800, mgl32.Vec2{0, 0}, mgl32.Vec2{200, 200})
	var list draw.List
	ov := ovEntities | ovProps | ovLabels | ovPaths | ovSweeps | ovHotspots | ovBlackout | ovSpawns
	frame := func() {
		list.Reset(cam)
		navi.DebugDraw(&list, mesh, navi.DrawOptions{Triangles: true, Constraints: true})
		l.Draw(&list, ov, 0)
	}
	frame()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ReportAllocs()
	c0, cpuOK := cputime.Thread()
	n := 0
	for b.Loop() {
		frame()
		n++
	}
	if c1, ok := cputime.Thread(); ok && cpuOK && n > 0 {
		b.ReportMetric(float64((c1-c0).Nanoseconds())/float64(n), "cpu-ns/op")
	}
	b.ReportMetric(float64(list.Triangles()), "tris/frame")
	b.ReportMetric(float64(len(g.Entities())), "entities")
}
