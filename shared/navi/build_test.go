package navi

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/twinframe/twinframe/shared/geom"
)

func rect(k Kind, x0, y0, x1, y1 float32) Polygon {
	return Polygon{Kind: k, Points: []mgl32.Vec2{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}}}
}

func mustBuild(t testing.TB, g Geometry) *Mesh {
	t.Helper()
	m, err := Build(g, nil)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	if err := Validate(m); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	checkConstraints(t, g, m, 2e-3)
	return m
}

var seedFlag = flag.Uint64("seed", 20261201, "seed for the randomized tests")

var box100 = geom.AABB{Max: mgl32.Vec2{100, 100}}

func TestBuildCases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		g    Geometry
		walk []mgl32.Vec2
		not  []mgl32.Vec2
	}{
		{"empty", Geometry{Bounds: box100}, nil, []mgl32.Vec2{{50, 50}}},
		{"one walkable", Geometry{Bounds: box100, Polygons: []Polygon{rect(Walkable, 10, 10, 90, 90)}},
			[]mgl32.Vec2{{50, 50}, {11, 11}}, []mgl32.Vec2{{5, 5}, {95, 50}}},
		{"walkable equals bounds", Geometry{Bounds: box100, Polygons: []Polygon{rect(Walkable, 0, 0, 100, 100)}},
			[]mgl32.Vec2{{50, 50}, {0.5, 0.5}}, nil},
		{"obstacle inside", Geometry{Bounds: box100, Polygons: []Polygon{rect(Walkable, 0, 0, 100, 100), rect(Obstacle, 40, 40, 60, 60)}},
			[]mgl32.Vec2{{20, 20}}, []mgl32.Vec2{{50, 50}}},
		{"hole inside", Geometry{Bounds: box100, Polygons: []Polygon{rect(Walkable, 0, 0, 100, 100), rect(Hole, 40, 40, 60, 60)}},
			[]mgl32.Vec2{{20, 20}}, []mgl32.Vec2{{50, 50}}},
		{"crossing obstacles", Geometry{Bounds: box100, Polygons: []Polygon{rect(Walkable, 0, 0, 100, 100),
			rect(Obstacle, 20, 40, 80, 60), rect(Obstacle, 40, 20, 60, 80)}},
			[]mgl32.Vec2{{10, 10}, {30, 30}}, []mgl32.Vec2{{50, 50}, {25, 50}, {50, 25}}},
		{"overlapping collinear edges", Geometry{Bounds: box100, Polygons: []Polygon{rect(Walkable, 0, 0, 50, 100), rect(Walkable, 50, 0, 100, 100),
			rect(Obstacle, 40, 40, 60, 60), rect(Obstacle, 45, 30, 60, 40)}},
			[]mgl32.Vec2{{10, 10}, {50, 80}, {50.001, 20}}, []mgl32.Vec2{{50, 50}, {50, 35}}},
		{"clockwise ring and closing point", Geometry{Bounds: box100, Polygons: []Polygon{{Kind: Walkable,
			Points: []mgl32.Vec2{{10, 10}, {10, 90}, {90, 90}, {90, 10}, {10, 10}}}}},
			[]mgl32.Vec2{{50, 50}}, []mgl32.Vec2{{5, 5}}},
		{"near duplicates merged", Geometry{Bounds: box100, Polygons: []Polygon{{Kind: Walkable,
			Points: []mgl32.Vec2{{10, 10}, {90, 10}, {90, 10.0001}, {90, 90}, {10, 90}}}, rect(Obstacle, 10.0002, 10, 20, 20)}},
			[]mgl32.Vec2{{50, 50}}, []mgl32.Vec2{{15, 15}}},
		{"nested", Geometry{Bounds: box100, Polygons: []Polygon{rect(Walkable, 0, 0, 100, 100), rect(Obstacle, 20, 20, 80, 80), rect(Walkable, 30, 30, 70, 70)}},
			[]mgl32.Vec2{{10, 10}}, []mgl32.Vec2{{50, 50}, {25, 25}}},
		{"vertex on another edge", Geometry{Bounds: box100, Polygons: []Polygon{rect(Walkable, 0, 0, 100, 100),
			{Kind: Obstacle, Points: []mgl32.Vec2{{50, 0}, {60, 10}, {40, 10}}}}},
			[]mgl32.Vec2{{10, 10}}, []mgl32.Vec2{{50, 5}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := mustBuild(t, tc.g)
			for _, p := range tc.walk {
				if m.FlagsAt(p)&Walk == 0 {
					t.Errorf("%v not walkable", p)
				}
			}
			for _, p := range tc.not {
				if m.FlagsAt(p)&Walk != 0 {
					t.Errorf("%v walkable", p)
				}
			}
		})
	}
}

func TestBuildBadInput(t *testing.T) {
	t.Parallel()
	nan := float32(0)
	nan = nan / nan
	tests := []struct {
		name   string
		g      Geometry
		err    error
		poly   int
		vertex int
	}{
		{"nan", Geometry{Bounds: box100, Polygons: []Polygon{rect(Walkable, 0, 0, 10, 10), {Kind: Obstacle, Points: []mgl32.Vec2{{1, 1}, {nan, 2}, {3, 1}}}}}, ErrNotFinite, 1, 1},
		{"outside", Geometry{Bounds: box100, Polygons: []Polygon{rect(Walkable, 0, 0, 101, 10)}}, ErrOutOfBounds, 0, 1},
		{"two points", Geometry{Bounds: box100, Polygons: []Polygon{{Kind: Walkable, Points: []mgl32.Vec2{{1, 1}, {2, 2}}}}}, ErrTooFewPoints, 0, -1},
		{"all duplicates", Geometry{Bounds: box100, Polygons: []Polygon{{Kind: Walkable, Points: []mgl32.Vec2{{1, 1}, {1, 1}, {1, 1}, {1, 1}}}}}, ErrTooFewPoints, 0, -1},
		{"collinear", Geometry{Bounds: box100, Polygons: []Polygon{{Kind: Walkable, Points: []mgl32.Vec2{{1, 1}, {2, 2}, {3, 3}}}}}, ErrZeroArea, 0, -1},
		{"bow tie", Geometry{Bounds: box100, Polygons: []Polygon{{Kind: Obstacle, Points: []mgl32.Vec2{{0, 0}, {10, 10}, {10, 0}, {0, 10}}}}}, ErrSelfIntersecting, 0, 2},
		{"pinched", Geometry{Bounds: box100, Polygons: []Polygon{{Kind: Obstacle, Points: []mgl32.Vec2{{0, 0}, {10, 0}, {5, 5}, {10, 10}, {0, 10}, {5, 5}}}}}, ErrSelfIntersecting, 0, 5},
		{"kind", Geometry{Bounds: box100, Polygons: []Polygon{{Kind: 9, Points: []mgl32.Vec2{{0, 0}, {10, 0}, {5, 5}}}}}, ErrKind, 0, -1},
		{"bounds", Geometry{Bounds: geom.AABB{Min: mgl32.Vec2{1, 1}, Max: mgl32.Vec2{1, 5}}}, ErrBounds, -1, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Build(tc.g, nil)
			if !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			var ie *InputError
			if errors.As(err, &ie) {
				if ie.Polygon != tc.poly || ie.Vertex != tc.vertex {
					t.Errorf("error names polygon %d vertex %d, want %d %d (%v)", ie.Polygon, ie.Vertex, tc.poly, tc.vertex, err)
				}
			} else if tc.poly >= 0 {
				t.Errorf("error %v is not an *InputError", err)
			}
		})
	}
}

// randomGeometry makes a walkable ground with n random obstacles (rotated
// quads and triangles) that may overlap each other and the ground's edges.
func randomGeometry(r *rand.Rand, size float32, n int) Geometry {
	g := Geometry{Bounds: geom.AABB{Max: mgl32.Vec2{size, size}}}
	g.Polygons = append(g.Polygons, rect(Walkable, size*0.02, size*0.02, size*0.98, size*0.98))
	for i := 0; i < n; i++ {
		c := mgl32.Vec2{r.Float32() * size, r.Float32() * size}
		k := 3 + r.IntN(3)
		rad := size * (0.01 + 0.05*r.Float32())
		var pts []mgl32.Vec2
		for j := 0; j < k; j++ {
			a := (float64(j) + 0.8*r.Float64()) / float64(k) * 2 * 3.141592653589793
			p := c.Add(mgl32.Vec2{float32(cosApprox(a)), float32(sinApprox(a))}.Mul(rad))
			p[0] = min(max(p[0], 0), size)
			p[1] = min(max(p[1], 0), size)
			pts = append(pts, p)
		}
		kind := Obstacle
		if r.IntN(8) == 0 {
			kind = Hole
		}
		g.Polygons = append(g.Polygons, Polygon{Kind: kind, Points: pts})
	}
	return g
}

// gridGeometry makes polygons with small integer coordinates, so that
// collinear, overlapping and touching edges are the rule.
func gridGeometry(r *rand.Rand, n int) Geometry {
	g := Geometry{Bounds: geom.AABB{Max: mgl32.Vec2{8, 8}}}
	kinds := []Kind{Walkable, Walkable, Obstacle, Hole}
	for i := 0; i < n; i++ {
		x0, y0 := float32(r.IntN(8)), float32(r.IntN(8))
		x1, y1 := x0+1+float32(r.IntN(int(8-x0))), y0+1+float32(r.IntN(int(8-y0)))
		k := kinds[r.IntN(len(kinds))]
		if r.IntN(2) == 0 {
			g.Polygons = append(g.Polygons, rect(k, x0, y0, x1, y1))
		} else {
			g.Polygons = append(g.Polygons, Polygon{Kind: k, Points: []mgl32.Vec2{{x0, y0}, {x1, y0}, {x0 + float32(r.IntN(int(x1-x0)+1)), y1}}})
		}
	}
	return g
}

func TestBuildRandom(t *testing.T) {
	t.Parallel()
	seed := *seedFlag
	t.Logf("seed %d (reproduce with -seed)", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	iters := 400
	if testing.Short() {
		iters = 50
	}
	for iter := 0; iter < iters; iter++ {
		var g Geometry
		if iter%2 == 0 {
			g = randomGeometry(r, 100, 1+r.IntN(80))
		} else {
			g = gridGeometry(r, 1+r.IntN(20))
		}
		m, err := Build(g, nil)
		if err != nil {
			var ie *InputError
			if errors.As(err, &ie) {
				continue // a random polygon can be degenerate
			}
			t.Fatalf("iter %d: Build: %v", iter, err)
		}
		if err := Validate(m); err != nil {
			t.Fatalf("iter %d: %v", iter, err)
		}
		if iter < 100 {
			checkConstraints(t, g, m, 2e-3)
		}
	}
}

func ExampleBuild() {
	g := Geometry{
		Bounds: geom.AABB{Max: mgl32.Vec2{100, 100}},
		Polygons: []Polygon{
			{Kind: Walkable, Points: []mgl32.Vec2{{0, 0}, {100, 0}, {100, 100}, {0, 100}}},
			{Kind: Obstacle, Points: []mgl32.Vec2{{40, 40}, {60, 40}, {60, 60}, {40, 60}}},
		},
	}
	m, err := Build(g, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(Validate(m), m.FlagsAt(mgl32.Vec2{10, 10})&Walk != 0, m.FlagsAt(mgl32.Vec2{50, 50})&Walk != 0)
	// Output: <nil> true false
}

// checkConstraints verifies that every input polygon edge is covered by
// constraint edges of m: points sampled along it lie within tol of one.
// (Validate cannot check this: the mesh does not keep its input.)
func checkConstraints(t testing.TB, g Geometry, m *Mesh, tol float32) {
	t.Helper()
	var cons [][2]mgl32.Vec2
	for ti, tr := range m.Triangles() {
		for i := 0; i < 3; i++ {
			if tr.Constraint>>i&1 != 0 && (tr.N[i] < 0 || int(tr.N[i]) > ti) {
				cons = append(cons, [2]mgl32.Vec2{m.verts[tr.V[i]], m.verts[tr.V[next(i)]]})
			}
		}
	}
	for pi, p := range g.Polygons {
		n := len(p.Points)
		for vi := range p.Points {
			a, b := p.Points[vi], p.Points[(vi+1)%n]
			for k := 1; k < 8; k++ {
				s := geom.Axpy(a, geom.Sub(b, a), float32(k)/8)
				ok := false
				for _, c := range cons {
					if segDist2(s, c[0], c[1]) <= tol*tol {
						ok = true
						break
					}
				}
				if !ok {
					t.Fatalf("polygon %d edge %d: point %v is on no constraint edge", pi, vi, s)
				}
			}
		}
	}
}

func TestBuildSteinerLimit(t *testing.T) {
	t.Parallel()
	// Ten horizontal and ten vertical thin obstacles: 100 crossings.
	g := Geometry{Bounds: box100}
	for i := 0; i < 10; i++ {
		x := float32(5 + 9*i)
		g.Polygons = append(g.Polygons, rect(Obstacle, x, 1, x+1, 99), rect(Obstacle, 1, x, 99, x+1))
	}
	if _, err := Build(g, &Options{MaxSteinerPoints: 20}); !errors.Is(err, ErrTooComplex) {
		t.Errorf("err = %v, want ErrTooComplex", err)
	}
	m := mustBuild(t, g)
	if m.FlagsAt(mgl32.Vec2{5.5, 50}) != 0 || m.FlagsAt(mgl32.Vec2{10, 10})&Sight == 0 {
		t.Error("flags wrong on the grid")
	}
}

func TestLocateMatchesScan(t *testing.T) {
	t.Parallel()
	m := benchMesh()
	r := rand.New(rand.NewPCG(*seedFlag, 5))
	for i := 0; i < 2000; i++ {
		p := mgl32.Vec2{r.Float32() * 3000, r.Float32() * 3000}
		got, want := m.Locate(p), m.scan(p)
		if got != want && !m.onTriangle(got, p) {
			t.Fatalf("Locate(%v) = %d, scan finds %d", p, got, want)
		}
	}
	for _, p := range []mgl32.Vec2{{-1, 0}, {0, 3000.5}, {float32(math.NaN()), 1}} {
		if m.Locate(p) != -1 {
			t.Errorf("Locate(%v) found a triangle", p)
		}
	}
}

// onTriangle reports whether p lies in the closed triangle t.
func (m *Mesh) onTriangle(t int32, p mgl32.Vec2) bool {
	if t < 0 {
		return false
	}
	tr := &m.tris[t]
	for i := 0; i < 3; i++ {
		if orient(v64(m.verts[tr.V[i]]), v64(m.verts[tr.V[next(i)]]), v64(p)) < 0 {
			return false
		}
	}
	return true
}
