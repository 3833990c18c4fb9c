package navi_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/navi"
	"github.com/twinframe/twinframe/shared/world"
)

func flaggedArea(m *navi.Mesh) (area float64, tris int) {
	verts := m.Vertices()
	for _, tr := range m.Triangles() {
		if tr.Flags&navi.BlackOut != 0 {
			a, b, c := verts[tr.V[0]], verts[tr.V[1]], verts[tr.V[2]]
			area += (float64(b[0]-a[0])*float64(c[1]-a[1]) - float64(b[1]-a[1])*float64(c[0]-a[0])) / 2
			tris++
		}
	}
	return area, tris
}

// TestWorldZoneArea: each blackout zone of the default world (which
// world.Geometry passes to Build as a zone) flags triangles covering its
// circle to within 1% of the circle's area.
func TestWorldZoneArea(t *testing.T) {
	t.Parallel()
	w, err := world.LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, rg := range w.Regions {
		g, err := w.Geometry(rg.ID)
		if err != nil {
			t.Fatal(err)
		}
		zs := w.BlackoutZones(rg.ID)
		if len(g.Zones) != len(zs) {
			t.Fatalf("region %s: geometry has %d zones, the world %d blackout zones", rg.Name, len(g.Zones), len(zs))
		}
		m, err := navi.Build(g, nil)
		if err != nil {
			t.Fatal(err)
		}
		g.Zones = nil
		plain, err := navi.Build(g, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := navi.Validate(m); err != nil {
			t.Fatal(err)
		}
		for _, z := range zs {
			n++
			want := math.Pi * float64(z.Radius) * float64(z.Radius)
			id := m.AddBlackOutZone(z.Center, z.Radius)
			got, tris := flaggedArea(m)
			m.RemoveBlackOutZone(id)
			id = plain.AddBlackOutZone(z.Center, z.Radius)
			before, beforeTris := flaggedArea(plain)
			plain.RemoveBlackOutZone(id)
			t.Logf("region %s zone %v r=%v: %.1f m² in %d triangles (without the zone in the geometry: %.1f m² in %d); circle %.1f m²",
				rg.Name, z.Center, z.Radius, got, tris, before, beforeTris, want)
			if math.Abs(got-want) > 0.01*want {
				t.Errorf("region %s zone %v r=%v: flagged %.1f m², circle %.1f m²", rg.Name, z.Center, z.Radius, got, want)
			}
		}
	}
	if n == 0 {
		t.Fatal("the default world has no blackout zones")
	}
}

// TestWorldZonePaths: on the default world's open ground, a straight walk
// out of a blackout zone's centre stays straight with the zone in the
// mesh (a corridor that leaves the zone through a thin triangle beside the
// straight line would bend it at a zone corner), and
// random paths with the zones in the mesh are about as long as without.
func TestWorldZonePaths(t *testing.T) {
	t.Parallel()
	w, err := world.LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	rg := w.Regions[0]
	g, err := w.Geometry(rg.ID)
	if err != nil {
		t.Fatal(err)
	}
	mz, err := navi.Build(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	g.Zones = nil
	m0, err := navi.Build(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	qz, q0 := navi.NewQuery(mz), navi.NewQuery(m0)
	var pz, p0 navi.Path
	start, goal := mgl32.Vec2{20, 160}, mgl32.Vec2{50, 160}
	// Straight: as long as the segment (a corner exactly on it, such as a
	// zone corner the line passes through, changes nothing).
	if st := qz.FindPath(start, goal, 0, &pz); st != navi.PathComplete || pz.Length()-goal.Sub(start).Len() > 1e-4 {
		t.Errorf("region %s: %v→%v: %v %v (length %.4f), want a straight line", rg.Name, start, goal, st, pz.Points, pz.Length())
	}
	rnd := rand.New(rand.NewPCG(42, 42))
	b := m0.Bounds()
	pt := func(r float32) mgl32.Vec2 {
		for {
			p := mgl32.Vec2{b.Min[0] + rnd.Float32()*(b.Max[0]-b.Min[0]), b.Min[1] + rnd.Float32()*(b.Max[1]-b.Min[1])}
			if m0.Contains(p, r, navi.Walk) {
				return p
			}
		}
	}
	for _, r := range []float32{0, 0.5} {
		var lz, l0 float64
		ez, e0 := 0, 0
		for range 256 {
			s, e := pt(r), pt(r)
			if q0.FindPath(s, e, r, &p0) != navi.PathComplete {
				continue
			}
			if st := qz.FindPath(s, e, r, &pz); st != navi.PathComplete {
				t.Errorf("r=%v: %v→%v: status %v with zones, complete without", r, s, e, st)
				continue
			}
			lz += float64(pz.Length())
			l0 += float64(p0.Length())
			ez += pz.Expanded
			e0 += p0.Expanded
		}
		t.Logf("r=%v: total length %.1f with zones, %.1f without; %d and %d triangles expanded", r, lz, l0, ez, e0)
		if lz > l0*1.005 {
			t.Errorf("r=%v: paths with zones %.2f%% longer than without", r, 100*(lz/l0-1))
		}
	}
}
