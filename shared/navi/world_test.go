package navi_test

import (
	"math"
	"testing"

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
