package navi

import (
	"fmt"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/twinframe/twinframe/shared/geom"
)

func TestBlackOutZones(t *testing.T) {
	t.Parallel()
	g := Geometry{Bounds: box100, Polygons: []Polygon{rect(Walkable, 0, 0, 100, 100), rect(Obstacle, 40, 40, 60, 60)}}
	m := mustBuild(t, g)
	full := m.SpawnableArea(box100)
	if d := full - (10000 - 400); d > 1e-2 || d < -1e-2 {
		t.Fatalf("SpawnableArea = %v, want 9600", full)
	}
	if got := m.SpawnableArea(geom.AABB{Min: mgl32.Vec2{30, 30}, Max: mgl32.Vec2{70, 70}}); got < 1199.99 || got > 1200.01 {
		t.Errorf("SpawnableArea(30..70) = %v, want 1200", got)
	}
	a := m.AddBlackOutZone(mgl32.Vec2{20, 20}, 40)
	b := m.AddBlackOutZone(mgl32.Vec2{20, 20}, 40)
	if a == b || a == (BlackOutZoneID{}) {
		t.Fatalf("ids %v %v", a, b)
	}
	if err := Validate(m); err != nil {
		t.Fatal(err)
	}
	part := m.SpawnableArea(box100)
	if !(part < full) {
		t.Errorf("blackout did not reduce the spawnable area: %v", part)
	}
	tests := []struct {
		p    mgl32.Vec2
		r    float32
		want bool
	}{
		{mgl32.Vec2{20, 20}, 0, true}, {mgl32.Vec2{70, 20}, 0, false}, {mgl32.Vec2{70, 20}, 11, true},
		{mgl32.Vec2{90, 90}, 1, false},
	}
	for _, tc := range tests {
		if got := m.InBlackOutZone(tc.p, tc.r); got != tc.want {
			t.Errorf("InBlackOutZone(%v, %v) = %v", tc.p, tc.r, got)
		}
	}
	if !m.RemoveBlackOutZone(a) || m.RemoveBlackOutZone(a) {
		t.Fatal("remove twice")
	}
	if err := Validate(m); err != nil {
		t.Fatal(err)
	}
	if got := m.SpawnableArea(box100); got != part {
		t.Errorf("removing one of two equal zones changed the area: %v → %v", part, got)
	}
	m.RemoveBlackOutZone(b)
	if err := Validate(m); err != nil {
		t.Fatal(err)
	}
	if got := m.SpawnableArea(box100); got != full {
		t.Errorf("after removing every zone the area is %v, want %v", got, full)
	}
	c := m.AddBlackOutZone(mgl32.Vec2{50, 50}, 1)
	if c.index != a.index && c.index != b.index || c == a || c == b {
		t.Errorf("slot reuse: %v after %v %v", c, a, b)
	}
	if m.AddBlackOutZone(mgl32.Vec2{1, 1}, -1) != (BlackOutZoneID{}) {
		t.Error("negative radius accepted")
	}
}

func TestContains(t *testing.T) {
	t.Parallel()
	g := Geometry{Bounds: box100, Polygons: []Polygon{rect(Walkable, 0, 0, 100, 100), rect(Obstacle, 40, 40, 60, 60), rect(Hole, 70, 70, 80, 80)}}
	m := mustBuild(t, g)
	tests := []struct {
		p     mgl32.Vec2
		r     float32
		flags Flags
		want  bool
	}{
		{mgl32.Vec2{30, 50}, 9.9, Walk, true},
		{mgl32.Vec2{30, 50}, 10.1, Walk, false},
		{mgl32.Vec2{50, 50}, 0, Walk, false},
		{mgl32.Vec2{50, 50}, 0, Sight, false},
		{mgl32.Vec2{75, 75}, 1, Sight, true},
		{mgl32.Vec2{75, 75}, 1, Walk, false},
		{mgl32.Vec2{5, 5}, 5.1, Walk, false}, // crosses the bounds
		{mgl32.Vec2{5, 5}, 4.9, Walk, true},
		{mgl32.Vec2{25, 25}, 21.3, Walk, false}, // reaches the obstacle corner (40,40), 21.21 away
		{mgl32.Vec2{25, 25}, 21.1, Walk, true},
		{mgl32.Vec2{-1, 5}, 0, Walk, false},
		{mgl32.Vec2{5, 5}, -1, Walk, false},
	}
	for _, tc := range tests {
		if got := m.Contains(tc.p, tc.r, tc.flags); got != tc.want {
			t.Errorf("Contains(%v, %v, %b) = %v", tc.p, tc.r, tc.flags, got)
		}
	}
}

func ExampleMesh_AddBlackOutZone() {
	g := Geometry{Bounds: geom.AABB{Max: mgl32.Vec2{100, 100}},
		Polygons: []Polygon{{Kind: Walkable, Points: []mgl32.Vec2{{0, 0}, {100, 0}, {100, 100}, {0, 100}}}}}
	m, _ := Build(g, nil)
	fmt.Println(m.SpawnableArea(m.Bounds()))
	// The mesh is two triangles; the zone covers the centroid of one of them.
	id := m.AddBlackOutZone(mgl32.Vec2{30, 70}, 10)
	fmt.Println(m.InBlackOutZone(mgl32.Vec2{30, 50}, 11), m.SpawnableArea(m.Bounds()))
	m.RemoveBlackOutZone(id)
	fmt.Println(m.SpawnableArea(m.Bounds()))
	// Output:
	// 10000
	// true 5000
	// 10000
}

// blackedOutArea is the total area of the triangles with the BlackOut flag.
func blackedOutArea(m *Mesh) float64 {
	var sum float64
	for _, tr := range m.tris {
		if tr.Flags&BlackOut != 0 {
			a, b, c := v64(m.verts[tr.V[0]]), v64(m.verts[tr.V[1]]), v64(m.verts[tr.V[2]])
			sum += ((b.x-a.x)*(c.y-a.y) - (b.y-a.y)*(c.x-a.x)) / 2
		}
	}
	return sum
}

// TestZoneArea: a blackout zone added on a circle of Geometry.Zones flags
// triangles whose area is within 1% of the circle's (the polygon Build
// makes of it has its area); without the zone in the geometry the flagged
// area can be far off, which is what the zones are for.
func TestZoneArea(t *testing.T) {
	t.Parallel()
	seed := *seedFlag
	t.Logf("seed %d", seed)
	r := newRand(seed)
	worstWith, worstWithout := 0.0, 0.0
	for mi := range 10 {
		g := obstacleMap(r, 4+r.IntN(8))
		var zs []geom.Circle
		for range 1 + r.IntN(4) {
			rad := 2 + 18*r.Float32()
			c := mgl32.Vec2{rad + (100-2*rad)*r.Float32(), rad + (100-2*rad)*r.Float32()}
			zs = append(zs, geom.Circle{Center: c, Radius: rad})
		}
		plain := mustBuild(t, g)
		g.Zones = zs
		m := mustBuild(t, g)
		for _, z := range zs {
			want := math.Pi * float64(z.Radius) * float64(z.Radius)
			rel := func(m *Mesh) float64 {
				id := m.AddBlackOutZone(z.Center, z.Radius)
				got := blackedOutArea(m)
				m.RemoveBlackOutZone(id)
				return math.Abs(got-want) / want
			}
			with, without := rel(m), rel(plain)
			worstWith, worstWithout = max(worstWith, with), max(worstWithout, without)
			if with > 0.01 {
				t.Errorf("map %d, zone %v: flagged area off by %.2f%% of the circle's", mi, z, 100*with)
			}
		}
	}
	t.Logf("worst flagged area error: %.2f%% with the zones in the geometry, %.1f%% without", 100*worstWith, 100*worstWithout)
}

func TestZoneGeometry(t *testing.T) {
	t.Parallel()
	g := Geometry{Bounds: box100, Polygons: []Polygon{rect(Walkable, 0, 0, 100, 100), rect(Obstacle, 40, 40, 60, 60)}}
	g.Zones = []geom.Circle{
		{Center: mgl32.Vec2{50, 50}, Radius: 15},                   // crosses the obstacle
		{Center: mgl32.Vec2{95, 5}, Radius: 10},                    // clipped to the bounds
		{Center: mgl32.Vec2{50, 50}, Radius: 15},                   // twice
		{Center: mgl32.Vec2{20, 20}, Radius: 1e-4},                 // merges to a point
		{Center: mgl32.Vec2{20, 20}, Radius: -1},                   // ignored
		{Center: mgl32.Vec2{float32(math.NaN()), 20}, Radius: 1},   // ignored
		{Center: mgl32.Vec2{20, 20}, Radius: float32(math.Inf(1))}, // ignored
	}
	m := mustBuild(t, g)
	plain := mustBuild(t, Geometry{Bounds: g.Bounds, Polygons: g.Polygons})
	// Zone edges block nothing: the same walkable area.
	if a, b := m.SpawnableArea(box100), plain.SpawnableArea(box100); math.Abs(float64(a-b)) > 1e-2 {
		t.Errorf("spawnable area %v with zones, %v without", a, b)
	}
	q := NewQuery(m)
	var p Path
	if st := q.FindPath(mgl32.Vec2{10, 50}, mgl32.Vec2{90, 50}, 1, &p); st != PathComplete {
		t.Errorf("path across the zones: %v", st)
	}
}
