package sim

import (
	"errors"
	"testing"

	"github.com/twinframe/twinframe/shared/world"
)

// TestOneGamePerRegion builds a game of each region of the default world: each holds
// its region only, with the region's props, and hands out ids from the region's own
// block, so that the games of a world never hand out the same id.
func TestOneGamePerRegion(t *testing.T) {
	t.Parallel()
	w := defaultWorld(t)
	if len(w.Regions) < 3 {
		t.Fatalf("%d regions", len(w.Regions))
	}
	seen := map[EntityID]int32{}
	for _, wr := range w.Regions {
		g, err := New(w, &Options{Seed: 1, Region: wr.ID})
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Regions()) != 1 || g.Home().ID() != wr.ID || g.Region(wr.ID) != g.Home() {
			t.Fatalf("region %s: game of %d regions, home %d", wr.Name, len(g.Regions()), g.Home().ID())
		}
		props := 0
		for _, we := range w.Entities {
			if we.Region == wr.ID {
				props++
			}
		}
		if len(g.Entities()) != props || props == 0 {
			t.Errorf("region %s: %d entities, %d props", wr.Name, len(g.Entities()), props)
		}
		run(t, g, 2*PopulationPeriod) // populations top up: new ids
		first, last := IDRange(wr.ID)
		for _, e := range g.Entities() {
			if e.Region() != wr.ID || e.ID() < first || e.ID() > last {
				t.Fatalf("region %s: entity %d in region %d, ids %d..%d", wr.Name, e.ID(), e.Region(), first, last)
			}
			if r, dup := seen[e.ID()]; dup {
				t.Fatalf("id %d in regions %d and %d", e.ID(), r, wr.ID)
			}
			seen[e.ID()] = wr.ID
		}
		if err := g.CheckInvariants(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := New(w, &Options{Region: 9}); !errors.Is(err, ErrNoRegion) {
		t.Errorf("region 9: %v, want ErrNoRegion", err)
	}
}

// TestIDRange: the blocks of consecutive regions touch and do not overlap, region 0's
// starts at 1 (ids as small as ever in the hub), and every id is exact in a
// JavaScript number.
func TestIDRange(t *testing.T) {
	t.Parallel()
	prev := EntityID(0)
	for r := int32(0); r < 256; r++ {
		first, last := IDRange(r)
		if first != prev+1 || last < first || EntityID(world.FirstEntityID(r)) != first {
			t.Fatalf("region %d: ids %d..%d after %d", r, first, last, prev)
		}
		prev = last
	}
	if first, _ := IDRange(0); first != 1 {
		t.Errorf("region 0 starts at %d", first)
	}
	if prev >= 1<<53 {
		t.Errorf("last id %d beyond 2^53", prev)
	}
}
