package navi_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/navi"
	"github.com/twinframe/twinframe/shared/world"
)

// walls lists the edges that block walking: edges of Walk triangles on the
// bounds or next to a triangle without Walk, from the public mesh only.
func walls(m *navi.Mesh) [][2]mgl32.Vec2 {
	tris, verts := m.Triangles(), m.Vertices()
	var out [][2]mgl32.Vec2
	for _, tr := range tris {
		if tr.Flags&navi.Walk == 0 {
			continue
		}
		for i := 0; i < 3; i++ {
			if u := tr.N[i]; u < 0 || tris[u].Flags&navi.Walk == 0 {
				out = append(out, [2]mgl32.Vec2{verts[tr.V[i]], verts[tr.V[(i+1)%3]]})
			}
		}
	}
	return out
}

type p64 struct{ x, y float64 }

func to64(p mgl32.Vec2) p64 { return p64{float64(p[0]), float64(p[1])} }

// pointSegDist is the distance from p to segment ab, in float64.
func pointSegDist(p, a, b p64) float64 {
	ex, ey := b.x-a.x, b.y-a.y
	t := 0.0
	if l2 := ex*ex + ey*ey; l2 > 0 {
		t = math.Max(0, math.Min(1, ((p.x-a.x)*ex+(p.y-a.y)*ey)/l2))
	}
	return math.Hypot(p.x-a.x-t*ex, p.y-a.y-t*ey)
}

// segDist is the distance between segments ab and cd, in float64: zero
// when they cross, else the least of the four end point distances.
func segDist(a, b, c, d p64) float64 {
	side := func(p, q, r p64) float64 { return (q.x-p.x)*(r.y-p.y) - (q.y-p.y)*(r.x-p.x) }
	if side(a, b, c)*side(a, b, d) < 0 && side(c, d, a)*side(c, d, b) < 0 {
		return 0
	}
	return math.Min(math.Min(pointSegDist(a, c, d), pointSegDist(b, c, d)),
		math.Min(pointSegDist(c, a, b), pointSegDist(d, a, b)))
}

// legClearance is how close the segment ab comes to a wall: the disc swept
// along it touches a wall exactly when this is less than its radius.
func legClearance(ws [][2]mgl32.Vec2, a, b mgl32.Vec2, reach float32) float64 {
	lo := mgl32.Vec2{min(a[0], b[0]) - reach, min(a[1], b[1]) - reach}
	hi := mgl32.Vec2{max(a[0], b[0]) + reach, max(a[1], b[1]) + reach}
	best := math.Inf(1)
	for _, w := range ws {
		if max(w[0][0], w[1][0]) < lo[0] || min(w[0][0], w[1][0]) > hi[0] ||
			max(w[0][1], w[1][1]) < lo[1] || min(w[0][1], w[1][1]) > hi[1] {
			continue
		}
		best = math.Min(best, segDist(to64(a), to64(b), to64(w[0]), to64(w[1])))
	}
	return best
}

// clearanceTol is how far under r a leg may pass a wall: float32 rounding
// of the tangent construction, about 1e-4 of the coordinates' magnitude.
func clearanceTol(r float32, m *navi.Mesh) float64 {
	ext := m.Bounds().Max
	return 0.01*float64(r) + 2e-6*float64(max(ext[0], ext[1]))
}

// checkClearance runs n random complete paths on m and fails when a leg
// passes a wall closer than r (less the tolerance).
func checkClearance(t *testing.T, name string, m *navi.Mesh, r *rand.Rand, n int, rmin, rmax float32) (paths, legs int) {
	t.Helper()
	ws := walls(m)
	q := navi.NewQuery(m)
	var p navi.Path
	bd := m.Bounds()
	pt := func(rad float32) (mgl32.Vec2, bool) {
		for range 200 {
			c := mgl32.Vec2{bd.Min[0] + r.Float32()*(bd.Max[0]-bd.Min[0]), bd.Min[1] + r.Float32()*(bd.Max[1]-bd.Min[1])}
			if m.Contains(c, rad, navi.Walk) {
				return c, true
			}
		}
		return mgl32.Vec2{}, false
	}
	bad := 0
	for range n {
		rad := rmin + (rmax-rmin)*r.Float32()
		s, ok1 := pt(rad)
		e, ok2 := pt(rad)
		if !ok1 || !ok2 || q.FindPath(s, e, rad, &p) != navi.PathComplete {
			continue
		}
		paths++
		tol := clearanceTol(rad, m)
		for i := 1; i < len(p.Points); i++ {
			legs++
			if c := legClearance(ws, p.Points[i-1], p.Points[i], rad); c < float64(rad)-tol {
				bad++
				if bad <= 5 {
					t.Errorf("%s: path %v→%v r=%v: leg %d %v→%v passes %.4g from a wall (%.3f r)",
						name, s, e, rad, i, p.Points[i-1], p.Points[i], c, c/float64(rad))
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d legs of %d under r", name, bad, legs)
	}
	return paths, legs
}

// TestPathLegClearance: every leg of a returned path keeps the agent's
// radius from every wall, on random obstacle maps, the benchmark region
// and each region of the default world.
func TestPathLegClearance(t *testing.T) {
	t.Parallel()
	seed := uint64(20261201)
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 11))
	type tc struct {
		name       string
		m          *navi.Mesh
		n          int
		rmin, rmax float32
	}
	var cases []tc
	for i := range 20 {
		m, err := navi.Build(navi.ObstacleMap(r, 6+r.IntN(8)), nil)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, tc{fmt.Sprintf("obstacle map %d", i), m, 20, 0.3, 1.8})
	}
	bench, err := navi.Build(navi.BenchGeometry(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	cases = append(cases, tc{"bench region", bench, 300, 0.3, 2})
	w, err := world.LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	for _, rg := range w.Regions {
		m, err := w.BuildMesh(rg.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, tc{"world region " + rg.Name, m, 300, 0.3, 1})
	}
	total := 0
	for _, c := range cases {
		paths, legs := checkClearance(t, c.name, c.m, r, c.n, c.rmin, c.rmax)
		total += paths
		t.Logf("%s: %d paths, %d legs", c.name, paths, legs)
	}
	if total < 500 {
		t.Errorf("only %d paths checked", total)
	}
}
