package sim

import (
	"github.com/go-gl/mathgl/mgl32"

	"github.com/twinframe/twinframe/shared/geom"
)

// entGrid buckets a region's colliding entities by cell, rebuilt by counting sort.
// The cell size adapts to the number of entities (the finest size at least, doubled
// while there would be more than gridCellsPerEntity cells per entity), so that a
// sparse region does not pay for clearing and summing a fine grid every build. Which
// cells an entity is filed under never changes a result: queries visit every cell
// their reach touches and break ties by id.
//
// A build reads a staging list: the region's filed entities, in id order, as 32-byte
// records (slot, index in the game's entity list, cell). In a step, locomote stages
// every entity on its pass over them (nothing moves between locomotion and physics),
// so that the build streams the records instead of visiting 10k entities again, twice
// (at 10k they do not fit in the cache: every visit missed), and writes nothing into
// them: a mover finds its slot by its index in the entity list (slotOf).
type entGrid struct {
	cells
	bounds geom.AABB
	fine   float32 // finest cell size
	size   float32 // current cell size
	start  []int32
	items  []*Entity
	slots  []slot    // beside items: what the sweeps read, contiguous
	over   []*Entity // the Overlapping entities, in id order: what overlaps() visits
	maxR   float32   // largest radius in the grid
	maxB   float32   // largest radius of a blocking entity
	stage  []staged  // the next build's entities
	staged bool      // stage holds the entities as they are now (locomote filled it)
	// slotOf maps an index in the entity list of the last build to the entity's slot,
	// or -1 when the grid does not file it.
	slotOf []int32
}

// staged is an entity as the grid build reads it.
type staged struct {
	slot
	cell int32 // its cell, set by the build (in the grid of the size beginStage chose)
	ent  int32 // index in the game's entity list
}

// gridCellsPerEntity bounds the entity grid's cells per entity; gridMaxSize bounds its
// cell size.
const (
	gridCellsPerEntity = 8
	gridMaxSize        = 16
)

func (eg *entGrid) init(b geom.AABB, size float32) {
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
// the navmesh is their collision) of ents, the game's entity list.
func (eg *entGrid) build(ents []*Entity, region int32) {
	eg.beginStage()
	for i, e := range ents {
		if e.region == region { // else another region's grid files it
			eg.add(e, i)
		}
	}
	eg.buildStaged(ents)
}

// beginStage empties the staging list and sets the cell size for the next build: it
// follows the number of entities of the last build (the results of queries do not
// depend on it).
func (eg *entGrid) beginStage() {
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
	eg.stage = eg.stage[:0]
	eg.staged = false
}

// add stages e, the entity at index i of the entity list, if the grid files it.
func (eg *entGrid) add(e *Entity, i int) {
	if e.dead || e.collision == CollideNone || e.footprint {
		return
	}
	eg.stage = append(eg.stage, staged{slot: slot{pos: e.pos, r: e.radius, blocking: e.collision == Blocking, id: e.id}, ent: int32(i)})
}

// buildStaged fills the grid from the staging list by counting sort: entities of a
// cell in id order. ents is the entity list the records index.
func (eg *entGrid) buildStaged(ents []*Entity) {
	eg.staged = false
	clear(eg.start)
	eg.maxR, eg.maxB = 0, 0
	eg.over = eg.over[:0]
	for k := range eg.stage {
		s := &eg.stage[k]
		x, y := eg.xy(s.pos)
		s.cell = y*eg.nx + x
		eg.start[s.cell+2]++
		// Radii are finite and not negative: a comparison does what max does.
		if s.r > eg.maxR {
			eg.maxR = s.r
		}
		if !s.blocking {
			eg.over = append(eg.over, ents[s.ent]) // filed and not blocking: Overlapping
		} else if s.r > eg.maxB {
			eg.maxB = s.r
		}
	}
	var acc int32
	sums := eg.start[2:]
	for i, c := range sums {
		acc += c
		sums[i] = acc
	}
	n := len(eg.stage)
	if cap(eg.items) < n {
		eg.items = make([]*Entity, n, n+n/4)
		eg.slots = make([]slot, n, n+n/4)
	}
	eg.items = eg.items[:n]
	eg.slots = eg.slots[:n]
	if cap(eg.slotOf) < len(ents) {
		eg.slotOf = make([]int32, len(ents), len(ents)+len(ents)/4)
	}
	eg.slotOf = eg.slotOf[:len(ents)]
	for i := range eg.slotOf {
		eg.slotOf[i] = -1 // not filed, unless placed below
	}
	for k := range eg.stage {
		s := &eg.stage[k]
		i := eg.start[s.cell+1]
		eg.items[i] = ents[s.ent]
		eg.slots[i] = s.slot
		eg.slotOf[s.ent] = i
		eg.start[s.cell+1]++
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

// moved records the new position of e, at index i of the entity list of the last
// build (the list has not changed since), in its slot. It does not read items: at
// 10k entities that is a cache miss per mover.
func (eg *entGrid) moved(e *Entity, i int) {
	if k := eg.slotOf[i]; k >= 0 {
		eg.slots[k].pos = e.pos
	}
}
