package navi

import (
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/twinframe/twinframe/shared/geom"
)

func TestSweepCases(t *testing.T) {
	t.Parallel()
	g := Geometry{Bounds: box100, Polygons: []Polygon{rect(Walkable, 0, 0, 100, 100), rect(Obstacle, 40, 40, 60, 60)}}
	m := mustBuild(t, g)
	q := NewQuery(m)
	var res SweepResult
	tests := []struct {
		name     string
		from, to mgl32.Vec2
		r        float32
		hit      bool
		t        float32
		normal   mgl32.Vec2
		end      mgl32.Vec2
	}{
		{"free", mgl32.Vec2{10, 10}, mgl32.Vec2{20, 10}, 1, false, 0, mgl32.Vec2{}, mgl32.Vec2{20, 10}},
		{"head on", mgl32.Vec2{30, 50}, mgl32.Vec2{50, 50}, 1, true, 0.45, mgl32.Vec2{-1, 0}, mgl32.Vec2{39 - Skin, 50}},
		{"slide", mgl32.Vec2{30, 45}, mgl32.Vec2{50, 55}, 1, true, 0.45, mgl32.Vec2{-1, 0}, mgl32.Vec2{39 - Skin, 55}},
		{"corner", mgl32.Vec2{30, 30}, mgl32.Vec2{50, 50}, 0, true, 0.5, mgl32.Vec2{-1, 0}, mgl32.Vec2{}},
		{"bounds wall", mgl32.Vec2{10, 90}, mgl32.Vec2{10, 110}, 2, true, 0.4, mgl32.Vec2{0, -1}, mgl32.Vec2{10, 98 - Skin}},
		{"leaving a wall", mgl32.Vec2{39, 50}, mgl32.Vec2{30, 50}, 1, false, 0, mgl32.Vec2{}, mgl32.Vec2{30, 50}},
	}
	for _, tc := range tests {
		q.Sweep(tc.from, tc.to, tc.r, Walk, &res)
		if res.Hit != tc.hit {
			t.Errorf("%s: hit %v, want %v (%+v)", tc.name, res.Hit, tc.hit, res)
			continue
		}
		if tc.hit {
			if d := res.Contact.T - tc.t; d > 1e-4 || d < -1e-4 {
				t.Errorf("%s: T %v, want %v", tc.name, res.Contact.T, tc.t)
			}
			if tc.normal != (mgl32.Vec2{}) && geom.Dist(res.Contact.Normal, tc.normal) > 1e-3 && tc.name != "corner" {
				t.Errorf("%s: normal %v, want %v", tc.name, res.Contact.Normal, tc.normal)
			}
		}
		if tc.end != (mgl32.Vec2{}) && geom.Dist(res.End, tc.end) > 1e-3 {
			t.Errorf("%s: end %v, want %v", tc.name, res.End, tc.end)
		}
	}
}

// TestSweepVsSubstepping checks sweeps on random maps against sub-stepping
// the motion with Contains: the disc fits everywhere before the reported
// time of impact, and does not fit just after it; with no hit, it fits all
// along the motion. Radii shrink by 0.1% in the reference to keep
// exact-touch ties out.
func TestSweepVsSubstepping(t *testing.T) {
	t.Parallel()
	seed := *seedFlag
	t.Logf("seed %d (reproduce with -seed)", seed)
	r := rand.New(rand.NewPCG(seed, 3))
	var res SweepResult
	checked, hits := 0, 0
	for mi := 0; mi < 12; mi++ {
		g := obstacleMap(r, 6+r.IntN(10))
		m := mustBuild(t, g)
		q := NewQuery(m)
		for k := 0; k < 60; k++ {
			rad := 0.2 + 2*r.Float32()
			from := mgl32.Vec2{5 + 90*r.Float32(), 5 + 90*r.Float32()}
			if !m.Contains(from, rad*1.01, Walk) {
				continue
			}
			to := geom.Axpy(from, mgl32.Vec2{r.Float32()*2 - 1, r.Float32()*2 - 1}, 40)
			q.Sweep(from, to, rad, Walk, &res)
			motion := geom.Sub(to, from)
			const n = 800
			tEnd := float32(1)
			if res.Hit {
				tEnd = res.Contact.T
				hits++
			}
			for s := 0; s <= n; s++ {
				f := float32(s) / n * tEnd
				if f > tEnd-1e-3 {
					break
				}
				if !m.Contains(geom.Axpy(from, motion, f), rad*0.999, Walk) {
					t.Fatalf("map %d: sweep %v→%v r=%v: disc does not fit at %v < T=%v", mi, from, to, rad, f, tEnd)
				}
			}
			if res.Hit {
				after := min(tEnd+0.002+2/geom.Dist(from, to)*0.001, 1)
				if m.Contains(geom.Axpy(from, motion, after), rad*1.001, Walk) && tEnd+0.002 < 1 {
					t.Errorf("map %d: sweep %v→%v r=%v: disc still fits after T=%v", mi, from, to, rad, tEnd)
				}
				if !m.Contains(res.End, rad*0.999, Walk) {
					t.Errorf("map %d: sweep %v→%v r=%v: slide end %v does not fit", mi, from, to, rad, res.End)
				}
			}
			checked++
		}
	}
	t.Logf("%d sweeps checked, %d hit", checked, hits)
	if checked < 100 || hits < 20 {
		t.Fatalf("too few sweeps checked: %d (%d hits)", checked, hits)
	}
}

func TestLineOfSight(t *testing.T) {
	t.Parallel()
	g := Geometry{Bounds: box100, Polygons: []Polygon{
		rect(Walkable, 0, 0, 100, 100), rect(Obstacle, 40, 40, 60, 60), rect(Hole, 70, 10, 90, 30)}}
	m := mustBuild(t, g)
	tests := []struct {
		a, b        mgl32.Vec2
		sight, walk bool
	}{
		{mgl32.Vec2{10, 50}, mgl32.Vec2{90, 50}, false, false},
		{mgl32.Vec2{10, 10}, mgl32.Vec2{90, 90}, false, false}, // through the obstacle's corners
		{mgl32.Vec2{10, 10}, mgl32.Vec2{10, 90}, true, true},
		{mgl32.Vec2{60, 20}, mgl32.Vec2{95, 20}, true, false}, // across the hole
		{mgl32.Vec2{10, 61}, mgl32.Vec2{90, 61}, true, true},
		{mgl32.Vec2{10, 60}, mgl32.Vec2{90, 60}, false, false}, // along the wall, touching its corners
	}
	for _, tc := range tests {
		if got := m.LineOfSight(tc.a, tc.b, Sight); got != tc.sight {
			t.Errorf("sight %v→%v = %v, want %v", tc.a, tc.b, got, tc.sight)
		}
		if got := m.LineOfSight(tc.a, tc.b, Walk); got != tc.walk {
			t.Errorf("walk %v→%v = %v, want %v", tc.a, tc.b, got, tc.walk)
		}
	}
}

func TestSweepNoAllocs(t *testing.T) {
	m := benchMesh()
	q := NewQuery(m)
	var res SweepResult
	q.Sweep(mgl32.Vec2{100, 100}, mgl32.Vec2{300, 310}, 1, Walk, &res)
	allocs := testing.AllocsPerRun(100, func() {
		q.Sweep(mgl32.Vec2{100, 100}, mgl32.Vec2{300, 310}, 1, Walk, &res)
	})
	if allocs != 0 {
		t.Errorf("Sweep allocates %v times per run", allocs)
	}
}

// TestSweepThroughWallVertex covers contacts the float32 capsule test of
// geom.SweepCircleSegment misses: a zero-radius path that crosses a wall
// within rounding of the vertex where two walls meet falls just past the end
// of one wall's side test and just beside the other wall, and would leave
// the walkable area without a hit if only the capsule tests were asked.
func TestSweepThroughWallVertex(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		g        Geometry
		from, to mgl32.Vec2
		r        float32
	}{
		{
			// testdata/fuzz/FuzzBuild/b19098b8d14abe9c: the path runs along
			// the walkable triangle's edge, which enters the obstacle at
			// (18.1056, 20.3104), where two walls of the mesh meet.
			name: "fuzz b19098b8d14abe9c",
			g: Geometry{Bounds: geom.AABB{Max: mgl32.Vec2{64, 64}}, Polygons: []Polygon{
				{Kind: Walkable, Points: []mgl32.Vec2{{14.25, 12}, {30, 36.5}, {12, 12}}},
				{Kind: Walkable, Points: []mgl32.Vec2{{54.25, 60}, {12, 54.25}, {12, 12}, {22.25, 46}, {12, 8}}},
				{Kind: Obstacle, Points: []mgl32.Vec2{{12, 12}, {12, 12}, {16.75, 12}, {22.5, 47.25}, {12, 12}}},
			}},
			from: mgl32.Vec2{30, 36.5}, to: mgl32.Vec2{12, 12},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := mustBuild(t, tc.g)
			if !m.Contains(tc.from, tc.r*1.01+Skin, Walk) {
				t.Fatalf("start %v not inside", tc.from)
			}
			var res SweepResult
			NewQuery(m).Sweep(tc.from, tc.to, tc.r, Walk, &res)
			if !res.Hit {
				t.Errorf("no hit; the path %v→%v leaves the walkable area", tc.from, tc.to)
			}
			if !m.Contains(res.End, tc.r*0.99, Walk) {
				t.Errorf("end %v outside (%+v)", res.End, res)
			}
		})
	}
}

// TestSweepAimedAtWallVertices aims sweeps of zero and tiny radii on random
// maps at the vertices of walls, beyond them, so each path passes within
// float32 rounding of a vertex; a sweep that starts inside must end inside.
func TestSweepAimedAtWallVertices(t *testing.T) {
	t.Parallel()
	seed := *seedFlag
	t.Logf("seed %d (reproduce with -seed)", seed)
	r := rand.New(rand.NewPCG(seed, 5))
	var res SweepResult
	checked, hits := 0, 0
	for mi := 0; mi < 6; mi++ {
		m := mustBuild(t, obstacleMap(r, 6+r.IntN(10)))
		q := NewQuery(m)
		for v, corner := range m.corner {
			if !corner {
				continue
			}
			target := m.verts[v]
			for k := 0; k < 8; k++ {
				rad := [...]float32{0, 1e-5}[k%2]
				from := geom.Axpy(target, mgl32.Vec2{r.Float32()*2 - 1, r.Float32()*2 - 1}, 8)
				if !m.Contains(from, rad*1.01+Skin, Walk) {
					continue
				}
				to := geom.Axpy(from, geom.Sub(target, from), 1.2+2*r.Float32())
				q.Sweep(from, to, rad, Walk, &res)
				checked++
				if res.Hit {
					hits++
				}
				if !m.Contains(res.End, rad*0.99, Walk) {
					t.Fatalf("map %d: Sweep(%v, %v, %v) past vertex %v: started inside, ended at %v outside (%+v)",
						mi, from, to, rad, target, res.End, res)
				}
			}
		}
	}
	t.Logf("%d sweeps checked, %d hit", checked, hits)
	if checked < 500 || hits < 100 {
		t.Fatalf("too few sweeps checked: %d (%d hits)", checked, hits)
	}
}
