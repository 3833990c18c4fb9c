package sim

import (
	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/navi"
)

// entGrid buckets a region's colliding entities by cell, rebuilt by counting sort.
// The cell size adapts to the number of entities (the finest size at least, doubled
// while there would be more than gridCellsPerEntity cells per entity), so that a
// sparse region does not pay for clearing and summing a fine grid every build. Which
// cells an entity is filed under never changes a result: queries visit every cell
// their reach touches and break ties by id.
type entGrid struct {
	cells
	bounds navi.AABB
	fine   float32 // finest cell size
	size   float32 // current cell size
	start  []int32
	items  []*Entity
	slots  []slot    // beside items: what the sweeps read, contiguous
	over   []*Entity // the Overlapping entities, in id order: what overlaps() visits
	maxR   float32   // largest radius in the grid
	maxB   float32   // largest radius of a blocking entity
}

// gridCellsPerEntity bounds the entity grid's cells per entity; gridMaxSize bounds its
// cell size.
const (
	gridCellsPerEntity = 8
	gridMaxSize        = 16
)

func (eg *entGrid) init(b navi.AABB, size float32) {
	eg.bounds, eg.fine = b, size
	eg.resize(size)
}

func (eg *entGrid) resize(size float32) {
	eg.size = size
	eg.cells.init(eg.bounds, size)
	if n := int(eg.nx*eg.ny + 2); cap(eg.start) < n {
		eg.start = make([]int32, n)
	}
	eg.start = eg.start[:eg.nx*eg.ny+2]
}

// build fills the grid with the region's live, colliding entities (not footprint props:
// the navmesh is their collision). The cell size follows the number of entities of the
// last build (the results of queries do not depend on it), so that one pass over the
// entities files and counts them.
func (eg *entGrid) build(ents []*Entity, region int32) {
	size := eg.fine
	for size < gridMaxSize {
		c := cells{}
		c.init(eg.bounds, size)
		if int(c.nx)*int(c.ny) <= gridCellsPerEntity*max(len(eg.items), 1) {
			break
		}
		size *= 2
	}
	if size != eg.size {
		eg.resize(size)
	}
	clear(eg.start)
	eg.maxR, eg.maxB = 0, 0
	eg.over = eg.over[:0]
	n := 0
	for _, e := range ents {
		if e.region != region {
			continue // another region's grid files it
		}
		if e.dead || e.collision == CollideNone || e.footprint {
			e.grid, e.slot = -1, -1
			continue
		}
		n++
		x, y := eg.xy(e.pos)
		e.grid = y*eg.nx + x
		eg.start[e.grid+2]++
		// Radii are finite and not negative: a comparison does what max does.
		if e.radius > eg.maxR {
			eg.maxR = e.radius
		}
		if e.collision == Blocking && e.radius > eg.maxB {
			eg.maxB = e.radius
		}
		if e.collision == Overlapping {
			eg.over = append(eg.over, e)
		}
	}
	var acc int32
	sums := eg.start[2:]
	for i, c := range sums {
		acc += c
		sums[i] = acc
	}
	if cap(eg.items) < n {
		eg.items = make([]*Entity, n, n+n/4)
		eg.slots = make([]slot, n, n+n/4)
	}
	eg.items = eg.items[:n]
	eg.slots = eg.slots[:n]
	for _, e := range ents {
		if e.region != region || e.grid < 0 {
			continue
		}
		i := eg.start[e.grid+1]
		eg.items[i] = e
		eg.slots[i] = slot{pos: e.pos, r: e.radius, blocking: e.collision == Blocking, id: e.id}
		e.slot = i
		eg.start[e.grid+1]++
	}
	// start[c] .. start[c+1] is now cell c.
}

// slot is an entity's position, radius and kind as the grid's sweeps read them; a mover
// updates its slot when it moves, so later sweeps of the frame see where it is.
type slot struct {
	pos      mgl32.Vec2
	r        float32
	blocking bool
	id       EntityID
}

// rowBounds returns the index range in items and slots of cells x0..x1 of row y: the
// cells of a row are contiguous.
func (eg *entGrid) rowBounds(y, x0, x1 int32) (int32, int32) {
	c := y * eg.nx
	return eg.start[c+x0], eg.start[c+x1+1]
}

// row returns the entities of cells x0..x1 of row y.
func (eg *entGrid) row(y, x0, x1 int32) []*Entity {
	lo, hi := eg.rowBounds(y, x0, x1)
	return eg.items[lo:hi]
}

// moved records e's new position in its slot.
func (eg *entGrid) moved(e *Entity) {
	if e.slot >= 0 && int(e.slot) < len(eg.slots) && eg.items[e.slot] == e {
		eg.slots[e.slot].pos = e.pos
	}
}
