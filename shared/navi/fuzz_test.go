package navi

import (
	"errors"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/twinframe/twinframe/shared/geom"
)

// geometryFromBytes decodes fuzz input into polygons on a 64×64 region:
// per polygon a kind byte, a point count byte, then two bytes per point
// (coordinates in quarter units, so collinear and repeated points abound).
func geometryFromBytes(data []byte) Geometry {
	g := Geometry{Bounds: geom.AABB{Max: mgl32.Vec2{64, 64}}}
	for len(data) >= 2 && len(g.Polygons) < 32 {
		kind := Kind(data[0]%4 + 1)
		if kind > Hole {
			kind = Walkable
		}
		n := int(data[1]%12) + 1
		data = data[2:]
		var pts []mgl32.Vec2
		for i := 0; i < n && len(data) >= 2; i++ {
			pts = append(pts, mgl32.Vec2{float32(data[0]) / 4, float32(data[1]) / 4})
			data = data[2:]
		}
		g.Polygons = append(g.Polygons, Polygon{Kind: kind, Points: pts})
	}
	return g
}

func FuzzBuild(f *testing.F) {
	f.Add([]byte{0, 4, 0, 0, 255, 0, 255, 255, 0, 255, 1, 4, 80, 80, 160, 80, 160, 160, 80, 160})
	f.Add([]byte{0, 3, 0, 0, 40, 0, 0, 40, 1, 3, 0, 0, 40, 0, 0, 40})                           // duplicate polygons
	f.Add([]byte{1, 4, 10, 10, 50, 50, 50, 10, 10, 50})                                         // bow tie
	f.Add([]byte{0, 4, 0, 0, 100, 0, 100, 100, 0, 100, 1, 4, 50, 0, 150, 0, 150, 100, 50, 100}) // overlapping
	f.Add([]byte{2, 3, 0, 0, 255, 255, 0, 255, 1, 3, 0, 0, 255, 0, 255, 255})                   // shared diagonal
	f.Fuzz(func(t *testing.T, data []byte) {
		g := geometryFromBytes(data)
		m, err := Build(g, nil)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) && !errors.Is(err, ErrTooComplex) {
				t.Fatalf("Build: unexpected error %v", err)
			}
			return
		}
		if err := Validate(m); err != nil {
			t.Fatalf("Validate: %v", err)
		}
		// A split point within the merge tolerance (1e-3) of a segment end
		// merges into it, bending the constraint by up to the tolerance;
		// clusters of near-parallel edges can cascade a few such bends.
		checkConstraints(t, g, m, 1e-2)
		// The same polygons with zones taken from the input (they may cross
		// polygons, each other and the bounds): the mesh stays valid and
		// the walkable area stays, but for the documented repair where edges
		// cross (split points rounded to float32 and merged within 1e-3,
		// which can bend a polygon's edge slightly).
		if len(data) >= 3 {
			gz := g
			for i := 0; i+2 < len(data) && i < 9; i += 3 {
				gz.Zones = append(gz.Zones, geom.Circle{Center: mgl32.Vec2{float32(data[i]) / 4, float32(data[i+1]) / 4}, Radius: float32(data[i+2]) / 8})
			}
			mz, err := Build(gz, nil)
			if err != nil {
				if !errors.Is(err, ErrTooComplex) {
					t.Fatalf("Build with zones %v: %v", gz.Zones, err)
				}
			} else {
				if err := Validate(mz); err != nil {
					t.Fatalf("Validate with zones %v: %v", gz.Zones, err)
				}
				if a, b := mz.SpawnableArea(g.Bounds), m.SpawnableArea(g.Bounds); math.Abs(float64(a-b)) > 1e-3*float64(max(a, b))+0.05 {
					t.Fatalf("zones %v changed the walkable area: %v → %v", gz.Zones, b, a)
				}
			}
		}
		// A few queries between points taken from the input.
		q := NewQuery(m)
		var p Path
		var s SweepResult
		for i := 0; i+3 < len(data) && i < 24; i += 4 {
			a := mgl32.Vec2{float32(data[i]) / 4, float32(data[i+1]) / 4}
			b := mgl32.Vec2{float32(data[i+2]) / 4, float32(data[i+3]) / 4}
			r := float32(data[i]%8) / 8
			checkPath(t, m, q, a, b, r, &p)
			checkSweep(t, m, q, a, b, r, &s)
			m.LineOfSight(a, b, Sight)
		}
	})
}

func checkPath(t *testing.T, m *Mesh, q *Query, a, b mgl32.Vec2, r float32, p *Path) {
	t.Helper()
	st := q.FindPath(a, b, r, p)
	if st == PathNone {
		t.Fatalf("FindPath(%v, %v, %v): no status", a, b, r)
	}
	if st == PathNoPath {
		return
	}
	if len(p.Points) < 1 || p.Points[len(p.Points)-1] != p.End {
		t.Fatalf("FindPath(%v, %v, %v): points %v do not end at %v", a, b, r, p.Points, p.End)
	}
	for _, pt := range p.Points {
		if !geom.Finite2(pt) || m.Locate(pt) < 0 {
			t.Fatalf("FindPath(%v, %v, %v): corner %v off the mesh", a, b, r, pt)
		}
	}
	if st == PathComplete && !p.GoalMoved && p.End != b {
		t.Fatalf("FindPath(%v, %v, %v): complete path ends at %v", a, b, r, p.End)
	}
}

func checkSweep(t *testing.T, m *Mesh, q *Query, a, b mgl32.Vec2, r float32, s *SweepResult) {
	t.Helper()
	q.Sweep(a, b, r, Walk, s)
	if !geom.Finite2(s.End) {
		t.Fatalf("Sweep(%v, %v, %v): end %v", a, b, r, s.End)
	}
	if s.Hit && (s.Contact.T < 0 || s.Contact.T > 1) {
		t.Fatalf("Sweep(%v, %v, %v): T = %v", a, b, r, s.Contact.T)
	}
	if m.Contains(a, r*1.01+Skin, Walk) && !m.Contains(s.End, r*0.99, Walk) {
		t.Fatalf("Sweep(%v, %v, %v): started inside, ended at %v outside", a, b, r, s.End)
	}
}

var fuzzMesh = func() *Mesh {
	m, err := Build(obstacleMapSeeded(99), nil)
	if err != nil {
		panic(err)
	}
	return m
}()

func obstacleMapSeeded(seed uint64) Geometry {
	return obstacleMap(newRand(seed), 12)
}

func FuzzQueries(f *testing.F) {
	f.Add(float32(10), float32(10), float32(90), float32(90), float32(0.5))
	f.Add(float32(50), float32(50), float32(50), float32(50), float32(0))
	f.Add(float32(-1), float32(1e30), float32(90), float32(-90), float32(3))
	f.Add(float32(0), float32(0), float32(100), float32(100), float32(100))
	f.Add(float32(math.Inf(1)), float32(2), float32(3), float32(4), float32(1))
	f.Fuzz(func(t *testing.T, ax, ay, bx, by, r float32) {
		m := fuzzMesh
		q := NewQuery(m)
		a, b := mgl32.Vec2{ax, ay}, mgl32.Vec2{bx, by}
		var p Path
		var s SweepResult
		checkPath(t, m, q, a, b, r, &p)
		if geom.Finite2(a) && geom.Finite2(b) && geom.Finite(r) && r >= 0 && r < 50 {
			checkSweep(t, m, q, a, b, r, &s)
		} else {
			q.Sweep(a, b, r, Walk, &s)
		}
		m.LineOfSight(a, b, Sight)
		m.Contains(a, r, Walk)
		q.Nearest(a, r, 10, Walk)
	})
}
