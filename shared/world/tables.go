package world

import (
	"github.com/go-gl/mathgl/mgl32"

	"github.com/twinframe/twinframe/shared/xdump"
)

// Table uids. They are part of the format a client sees (the key of `xdump table`),
// so they are chosen here once and never renumbered; new tables take new numbers.
const (
	UIDPolygonKind = 10 // symbols: PolygonKind
	UIDMarkerKind  = 11 // symbols: MarkerKind
	UIDCollision   = 12 // symbols: Collision
	UIDProtoFlags  = 13 // symbol set: ProtoFlags
	UIDEntityState = 14 // symbol set: StateFlags
	UIDTrigger     = 15 // symbols: Trigger
	UIDAction      = 16 // symbols: Action

	UIDRegion      = 20
	UIDCell        = 21
	UIDArea        = 22
	UIDPolygon     = 23
	UIDVertex      = 24
	UIDMarker      = 25
	UIDPrototype   = 26
	UIDPropSet     = 27
	UIDPopulation  = 28
	UIDHotspotRule = 29
	UIDPower       = 30
	UIDTransition  = 31

	UIDEntity = 40
	UIDLost   = 41
)

// PolygonKind says what a configured polygon is.
type PolygonKind int32

// Polygon kinds (symbol table polygon-kind).
const (
	Walkable  PolygonKind = 1 // walkable ground of an area
	Obstacle  PolygonKind = 2 // a solid wall or building in an area
	Hole      PolygonKind = 3 // open space nobody walks on (a pit, water)
	Footprint PolygonKind = 4 // a prop's outline around its origin; belongs to no area
	Portal    PolygonKind = 5 // the shape of a portal (Transition) in an area; not in the navmesh
)

// MarkerKind says what a marker marks.
type MarkerKind int32

// Marker kinds (symbol table marker-kind).
const (
	Spawn    MarkerKind = 1 // where players appear
	Prop     MarkerKind = 2 // where a prop from a prop set stands
	Blackout MarkerKind = 3 // a circle in which nothing spawns
	Hotspot  MarkerKind = 4 // a place wandering NPCs walk to
	Arrival  MarkerKind = 5 // where a traveller through a portal (Transition) appears
)

// Collision is how an entity's prototype takes part in physics.
type Collision int32

// Collision kinds (symbol table collision).
const (
	CollideNone Collision = 0 // passes through everything, no events
	Blocking    Collision = 1 // stops other blocking entities; OnCollide
	Overlapping Collision = 2 // passes through, reporting OnOverlapBegin/End
)

// ProtoFlags is a prototype's flag set (symbol table proto-flags).
type ProtoFlags uint32

// Prototype flags.
const (
	FlagPlayer ProtoFlags = 1 << iota // an avatar a session controls
	FlagNPC                           // a non-player character
	FlagProp                          // scenery placed by prop markers
	FlagStatic                        // never moves; a blocking static prop with a footprint is cut out of the navmesh
	FlagWander                        // walks between hotspots of its area
)

// StateFlags is an entity's state (symbol table entity-state).
type StateFlags uint32

// Entity states.
const (
	StateMoving      StateFlags = 1 << iota // following a path
	StateColliding                          // touched a blocking entity or wall this frame
	StateOverlapping                        // overlaps an overlapping entity
	StateAsleep                             // skipped by physics until woken
	StateStatic                             // placed from configuration, never moves
)

// Region is a self-contained piece of the world: one navmesh, one simulation.
type Region struct {
	ID       int32
	Name     string
	Min, Max mgl32.Vec2 // bounds
}

// Cell is one rectangle of a region's grid. Its seed drives every random choice made
// for its content (props), so that server and client agree.
type Cell struct {
	ID     int32
	Region int32
	Min    mgl32.Vec2 // lower-left corner
	Size   mgl32.Vec2 // width and height
	Seed   uint32
}

// Area is a named rectangle of a region that groups polygons, markers and populations.
// Areas of a region do not overlap.
type Area struct {
	ID       int32
	Name     string
	Region   int32
	Min, Max mgl32.Vec2
}

// Polygon is a configured polygon; its vertices are the Vertex rows that name it.
type Polygon struct {
	ID   int32
	Name string
	Area int32 // -1 for a Footprint
	Kind PolygonKind
}

// Vertex is one point of a polygon's ring, Seq 0, 1, 2, ... in ring order (either
// winding). The ring closes implicitly.
type Vertex struct {
	Polygon int32
	Seq     int32
	Pos     mgl32.Vec2
}

// Marker is a point (or circle) of interest in an area.
type Marker struct {
	ID      int32
	Area    int32
	Kind    MarkerKind
	Pos     mgl32.Vec2
	Radius  float32 // Blackout and Hotspot: the circle; else 0
	Rot     int32   // Prop: quarter turns counter-clockwise, 0..3
	PropSet int32   // Prop: the prop set to choose from; else -1
}

// Prototype describes a kind of entity.
type Prototype struct {
	ID        int32
	Name      string
	Radius    float32 // collision radius (for a footprint prop: its bounding circle)
	Speed     float32 // metres per second
	Collision Collision
	Flags     ProtoFlags
	Footprint int32 // a Footprint polygon, or -1 (a disc of Radius)
}

// PropSetSize is the number of choices in a prop set.
const PropSetSize = 4

// PropSet is a weighted choice of prototypes for prop markers. Unused slots have
// Protos -1 and Weights 0.
type PropSet struct {
	ID      int32
	Name    string
	Protos  [PropSetSize]int32
	Weights [PropSetSize]int32
}

// Population keeps an area topped up with entities of one prototype: Density of them
// per 1000 square metres of the area.
type Population struct {
	ID        int32
	Area      int32
	Prototype int32
	Density   float32
}

// Trigger says when a hotspot rule fires (symbol table trigger).
type Trigger int32

// Hotspot rule triggers.
const (
	Enter Trigger = 1 // an entity's centre enters the hotspot
	Leave Trigger = 2 // an entity's centre leaves the hotspot
)

// Action is what a hotspot rule does (symbol table action).
type Action int32

// Hotspot rule actions.
const (
	ActionSpawn          Action = 1 // spawn an entity of prototype Spawn at the hotspot
	ActionDespawn        Action = 2 // destroy the entity that triggered the rule
	ActionToggleBlackout Action = 3 // switch the blackout zone of marker Zone on or off
)

// HotspotRule is a condition on a hotspot marker and the action it triggers: when an
// entity of Prototype (-1: any) enters or leaves (On) the hotspot, do Action. Spawn is
// the prototype ActionSpawn spawns and Zone the blackout marker ActionToggleBlackout
// switches (each -1 for the other actions). Rules fire in id order.
type HotspotRule struct {
	ID        int32
	Hotspot   int32
	Prototype int32
	On        Trigger
	Action    Action
	Spawn     int32
	Zone      int32
}

// Ranges of the numeric configuration fields, beyond those the parser checks on
// integers (ids and references in [-1, limit), marker rot 0..3, prop-set weights
// 0..65536, power cooldown 1..MaxFireCooldown, cell seeds any uint32). Verify refuses
// values outside them with the file and line of the row, so that a typo (a density
// of 1e9, a radius in millimetres) fails the load rather than the server.
const (
	// MaxCoordinate bounds every coordinate (region, cell and area bounds, vertex and
	// marker positions) to [-MaxCoordinate, MaxCoordinate] metres: there float32
	// positions still resolve 0.5 mm, a quarter of the simulation's contact skin.
	MaxCoordinate = 4096
	// MaxRadius bounds a prototype's radius to (0, MaxRadius] metres.
	MaxRadius = 32
	// MaxSpeed bounds a prototype's speed to [0, MaxSpeed] metres per second (the
	// simulation clamps commanded speeds to it as well).
	MaxSpeed = 100
	// MaxMarkerRadius bounds a marker's radius (a blackout zone's, a hotspot's) to
	// [0, MaxMarkerRadius] metres.
	MaxMarkerRadius = 1024
	// MaxDensity bounds a population's density to [0, MaxDensity] entities per 1000
	// square metres (one per 10 m²).
	MaxDensity = 100
)

// PowerBolt is the id of the bolt, the one power the simulation has.
const PowerBolt = 1

// Fire cooldowns, in frames (50 ms).
const (
	DefaultFireCooldown = 5   // four bolts a second
	MaxFireCooldown     = 200 // ten seconds
)

// Power configures a power of the simulation (the table is optional: a power without a
// row takes the defaults). Cooldown is the number of frames after an entity used the
// power before it may use it again, 1..MaxFireCooldown (DefaultFireCooldown without a
// row): it bounds the bolts one player keeps in the air.
type Power struct {
	ID       int32
	Name     string
	Cooldown int32
}

// FireCooldown returns the cooldown in frames of power id: its row's, or
// DefaultFireCooldown when the table has none (or a value out of range, which Verify
// refuses).
func (c *Config) FireCooldown(id int32) uint64 {
	for i := range c.Powers {
		if p := &c.Powers[i]; p.ID == id && p.Cooldown >= 1 && p.Cooldown <= MaxFireCooldown {
			return uint64(p.Cooldown)
		}
	}
	return DefaultFireCooldown
}

// EntityIDsPerRegion is the size of each region's block of entity ids. The entities
// created in region r take ids from FirstEntityID(r) on, so that the games of a world,
// one per region, never hand out the same id, and an entity that travels to another
// region keeps its id. Blocks are fixed by the region id (not by the number of
// regions), so adding a region moves no other region's ids; 2^40 ids last a region
// 35 years at a thousand new entities a second, and the last id of region 255 is
// below 2^48, exact in a JavaScript number. Region 0's ids are 1, 2, ... as small as
// ever (replication writes ids as varints).
const EntityIDsPerRegion int64 = 1 << 40

// FirstEntityID returns the first id of region's block of entity ids (0 names no
// entity, so region 0's block starts at 1).
func FirstEntityID(region int32) int64 {
	if region == 0 {
		return 1
	}
	return int64(region) * EntityIDsPerRegion
}

// Transition is a portal: an area of one region that sends a player's avatar whose
// centre enters it to the arrival marker Marker of another region, Region. The portal
// is a disc (Polygon -1, centre Pos, Radius > 0) or a Portal polygon of its area
// (Polygon, with Pos and Radius 0). A transition that is not OneWay needs one in the
// target region leading back to its own region. Verify and Load check that the marker
// is an arrival marker of the target region, with room on walkable ground for the
// largest player prototype, and clear of every portal of that region by more than
// that radius, so that no arrival sends a traveller on again.
type Transition struct {
	ID      int32
	Name    string
	Area    int32 // where the portal is; its region is the one travellers leave
	Polygon int32 // a Portal polygon of Area, or -1 for a disc
	Pos     mgl32.Vec2
	Radius  float32
	Region  int32 // the region travellers go to
	Marker  int32 // an Arrival marker of Region: where they appear
	OneWay  int32 // 1: no way back is required; 0: Region has a transition back
}

// Entity is a live entity: a row of the game-state table entity.
type Entity struct {
	ID        int64 // in the block of the region it was created in (FirstEntityID)
	Prototype int32
	Region    int32
	Pos       mgl32.Vec2
	Yaw       float32 // radians, counter-clockwise from +x
	Vel       mgl32.Vec2
	State     StateFlags
	Goal      mgl32.Vec2 // where it is walking to; hidden from players
	Owner     int32      // the player controlling it, or -1
	Seed      uint32     // drives its private choices; deity only
	Timestamp int64      // frame of the last change
}

// Lost records a destroyed entity, so that incremental dumps (?timestamp>T) see
// deletions.
type Lost struct {
	ID        int64
	Region    int32
	Timestamp int64 // frame of destruction
}

// Config is the world's configuration: the tables loaded from .config files.
type Config struct {
	Regions     []Region
	Cells       []Cell
	Areas       []Area
	Polygons    []Polygon
	Vertices    []Vertex
	Markers     []Marker
	Prototypes  []Prototype
	PropSets    []PropSet
	Populations []Population
	Rules       []HotspotRule
	Powers      []Power
	Transitions []Transition
}

// State is the game state that xdump shows beside the configuration.
type State struct {
	Entities []Entity
	Lost     []Lost
}

// symbols returns the compiled-in symbol tables.
func symbols() []*xdump.Table {
	return []*xdump.Table{
		xdump.SymbolTable(UIDPolygonKind, "polygon-kind", []xdump.Symbol{
			{Value: int64(Walkable), Name: "walkable"}, {Value: int64(Obstacle), Name: "obstacle"},
			{Value: int64(Hole), Name: "hole"}, {Value: int64(Footprint), Name: "footprint"},
			{Value: int64(Portal), Name: "portal"}}),
		xdump.SymbolTable(UIDMarkerKind, "marker-kind", []xdump.Symbol{
			{Value: int64(Spawn), Name: "spawn"}, {Value: int64(Prop), Name: "prop"},
			{Value: int64(Blackout), Name: "blackout"}, {Value: int64(Hotspot), Name: "hotspot"},
			{Value: int64(Arrival), Name: "arrival"}}),
		xdump.SymbolTable(UIDCollision, "collision", []xdump.Symbol{
			{Value: int64(CollideNone), Name: "none"}, {Value: int64(Blocking), Name: "blocking"},
			{Value: int64(Overlapping), Name: "overlapping"}}),
		xdump.SymbolTable(UIDProtoFlags, "proto-flags", []xdump.Symbol{
			{Value: int64(FlagPlayer), Name: "player"}, {Value: int64(FlagNPC), Name: "npc"},
			{Value: int64(FlagProp), Name: "prop"}, {Value: int64(FlagStatic), Name: "static"},
			{Value: int64(FlagWander), Name: "wander"}}),
		xdump.SymbolTable(UIDTrigger, "trigger", []xdump.Symbol{
			{Value: int64(Enter), Name: "enter"}, {Value: int64(Leave), Name: "leave"}}),
		xdump.SymbolTable(UIDAction, "action", []xdump.Symbol{
			{Value: int64(ActionSpawn), Name: "spawn"}, {Value: int64(ActionDespawn), Name: "despawn"},
			{Value: int64(ActionToggleBlackout), Name: "toggle-blackout"}}),
		xdump.SymbolTable(UIDEntityState, "entity-state", []xdump.Symbol{
			{Value: int64(StateMoving), Name: "moving"}, {Value: int64(StateColliding), Name: "colliding"},
			{Value: int64(StateOverlapping), Name: "overlapping"}, {Value: int64(StateAsleep), Name: "asleep"},
			{Value: int64(StateStatic), Name: "static"}}),
	}
}

// Column helpers shared by several tables.
func vec2[R any](name string, p func(r *R) *mgl32.Vec2) xdump.Column[R] {
	return xdump.Floats(name, 2, func(r *R) []float32 { return p(r)[:] })
}

// Limits on what a configuration may hold: ids of each table lie in [0, limit), so a
// table has at most limit rows. The parser checks them (Schema.MaxRows, Field ranges)
// before allocating, and they bound the work Verify does on hostile input (a client
// loads the tables its server sends).
const (
	maxRegions     = 1 << 8
	maxCells       = 1 << 12
	maxAreas       = 1 << 12
	maxPolygons    = 1 << 16
	maxVertexRows  = 1 << 18 // rows of the vertex table
	maxVertices    = 1 << 9  // vertices of one polygon
	maxMarkers     = 1 << 16
	maxPrototypes  = 1 << 12
	maxPropSets    = 1 << 12
	maxPopulations = 1 << 12
	maxRules       = 1 << 12
	maxPowers      = 1 << 8
	maxTransitions = 1 << 12
)

// constant marks a field that must not change once loaded: the key that other
// tables, saves and clients refer to a row by, and what a row is (an entity's
// prototype, the region a cell or area belongs to). A later load — a deity's
// live edit is one — that gives another value for a row already there is
// refused with the line and column of the value.
func constant[R any](c xdump.Column[R]) xdump.Column[R] { return c.Dumped(xdump.DumpConst) }

// ref bounds a reference to a table with the given limit: -1 (none) or an id.
func ref[R any](c xdump.Column[R], table string, limit int64) xdump.Column[R] {
	return c.Ref(table).Range(-1, limit-1)
}

// tables returns the tables of c and s, in uid order.
func tables(c *Config, s *State) []*xdump.Table {
	return []*xdump.Table{
		xdump.NewTable(xdump.Schema{UID: UIDRegion, Name: "region", Key: xdump.KeyID, MaxRows: maxRegions}, &c.Regions,
			constant(xdump.Int("id", func(r *Region) *int32 { return &r.ID }).Ref("region")),
			xdump.String("name", func(r *Region) *string { return &r.Name }),
			vec2("min", func(r *Region) *mgl32.Vec2 { return &r.Min }),
			vec2("max", func(r *Region) *mgl32.Vec2 { return &r.Max })),
		xdump.NewTable(xdump.Schema{UID: UIDCell, Name: "cell", Key: xdump.KeyID, MaxRows: maxCells}, &c.Cells,
			constant(xdump.Int("id", func(r *Cell) *int32 { return &r.ID }).Ref("cell")),
			constant(ref(xdump.Int("region", func(r *Cell) *int32 { return &r.Region }), "region", maxRegions)),
			vec2("min", func(r *Cell) *mgl32.Vec2 { return &r.Min }),
			vec2("size", func(r *Cell) *mgl32.Vec2 { return &r.Size }),
			xdump.Int("seed", func(r *Cell) *uint32 { return &r.Seed })),
		xdump.NewTable(xdump.Schema{UID: UIDArea, Name: "area", Key: xdump.KeyID, MaxRows: maxAreas}, &c.Areas,
			constant(xdump.Int("id", func(r *Area) *int32 { return &r.ID }).Ref("area")),
			xdump.String("name", func(r *Area) *string { return &r.Name }),
			constant(ref(xdump.Int("region", func(r *Area) *int32 { return &r.Region }), "region", maxRegions)),
			vec2("min", func(r *Area) *mgl32.Vec2 { return &r.Min }),
			vec2("max", func(r *Area) *mgl32.Vec2 { return &r.Max })),
		xdump.NewTable(xdump.Schema{UID: UIDPolygon, Name: "polygon", Key: xdump.KeyID, MaxRows: maxPolygons}, &c.Polygons,
			constant(xdump.Int("id", func(r *Polygon) *int32 { return &r.ID }).Ref("polygon")),
			xdump.String("name", func(r *Polygon) *string { return &r.Name }),
			ref(xdump.Int("area", func(r *Polygon) *int32 { return &r.Area }), "area", maxAreas),
			xdump.Int("kind", func(r *Polygon) *PolygonKind { return &r.Kind }).Ref("polygon-kind")),
		xdump.NewTable(xdump.Schema{UID: UIDVertex, Name: "vertex", Key: xdump.KeyOrdered, Order: []string{"polygon", "seq"}, MaxRows: maxVertexRows}, &c.Vertices,
			xdump.Int("polygon", func(r *Vertex) *int32 { return &r.Polygon }).Ref("polygon").Range(0, maxPolygons-1),
			xdump.Int("seq", func(r *Vertex) *int32 { return &r.Seq }).Range(0, maxVertices-1),
			vec2("pos", func(r *Vertex) *mgl32.Vec2 { return &r.Pos })),
		xdump.NewTable(xdump.Schema{UID: UIDMarker, Name: "marker", Key: xdump.KeyID, MaxRows: maxMarkers}, &c.Markers,
			constant(xdump.Int("id", func(r *Marker) *int32 { return &r.ID }).Ref("marker")),
			ref(xdump.Int("area", func(r *Marker) *int32 { return &r.Area }), "area", maxAreas),
			xdump.Int("kind", func(r *Marker) *MarkerKind { return &r.Kind }).Ref("marker-kind"),
			vec2("pos", func(r *Marker) *mgl32.Vec2 { return &r.Pos }),
			xdump.Float("radius", func(r *Marker) *float32 { return &r.Radius }),
			xdump.Int("rot", func(r *Marker) *int32 { return &r.Rot }).Range(0, 3),
			ref(xdump.Int("prop-set", func(r *Marker) *int32 { return &r.PropSet }), "prop-set", maxPropSets)),
		xdump.NewTable(xdump.Schema{UID: UIDPrototype, Name: "prototype", Key: xdump.KeyID, MaxRows: maxPrototypes}, &c.Prototypes,
			constant(xdump.Int("id", func(r *Prototype) *int32 { return &r.ID }).Ref("prototype")),
			xdump.String("name", func(r *Prototype) *string { return &r.Name }),
			xdump.Float("radius", func(r *Prototype) *float32 { return &r.Radius }),
			xdump.Float("speed", func(r *Prototype) *float32 { return &r.Speed }),
			xdump.Int("collision", func(r *Prototype) *Collision { return &r.Collision }).Ref("collision"),
			xdump.Int("flags", func(r *Prototype) *ProtoFlags { return &r.Flags }).BitsOf("proto-flags"),
			ref(xdump.Int("footprint", func(r *Prototype) *int32 { return &r.Footprint }), "polygon", maxPolygons)),
		xdump.NewTable(xdump.Schema{UID: UIDPropSet, Name: "prop-set", Key: xdump.KeyID, MaxRows: maxPropSets}, &c.PropSets,
			constant(xdump.Int("id", func(r *PropSet) *int32 { return &r.ID }).Ref("prop-set")),
			xdump.String("name", func(r *PropSet) *string { return &r.Name }),
			ref(xdump.Ints("proto", PropSetSize, func(r *PropSet) []int32 { return r.Protos[:] }), "prototype", maxPrototypes),
			xdump.Ints("weight", PropSetSize, func(r *PropSet) []int32 { return r.Weights[:] }).Range(0, 1<<16)),
		xdump.NewTable(xdump.Schema{UID: UIDPopulation, Name: "population", Key: xdump.KeyID, MaxRows: maxPopulations}, &c.Populations,
			constant(xdump.Int("id", func(r *Population) *int32 { return &r.ID }).Ref("population")),
			ref(xdump.Int("area", func(r *Population) *int32 { return &r.Area }), "area", maxAreas),
			ref(xdump.Int("prototype", func(r *Population) *int32 { return &r.Prototype }), "prototype", maxPrototypes),
			xdump.Float("density", func(r *Population) *float32 { return &r.Density })),
		xdump.NewTable(xdump.Schema{UID: UIDHotspotRule, Name: "hotspot-rule", Key: xdump.KeyID, MaxRows: maxRules}, &c.Rules,
			constant(xdump.Int("id", func(r *HotspotRule) *int32 { return &r.ID }).Ref("hotspot-rule")),
			ref(xdump.Int("hotspot", func(r *HotspotRule) *int32 { return &r.Hotspot }), "marker", maxMarkers),
			ref(xdump.Int("prototype", func(r *HotspotRule) *int32 { return &r.Prototype }), "prototype", maxPrototypes),
			xdump.Int("on", func(r *HotspotRule) *Trigger { return &r.On }).Ref("trigger"),
			xdump.Int("action", func(r *HotspotRule) *Action { return &r.Action }).Ref("action"),
			ref(xdump.Int("spawn", func(r *HotspotRule) *int32 { return &r.Spawn }), "prototype", maxPrototypes),
			ref(xdump.Int("zone", func(r *HotspotRule) *int32 { return &r.Zone }), "marker", maxMarkers)),
		xdump.NewTable(xdump.Schema{UID: UIDPower, Name: "power", Key: xdump.KeyID, MaxRows: maxPowers}, &c.Powers,
			constant(xdump.Int("id", func(r *Power) *int32 { return &r.ID }).Ref("power")),
			xdump.String("name", func(r *Power) *string { return &r.Name }),
			xdump.Int("cooldown", func(r *Power) *int32 { return &r.Cooldown }).Range(1, MaxFireCooldown)),
		xdump.NewTable(xdump.Schema{UID: UIDTransition, Name: "transition", Key: xdump.KeyID, MaxRows: maxTransitions}, &c.Transitions,
			constant(xdump.Int("id", func(r *Transition) *int32 { return &r.ID }).Ref("transition")),
			xdump.String("name", func(r *Transition) *string { return &r.Name }),
			ref(xdump.Int("area", func(r *Transition) *int32 { return &r.Area }), "area", maxAreas),
			ref(xdump.Int("polygon", func(r *Transition) *int32 { return &r.Polygon }), "polygon", maxPolygons),
			vec2("pos", func(r *Transition) *mgl32.Vec2 { return &r.Pos }),
			xdump.Float("radius", func(r *Transition) *float32 { return &r.Radius }),
			ref(xdump.Int("region", func(r *Transition) *int32 { return &r.Region }), "region", maxRegions),
			ref(xdump.Int("marker", func(r *Transition) *int32 { return &r.Marker }), "marker", maxMarkers),
			xdump.Int("one-way", func(r *Transition) *int32 { return &r.OneWay }).Range(0, 1)),

		xdump.NewTable(xdump.Schema{UID: UIDEntity, Name: "entity", Key: xdump.KeyID}, &s.Entities,
			constant(xdump.Int("id", func(r *Entity) *int64 { return &r.ID }).Ref("entity")),
			constant(xdump.Int("prototype", func(r *Entity) *int32 { return &r.Prototype }).Ref("prototype")),
			xdump.Int("region", func(r *Entity) *int32 { return &r.Region }).Ref("region"),
			vec2("pos", func(r *Entity) *mgl32.Vec2 { return &r.Pos }),
			xdump.Float("yaw", func(r *Entity) *float32 { return &r.Yaw }),
			vec2("vel", func(r *Entity) *mgl32.Vec2 { return &r.Vel }),
			xdump.Int("state", func(r *Entity) *StateFlags { return &r.State }).BitsOf("entity-state"),
			vec2("goal", func(r *Entity) *mgl32.Vec2 { return &r.Goal }).With(xdump.Hidden),
			xdump.Int("owner", func(r *Entity) *int32 { return &r.Owner }),
			xdump.Int("seed", func(r *Entity) *uint32 { return &r.Seed }).With(xdump.Deity),
			xdump.Int("timestamp", func(r *Entity) *int64 { return &r.Timestamp })),
		xdump.NewTable(xdump.Schema{UID: UIDLost, Name: "lost"}, &s.Lost,
			constant(xdump.Int("id", func(r *Lost) *int64 { return &r.ID })),
			xdump.Int("region", func(r *Lost) *int32 { return &r.Region }).Ref("region"),
			xdump.Int("timestamp", func(r *Lost) *int64 { return &r.Timestamp })),
	}
}

// NewRegistry returns a registry of the meta tables, the symbol tables, and the
// configuration and state tables of c and s. The tables read and replace the slices of
// c and s: a load through the registry fills c and s.
func NewRegistry(c *Config, s *State) *xdump.Registry {
	reg := xdump.NewRegistry(xdump.DefaultMetaUIDs)
	for _, t := range append(symbols(), tables(c, s)...) {
		if err := reg.Register(t); err != nil {
			panic(err) // the schemas above are fixed; a test registers them
		}
	}
	if err := reg.Check(); err != nil {
		panic(err)
	}
	return reg
}
