package sim

import (
	"math"
	"testing"
)

// TestBenchWorld checks that the tiled bench world is k² copies of the default region:
// the same cells with the same spawnable area (walkable, not blacked out: the mesh
// the game built for each copy matches the original's, up to the props, which a prop
// marker chooses by its id and each copy's markers have new ids), k² times the props
// and the triangles give or take the seams, and a crowd in it keeps the simulation's
// invariants.
func TestBenchWorld(t *testing.T) {
	t.Parallel()
	base, err := New(defaultWorld(t), &Options{NoPopulation: true})
	if err != nil {
		t.Fatal(err)
	}
	const k = 2
	w := benchWorld(t, k)
	r0 := base.Region(0) // the hub, which the bench world tiles
	if got := len(w.Areas); got != k*k*len(r0.areas) {
		t.Fatalf("%d areas, want %d", got, k*k*len(r0.areas))
	}
	g := crowdIn(t, w, benchRegion, 2000, 3)
	r := g.Regions()[0]
	if r.bounds.Max[0] != k*benchTile || r.bounds.Max[1] != k*benchTile {
		t.Fatalf("region bounds %v", r.bounds)
	}
	if len(r.cells) != k*k*len(r0.cells) {
		t.Fatalf("%d cells, want %d", len(r.cells), k*k*len(r0.cells))
	}
	for i := range r.cells {
		c := &r.cells[i]
		orig := &r0.cells[i/(k*k)] // a cell's copies follow one another
		got, _ := r.CellSpawnableArea(c.id)
		want, _ := r0.CellSpawnableArea(orig.id)
		// A van instead of a sedan changes a cell's spawnable area by ≈ 0.3%.
		if math.Abs(float64(got-want)) > 0.01*float64(want) {
			t.Errorf("cell %d (a copy of %d): spawnable area %.2f m², want %.2f", c.id, orig.id, got, want)
		}
	}
	n0 := 0
	for _, e := range base.World().Entities {
		if e.Region == r0.id {
			n0++
		}
	}
	if n := len(g.World().Entities); n != k*k*n0 {
		t.Errorf("%d props, want %d × %d", n, k*k, n0)
	}
	tris, tris0 := len(r.mesh.Triangles()), len(r0.mesh.Triangles())
	if tris < 4*tris0*9/10 || tris > 4*tris0*11/10 {
		t.Errorf("%d triangles, want about 4 × %d", tris, tris0)
	}
	for f := range 40 {
		if err := g.Step(); err != nil {
			t.Fatal(err)
		}
		if err := g.CheckInvariants(); err != nil {
			t.Fatalf("frame %d: %v", f+1, err)
		}
	}
	t.Logf("bench world %d×%d: %d triangles (default %d), %d entities", k, k, tris, tris0, len(g.Entities()))
}
