package replication

import (
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl32"
)

// AOI is the area-of-interest rule, a pure function shared by the server (what to
// replicate) and the client and headless checks (what may be held): an entity
// enters a client's view within Add metres of its avatar and leaves it beyond
// Remove metres (Add < Remove, so an entity on the edge does not flicker in and
// out). The avatar itself and the entities in Always are always in view.
type AOI struct {
	Add, Remove float32
}

// DefaultAOI is the rule the default world is tuned for.
var DefaultAOI = AOI{Add: 40, Remove: 50}

// Candidate is an entity the AOI rule considers: its id and position.
type Candidate struct {
	ID  uint64
	Pos mgl32.Vec2
}

// Valid reports whether the radii are finite, positive and Add <= Remove.
func (a AOI) Valid() bool {
	return a.Add > 0 && a.Add <= a.Remove && a.Remove < math.MaxFloat32
}

// Sees reports whether an entity at p is in view of a client whose avatar is at
// center, given whether it was in view before (the hysteresis).
func (a AOI) Sees(center, p mgl32.Vec2, was bool) bool {
	dx, dy := float64(p[0])-float64(center[0]), float64(p[1])-float64(center[1])
	d2 := dx*dx + dy*dy
	r := float64(a.Add)
	if was {
		r = float64(a.Remove)
	}
	return d2 <= r*r
}

// Update computes the change of a client's view: visible holds the ids in view now
// (ascending), candidates every entity of the region (ascending by id), self the
// client's avatar (always in view). It appends to add the ids that enter and to
// remove those that leave (both ascending; an id in visible that is no longer a
// candidate leaves) and returns them. Order of work for a frame, as docs/ARCHITECTURE.md §3
// says: removes, then adds, then changes.
func (a AOI) Update(center mgl32.Vec2, self uint64, visible []uint64, candidates []Candidate, add, remove []uint64) ([]uint64, []uint64) {
	i := 0
	for _, c := range candidates {
		for i < len(visible) && visible[i] < c.ID {
			remove = append(remove, visible[i]) // gone from the region
			i++
		}
		was := i < len(visible) && visible[i] == c.ID
		if was {
			i++
		}
		now := c.ID == self || a.Sees(center, c.Pos, was)
		switch {
		case now && !was:
			add = append(add, c.ID)
		case was && !now:
			remove = append(remove, c.ID)
		}
	}
	remove = append(remove, visible[i:]...)
	return add, remove
}

// WireSlack is how much farther apart a client's avatar and a remote entity can
// look in its replica than they are on the server: the avatar's position is
// truncated to 1/8 m per coordinate by the wire (≤ 0.18 m), the remote entity is
// within WalkTolerance of the server's, and 0.18 m more is kept to spare. A client
// checking the server's AOI decisions with its replica's positions allows for it.
const WireSlack = 0.36 + WalkTolerance

// Leaks appends to dst the ids of held entities a client must not hold: farther
// than Remove+slack from its avatar at center (self excepted). held must be
// ascending; so is the result. It is the headless run's AOI check; with positions
// received from the server, pass WireSlack.
func (a AOI) Leaks(center mgl32.Vec2, self uint64, held []Candidate, slack float32, dst []uint64) []uint64 {
	wide := AOI{Add: a.Add, Remove: a.Remove + max(slack, 0)}
	for _, c := range held {
		if c.ID != self && !wide.Sees(center, c.Pos, true) {
			dst = append(dst, c.ID)
		}
	}
	return dst
}

// InView returns the ids of the candidates a client with no previous view sees
// (ascending): those within Add of center, and self.
func (a AOI) InView(center mgl32.Vec2, self uint64, candidates []Candidate) []uint64 {
	add, _ := a.Update(center, self, nil, candidates, nil, nil)
	return slices.Clip(add)
}
