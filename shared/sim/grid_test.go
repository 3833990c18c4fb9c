package sim

import (
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/twinframe/twinframe/shared/geom"
)

// TestStagedGridMatchesBuild: the grid physics builds from locomote's staging list is
// the grid build makes from the entities (same cells, order, slots, Overlapping list
// and largest radii), in a populated world with blocking, overlapping, uncolliding and
// footprint entities, a dead one and an entity in no region, and each entity finds its
// own slot (or none) by its index.
func TestStagedGridMatchesBuild(t *testing.T) {
	t.Parallel()
	g, err := New(defaultWorld(t), &Options{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	for range 60 {
		must(t, g.Step())
	}
	kinds := map[Collision]int{}
	for _, e := range g.ents {
		kinds[e.collision]++
	}
	if kinds[Blocking] == 0 || kinds[Overlapping] == 0 || kinds[CollideNone] == 0 {
		t.Fatalf("want entities of every collision kind, got %v", kinds)
	}
	g.ents[len(g.ents)/2].dead = true
	g.ents = append(g.ents, &Entity{id: g.nextID, region: 99, radius: 1, collision: Blocking})
	g.nextID++

	g.locomote()
	eg := &g.regions[0].grid
	if !eg.staged {
		t.Fatal("locomote did not stage the grid")
	}
	eg.buildStaged(g.ents)
	got := *eg
	got.start = slices.Clone(eg.start)
	got.items = slices.Clone(eg.items)
	got.slots = slices.Clone(eg.slots)
	got.over = slices.Clone(eg.over)
	for i, e := range g.ents {
		if k := eg.slotOf[i]; (k >= 0 && eg.items[k] != e) || (k < 0 && slices.Contains(eg.items, e)) {
			t.Fatalf("entity %d (index %d): slotOf says %d", e.id, i, k)
		}
		before := e.pos
		e.pos = geom.Add(e.pos, mgl32.Vec2{0.25, 0})
		eg.moved(e, i)
		if k := slices.Index(eg.items, e); k >= 0 && eg.slots[k].pos != e.pos {
			t.Fatalf("entity %d: moved did not update its slot", e.id)
		}
		e.pos = before
		eg.moved(e, i)
	}

	eg.build(g.ents, g.regions[0].id)
	if got.size != eg.size || !slices.Equal(got.start, eg.start) || !slices.Equal(got.items, eg.items) ||
		!slices.Equal(got.slots, eg.slots) || !slices.Equal(got.over, eg.over) || got.maxR != eg.maxR || got.maxB != eg.maxB {
		t.Errorf("staged grid differs from the built one: size %g/%g, %d/%d items, %d/%d overlapping, maxR %g/%g, maxB %g/%g",
			got.size, eg.size, len(got.items), len(eg.items), len(got.over), len(eg.over), got.maxR, eg.maxR, got.maxB, eg.maxB)
	}
	for _, e := range eg.items {
		if e.dead || e.collision == CollideNone || e.footprint || e.region != g.regions[0].id {
			t.Errorf("entity %d (collision %v, footprint %v, dead %v, region %d) is filed", e.id, e.collision, e.footprint, e.dead, e.region)
		}
	}
}
