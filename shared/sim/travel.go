package sim

import (
	"errors"
	"fmt"
	"slices"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/world"
)

// Travel between regions (docs/ARCHITECTURE.md §4, archives): each region is its own
// game, and an entity moves between games only by Emigrate (pack in Migration mode,
// leave the source game) and Immigrate (unpack into the target game at an arrival
// marker), so the server in one process and servers in several share the same
// handoff; only the transport of the bytes differs. A game reports the player
// avatars that entered a portal (Departures) but moves nobody itself: the caller
// decides whether, and when, to hand them off.

// ErrInTransit is returned for an entity that is already leaving the game (Emigrate
// during a Step) when it is emigrated again or its id immigrates.
var ErrInTransit = errors.New("sim: entity is mid-handoff")

// arrivalRoom is how far from its arrival marker Immigrate looks for a free spot.
const arrivalRoom = 8

// Departure reports that a player's avatar (an entity of a FlagPlayer prototype with an
// owner) entered a portal this frame: its centre is inside Transition's disc or
// polygon now and was not at the end of the last frame. It is reported once per entry.
type Departure struct {
	Entity     EntityID
	Transition int32 // the world's transition id
	Region     int32 // the region it leads to
	Marker     int32 // the arrival marker there
}

// portal is a transition of the region with the avatars inside it.
type portal struct {
	t      world.Transition
	ring   []mgl32.Vec2 // the polygon of a polygon portal; nil for a disc
	inside []EntityID   // avatars whose centre is inside, sorted, at the end of the last frame
	next   []EntityID   // scratch
}

// newPortals returns the portals of the world's transitions in the areas of r.
func newPortals(w *world.World, r *Region) []portal {
	var ps []portal
	for _, t := range w.Transitions {
		if r.area(t.Area) != nil {
			ps = append(ps, portal{t: t, ring: w.PortalRing(&t)})
		}
	}
	return ps
}

// Departures returns the avatars that entered a portal in the last Step, in portal
// (transition table) order, then id order. The slice is the game's own and changes
// with the next Step.
func (g *Game) Departures() []Departure { return g.departures }

// updatePortals finds the owned player avatars inside each portal and reports those
// that were not inside at the end of the last frame. It visits the owned entities the
// physics pass listed (g.owned, in id order), not every entity once per portal: at 10k
// NPCs those passes read a cache line of every entity that no other pass reads.
func (g *Game) updatePortals() {
	g.departures = g.departures[:0]
	for _, r := range g.regions {
		for pi := range r.portals {
			p := &r.portals[pi]
			p.next = p.next[:0]
			for _, e := range g.owned {
				if e.dead || e.flags&world.FlagPlayer == 0 || e.owner < 0 || !world.InPortal(&p.t, p.ring, e.pos, 0) {
					continue
				}
				p.next = append(p.next, e.id)
				if _, was := slices.BinarySearch(p.inside, e.id); !was {
					g.departures = append(g.departures, Departure{Entity: e.id, Transition: p.t.ID, Region: p.t.Region, Marker: p.t.Marker})
				}
			}
			p.inside, p.next = p.next, p.inside
		}
	}
}

// Emigrate packs the entity in a Migration archive (every field exactly,
// (*Entity).Serialize) and removes it from the game: at once between frames, at the
// end of the frame during a Step. The bytes are for Immigrate into the game of the
// target region. A projectile does not travel (ErrCannotMove).
func (g *Game) Emigrate(id EntityID) ([]byte, error) {
	e, err := g.live(id)
	if err != nil {
		return nil, err
	}
	if e.projectile() || e.power.power != 0 {
		return nil, fmt.Errorf("%w: a projectile does not travel", ErrCannotMove)
	}
	p := archive.NewPacker(archive.Migration, archive.AllChannels)
	p.TransferObject(e)
	if err := p.Err(); err != nil {
		return nil, err
	}
	if err := g.Destroy(id); err != nil {
		return nil, err
	}
	return p.Bytes(), nil
}

// IDEpoch is how far SkipIDs moves a game's next id: far more ids than a region
// hands out between two saves of its state.
const IDEpoch EntityID = 1 << 24

// SkipIDs moves the next id the game hands out IDEpoch further. A game that
// continues another run of its region from that run's save (a region taken over
// by another server) calls it before it steps: the other run may have handed out
// ids after the save to entities that then left for other regions, keeping their
// ids; those ids must not be handed out again, and Immigrate must take such an
// entity back (it takes an id of the game's own block only below the next id).
func (g *Game) SkipIDs() error {
	if g.lastID-g.nextID < IDEpoch {
		return fmt.Errorf("sim: region %d's entity ids are used up (next %d, last %d)", g.Home().id, g.nextID, g.lastID)
	}
	g.nextID += IDEpoch
	return nil
}

// Immigrate unpacks an entity packed by Emigrate (in another game) into this game at
// marker, a marker of the game's region (normally the arrival marker of the
// Departure). The entity keeps its id, prototype, owner, seed and every other saved
// field, except what names its place: its region becomes the game's, its position
// the marker's (or, when another entity stands there, the nearest free spot within
// arrivalRoom), its move stops (a path of another region means nothing here; it is
// Idle, with no follow target), and ChangedFrame and CommandFrame become this frame,
// so that replication sends it. Errors, with nothing changed: bad bytes (archive
// errors, ErrCorrupt), a marker not in the region (ErrNoRegion), no free spot near
// it (ErrNoSpace), an id the game already has (ErrInTransit while it is still
// leaving, ErrCorrupt otherwise), an unknown prototype, a projectile.
func (g *Game) Immigrate(b []byte, marker int32) (EntityID, error) {
	pos, ok := g.marker(marker)
	if !ok {
		return 0, fmt.Errorf("%w: marker %d is not in region %d", ErrNoRegion, marker, g.Home().id)
	}
	u, err := archive.NewUnpacker(archive.Migration, b)
	if err != nil {
		return 0, err
	}
	u.SetLimits(archive.Limits{MaxCount: 1 << 16})
	e := &Entity{}
	u.TransferObject(e)
	if err := u.Done(); err != nil {
		return 0, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	switch {
	case e.power.power != 0 || e.proto == ProtoProjectile:
		return 0, fmt.Errorf("%w: a projectile does not travel", ErrCannotMove)
	case g.proto(e.proto) == nil:
		return 0, fmt.Errorf("%w: %d", ErrNoPrototype, e.proto)
	case !g.validID(e.id):
		return 0, fmt.Errorf("%w: id %d of this region's block was never handed out", ErrCorrupt, e.id)
	}
	i, found := slices.BinarySearchFunc(g.ents, e.id, func(x *Entity, id EntityID) int {
		switch {
		case x.id < id:
			return -1
		case x.id > id:
			return 1
		}
		return 0
	})
	if found {
		if g.ents[i].dead {
			return 0, fmt.Errorf("%w: %d", ErrInTransit, e.id)
		}
		return 0, fmt.Errorf("%w: id %d already in the game", ErrCorrupt, e.id)
	}
	// Another traveller may still stand on the marker: arrive on the nearest free
	// spot instead of inside it, as Restore does (blocking bodies on top of each other
	// have no direction to be pushed apart in).
	if pos, ok = g.findSpot(g.Home(), pos, e.radius, e.collision, arrivalRoom); !ok {
		return 0, fmt.Errorf("%w near marker %d", ErrNoSpace, marker)
	}
	e.region, e.pos = g.Home().id, pos
	e.loco = locomotor{mode: Idle, path: e.loco.path[:0], arcs: e.loco.arcs[:0]}
	e.follow = follow{}
	e.changed, e.locoFrame = g.frame, g.frame
	e.wake = 0
	// The fire cooldown counts in the source region's frames, which another node's
	// region does not share (each counts its own): keep at most a full cooldown.
	e.nextFire = min(e.nextFire, g.frame+1+g.world.FireCooldown(PowerBolt))
	g.ents = slices.Insert(g.ents, i, e)
	if e.flags&world.FlagWander != 0 && e.owner < 0 {
		g.setWake(e, g.frame+1+uint64(g.rng.IntN(FrameRate)))
	}
	return e.id, nil
}

// marker returns the position of a marker in the game's region.
// MarkerPos returns the position of marker id when it is a marker of the game's
// region: where Immigrate puts an entity.
func (g *Game) MarkerPos(id int32) (mgl32.Vec2, bool) { return g.marker(id) }

func (g *Game) marker(id int32) (mgl32.Vec2, bool) {
	for _, m := range g.world.Markers {
		if m.ID == id && g.Home().area(m.Area) != nil {
			return m.Pos, true
		}
	}
	return mgl32.Vec2{}, false
}
