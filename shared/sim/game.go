package sim

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/navi"
	"github.com/twinframe/twinframe/shared/sim/schedule"
	"github.com/twinframe/twinframe/shared/world"

	"github.com/twinframe/twinframe/shared/geom"
)

// Frame timing: the simulation runs at 20 frames per second; game time is frame × 50 ms.
const (
	FrameRate   = 20
	FrameMillis = 1000 / FrameRate
	// FrameSeconds is the duration of one frame, by which speeds are multiplied.
	FrameSeconds float32 = 0.05
)

// Limits on what commands accept. Speeds above MaxSpeed are clamped to it.
const (
	MaxSpeed float32 = world.MaxSpeed // metres per second (5 m per frame)
	// StuckFrames: a move blocked (less than a quarter of its step) this many frames in
	// a row gives up, so that no entity pushes against a wall for ever.
	StuckFrames = 20
	// PopulationPeriod is the number of frames between population top-ups.
	PopulationPeriod = 20
	walkFlags        = navi.Walk
)

// Errors. Commands report them; nothing in a Step panics on bad input.
var (
	ErrNoEntity      = errors.New("sim: no such entity")
	ErrNoRegion      = errors.New("sim: no such region")
	ErrNoPrototype   = errors.New("sim: no such prototype")
	ErrNotFinite     = errors.New("sim: coordinate or value is NaN or infinite")
	ErrBadSpeed      = errors.New("sim: speed is negative or not finite")
	ErrCannotMove    = errors.New("sim: entity cannot move (static, projectile or zero speed)")
	ErrUnreachable   = errors.New("sim: no path from the entity's position")
	ErrBadCommand    = errors.New("sim: unknown command")
	ErrZeroDirection = errors.New("sim: target is the entity's own position")
	ErrSelf          = errors.New("sim: an entity cannot follow itself")
	ErrNoSpace       = errors.New("sim: no free walkable spot")
	ErrCorrupt       = errors.New("sim: snapshot is inconsistent")
	ErrWorld         = errors.New("sim: snapshot does not match the world")
)

// Options configure a Game. The zero value is usable: a game of region 0.
type Options struct {
	// Region is the id of the one region the game simulates. A world of several
	// regions runs as one game per region (each with its own state hash, stepped in
	// parallel by the server); entities move between them only by Emigrate and
	// Immigrate. The zero value is region 0, the default world's hub.
	Region int32
	// Seed seeds the game's PRNG (PCG). Every random choice of the simulation draws from
	// it, so a seed and the inputs determine the game.
	Seed uint64
	// NoPopulation turns population top-up off (tests and benchmarks that place their
	// own entities).
	NoPopulation bool
	// MaxEventsPerFrame caps the scheduler's events per frame (default 1<<16).
	MaxEventsPerFrame int
}

// Game is one simulation: a region of a world (Options.Region), its entities, a seeded
// PRNG, the frame counter and the scheduler. It is not safe for concurrent use; the
// games of different regions share nothing but the world, which none changes, so they
// may step in parallel.
type Game struct {
	world   *world.World
	opt     Options
	regions []*Region // the one region of Options.Region
	ents    []*Entity // sorted by id
	nextID  EntityID
	// firstID and lastID bound the region's block of ids (world.FirstEntityID): the
	// game hands out ids from it, so the games of a world never collide. Immigrants
	// keep the ids of the region they were created in.
	firstID, lastID EntityID
	frame           uint64
	pcg             *rand.PCG
	rng             *rand.Rand
	sched           *schedule.Scheduler
	wakes           [wakeSlots][]EntityID
	inStep          bool

	inputs     []Input
	rejected   []Rejected
	events     []Event
	results    []PowerResult
	actions    []action
	destroys   int // entities marked dead this step
	departures []Departure
	rules      []Rule

	pairs, pairsNext []pair // overlapping pairs, sorted, at the end of the last frame
	maxMotion        float32
	touched          float32    // locomote's sum of the path nodes it loaded ahead (touchPath); unused
	near             []int32    // physics scratch: grid slots gathered by gatherNear
	nearLo, nearHi   mgl32.Vec2 // the box they were gathered for
	due              []EntityID
	owned            []*Entity // the entities with an owner, listed by physics for updatePortals
	hashBuf          *archive.Archive
}

const wakeSlots = 256

// New builds a game of the region opt.Region of w: its navigation mesh (with the
// world's blackout zones), the world's hotspot rules on its hotspots (in table order,
// before any added with AddRule), and the initial entities of w's state in the region
// (its props), with ids continuing after theirs in the region's block of ids
// (world.FirstEntityID). w must stay unchanged while the game uses it.
func New(w *world.World, opt *Options) (*Game, error) {
	g := &Game{world: w}
	if opt != nil {
		g.opt = *opt
	}
	g.pcg = rand.NewPCG(g.opt.Seed, 0x7477696e6672616d) // "twinfram"
	g.rng = rand.New(g.pcg)
	g.sched = schedule.New(1, g.opt.MaxEventsPerFrame)
	var wr *world.Region
	for i := range w.Regions {
		if w.Regions[i].ID == g.opt.Region {
			wr = &w.Regions[i]
		}
	}
	if wr == nil {
		return nil, fmt.Errorf("%w: %d", ErrNoRegion, g.opt.Region)
	}
	g.firstID, g.lastID = IDRange(wr.ID)
	g.nextID = g.firstID
	r, err := newRegion(w, wr)
	if err != nil {
		return nil, fmt.Errorf("sim: region %q: %w", wr.Name, err)
	}
	g.regions = append(g.regions, r)
	for _, wr := range w.Rules {
		if _, h := g.hotspot(wr.Hotspot); h == nil {
			continue // a rule of another region's hotspot
		}
		if err := g.AddRule(ruleOf(wr)); err != nil {
			return nil, fmt.Errorf("sim: hotspot-rule %d: %w", wr.ID, err)
		}
	}
	for i := range w.Entities {
		we := &w.Entities[i]
		if we.Region != r.id {
			continue
		}
		pr := g.proto(we.Prototype)
		if pr == nil {
			return nil, fmt.Errorf("%w: entity %d has prototype %d", ErrNoPrototype, we.ID, we.Prototype)
		}
		e := g.fromProto(pr, we.Region, we.Pos, we.Yaw)
		e.id = EntityID(we.ID)
		e.owner, e.seed = we.Owner, we.Seed
		if e.id < g.nextID || e.id > g.lastID {
			return nil, fmt.Errorf("%w: world entity %d not increasing in region %d's ids %d..%d", ErrCorrupt, we.ID, r.id, g.firstID, g.lastID)
		}
		g.ents = append(g.ents, e)
		g.nextID = e.id + 1
	}
	return g, nil
}

// RegionSeed is the seed of region id's game in a world of several regions played
// with seed: the seed itself for region 0 (so a world of one region plays as it
// did before regions), mixed with the id for the others, so that each region
// draws its own random sequence. Every program that runs a world's regions (the
// server, the scripted test server, the viewer's sandbox) seeds them with it, so
// that they play the same games.
func RegionSeed(seed uint64, id int32) uint64 {
	if id == 0 {
		return seed
	}
	return seed ^ (uint64(uint32(id)) * 0x9e3779b97f4a7c15)
}

// IDRange returns the block of entity ids the game of region hands out
// (world.FirstEntityID to the last before the next region's block).
func IDRange(region int32) (first, last EntityID) {
	return EntityID(world.FirstEntityID(region)), EntityID(world.FirstEntityID(region+1) - 1)
}

// Home returns the region the game simulates (Options.Region).
func (g *Game) Home() *Region { return g.regions[0] }

// World returns the world the game was built from.
func (g *Game) World() *world.World { return g.world }

// Frame returns the number of the last frame stepped (0 before the first Step).
// Game time is Frame × FrameMillis milliseconds.
func (g *Game) Frame() uint64 { return g.frame }

// Rand returns the game's PRNG. Drawing from it changes the game's state (and hash).
func (g *Game) Rand() *rand.Rand { return g.rng }

// Regions returns the game's regions: the one it simulates (Home). The slice must
// not be modified.
func (g *Game) Regions() []*Region { return g.regions }

// Region returns the region with id, or nil.
func (g *Game) Region(id int32) *Region {
	for _, r := range g.regions {
		if r.id == id {
			return r
		}
	}
	return nil
}

func (g *Game) regionOf(e *Entity) *Region { return g.Region(e.region) }

// Entities returns the live entities in id order. The slice is the game's own: it must
// not be modified, and it changes with the next Step or command.
func (g *Game) Entities() []*Entity { return g.ents }

// Entity returns the live entity with id, or nil.
func (g *Game) Entity(id EntityID) *Entity {
	i, ok := slices.BinarySearchFunc(g.ents, id, func(e *Entity, id EntityID) int { return cmp.Compare(e.id, id) })
	if !ok || g.ents[i].dead {
		return nil
	}
	return g.ents[i]
}

func (g *Game) live(id EntityID) (*Entity, error) {
	if e := g.Entity(id); e != nil {
		return e, nil
	}
	return nil, fmt.Errorf("%w: %d", ErrNoEntity, id)
}

func (g *Game) proto(id int32) *world.Prototype {
	for i := range g.world.Prototypes {
		if g.world.Prototypes[i].ID == id {
			return &g.world.Prototypes[i]
		}
	}
	return nil
}

func (g *Game) fromProto(pr *world.Prototype, region int32, pos mgl32.Vec2, yaw float32) *Entity {
	e := &Entity{
		proto: pr.ID, region: region, pos: pos, yaw: yaw, radius: pr.Radius,
		speed: min(pr.Speed, MaxSpeed), collision: Collision(pr.Collision), flags: pr.Flags,
		owner: -1, population: -1,
	}
	if e.speed > 0 && pr.Flags&world.FlagStatic == 0 {
		e.loco.path = make([]mgl32.Vec2, 0, 8) // most paths fit: no growth while walking
		e.loco.arcs = make([]arc, 0, 8)
	}
	e.footprint = pr.Flags&world.FlagStatic != 0 && pr.Collision == world.Blocking && pr.Footprint >= 0
	return e
}

// insert gives e the next id and adds it.
func (g *Game) insert(e *Entity) {
	e.id = g.nextID
	g.nextID++
	e.created, e.changed, e.locoFrame = g.frame, g.frame, g.frame
	g.ents = append(g.ents, e)
}

// Spawn creates an entity of prototype proto in region at pos facing yaw. A position
// where the entity does not fit (outside walkable ground, or on a blocking entity) is
// moved to the nearest free spot within 8 m (ErrNoSpace when there is none); static
// prototypes are placed as given, but a blocking one not on a blocking entity, and it
// collides as a disc of its radius (only the world's initial props are cut out of the
// navmesh). Wandering NPCs start wandering within a second.
func (g *Game) Spawn(proto, region int32, pos mgl32.Vec2, yaw float32) (EntityID, error) {
	pr := g.proto(proto)
	if pr == nil {
		return 0, fmt.Errorf("%w: %d", ErrNoPrototype, proto)
	}
	r := g.Region(region)
	if r == nil {
		return 0, fmt.Errorf("%w: %d", ErrNoRegion, region)
	}
	if !geom.Finite2(pos) || !geom.Finite(yaw) {
		return 0, ErrNotFinite
	}
	e := g.fromProto(pr, region, pos, yaw)
	// The navmesh was built before this prop existed: it collides as a disc.
	e.footprint = false
	if pr.Flags&world.FlagStatic == 0 {
		p, ok := g.findSpot(r, pos, e.radius, e.collision, 8)
		if !ok {
			return 0, fmt.Errorf("%w near %v", ErrNoSpace, pos)
		}
		e.pos = p
	} else if e.collision == Blocking {
		r.grid.build(g.ents, r.id)
		if g.blocked(r, pos, e.radius, 0) {
			return 0, fmt.Errorf("%w: a blocking entity is at %v", ErrNoSpace, pos)
		}
	}
	e.seed = g.rng.Uint32()
	g.insert(e)
	if e.flags&world.FlagWander != 0 {
		g.setWake(e, g.frame+1+uint64(g.rng.IntN(FrameRate)))
	}
	return e.id, nil
}

// Destroy removes an entity. During a Step (from a hotspot action) the removal is
// deferred to the end of the frame; otherwise it is immediate.
func (g *Game) Destroy(id EntityID) error {
	e, err := g.live(id)
	if err != nil {
		return err
	}
	e.dead = true
	g.destroys++
	if !g.inStep {
		g.compact()
	}
	return nil
}

func (g *Game) compact() {
	if g.destroys == 0 {
		return
	}
	g.ents = slices.DeleteFunc(g.ents, func(e *Entity) bool { return e.dead })
	g.destroys = 0
}

// Step runs one frame, in the order of docs/ARCHITECTURE.md §3: queued inputs (Enqueue), scheduled
// events and wander decisions, locomotion, physics with its events, then deferred work
// (hotspot actions, destroys, population top-up). Events, PowerResults and Rejected
// describe the frame afterwards. Step returns an error only when the scheduler's cascade
// cap stopped a frame's events; the frame still completes.
func (g *Game) Step() error {
	g.frame++
	f := g.frame
	g.inStep = true
	defer func() { g.inStep = false }()
	g.events = g.events[:0]
	g.results = g.results[:0]
	g.rejected = g.rejected[:0]

	// 1. Inputs, in the order they were queued.
	for i := range g.inputs {
		if err := g.apply(&g.inputs[i]); err != nil {
			g.rejected = append(g.rejected, Rejected{Input: g.inputs[i], Err: err, Index: i})
		}
	}
	g.inputs = g.inputs[:0]

	// 2. Scheduled events, then wander decisions due now, in id order.
	err := g.sched.FireDue(f)
	g.fireWakes(f)

	// 3. Locomotion.
	g.locomote()

	// 4. Physics, committing each move.
	g.physicsResolveEntities()
	g.updateHotspots()
	g.updatePortals()

	// 5. Deferred work.
	g.runActions()
	g.compact()
	if !g.opt.NoPopulation && (f-1)%PopulationPeriod == 0 {
		g.topUp()
	}
	return err
}

// Schedule runs fn at the start of frame at (step 2 of the frame). Scheduled functions
// are not part of snapshots: use them for scripts and tests, not for simulation state.
func (g *Game) Schedule(at uint64, fn schedule.Func) schedule.Handle { return g.sched.At(at, fn) }

func (g *Game) setWake(e *Entity, at uint64) {
	if at <= g.frame {
		at = g.frame + 1
	}
	at = min(at, g.frame+wakeSlots-1)
	e.wake = at
	s := &g.wakes[at%wakeSlots]
	*s = append(*s, e.id)
}

func (g *Game) fireWakes(f uint64) {
	s := &g.wakes[f%wakeSlots]
	g.due = append(g.due[:0], *s...)
	*s = (*s)[:0]
	slices.Sort(g.due)
	for i, id := range g.due {
		if i > 0 && g.due[i-1] == id {
			continue
		}
		e := g.Entity(id)
		if e == nil || e.wake != f {
			continue
		}
		e.wake = 0
		g.wander(e)
	}
}

// rebuildWakes refills the wake wheel from the entities (after unpacking a snapshot).
func (g *Game) rebuildWakes() {
	for i := range g.wakes {
		g.wakes[i] = g.wakes[i][:0]
	}
	for _, e := range g.ents {
		if e.wake != 0 {
			s := &g.wakes[e.wake%wakeSlots]
			*s = append(*s, e.id)
		}
	}
}

// AppendChanged appends to dst the ids of the entities whose replicated state changed
// in frame (ChangedFrame() == frame), in id order, and returns the extended slice. After
// a Step, AppendChanged(buf[:0], g.Frame()) lists the entities a server sends
// locomotion updates for.
func (g *Game) AppendChanged(dst []EntityID, frame uint64) []EntityID {
	for _, e := range g.ents {
		if e.changed == frame && !e.dead {
			dst = append(dst, e.id)
		}
	}
	return dst
}
