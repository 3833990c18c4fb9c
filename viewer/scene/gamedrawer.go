package scene

import (
	"math"
	"strconv"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/debugdraw"
	"github.com/twinframe/twinframe/shared/navi"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
)

// flashFrames is how many frames an event flashes in the world.
const flashFrames = 12

// Default AOI radii drawn around the avatar when the source does not know the server's.
const (
	defaultAOIAdd    float32 = 40
	defaultAOIRemove float32 = 48
)

// Colours of the viewer's own overlays (the simulation's come from sim and navi).
var (
	colorAvatar    = debugdraw.Color{R: 120, G: 255, B: 140, A: 255}
	colorProp      = debugdraw.Color{R: 150, G: 140, B: 120, A: 255}
	colorLabel     = debugdraw.Color{R: 230, G: 230, B: 230, A: 255}
	colorAOIAdd    = debugdraw.Color{R: 80, G: 200, B: 255, A: 140}
	colorAOIRemove = debugdraw.Color{R: 80, G: 120, B: 255, A: 110}
	colorPredicted = debugdraw.Color{R: 120, G: 255, B: 140, A: 255}
	colorAuthority = debugdraw.Color{R: 255, G: 120, B: 220, A: 255}
	colorError     = debugdraw.Red
)

// flash is an event being flashed in the world.
type flash struct {
	frame uint64
	at    mgl32.Vec2
	c     debugdraw.Color
}

// gameDrawer draws a sim.Game with the viewer's overlays. It caches entity labels, so
// drawing a frame allocates only for entities it has not labelled before.
type gameDrawer struct {
	names   []string          // prototype names, by prototype id
	labels  map[uint64]string // entity id → label
	flashes []flash
	// AOIAdd and AOIRemove are the radii of the AOI overlay (0: the defaults).
	AOIAdd, AOIRemove float32
}

// newGameDrawer returns a drawer for games of world w.
func newGameDrawer(w *world.World) *gameDrawer {
	gd := &gameDrawer{labels: map[uint64]string{}}
	for _, p := range w.Prototypes {
		if p.ID >= 0 && p.ID < 1<<16 {
			for int(p.ID) >= len(gd.names) {
				gd.names = append(gd.names, "")
			}
			gd.names[p.ID] = p.Name
		}
	}
	return gd
}

// ProtoName returns the name of prototype id.
func (gd *gameDrawer) ProtoName(id int32) string {
	if id == sim.ProtoProjectile {
		return "bolt"
	}
	if id >= 0 && int(id) < len(gd.names) && gd.names[id] != "" {
		return gd.names[id]
	}
	return "proto" + strconv.Itoa(int(id))
}

func (gd *gameDrawer) label(e *sim.Entity) string {
	id := uint64(e.ID())
	s, ok := gd.labels[id]
	if !ok {
		if len(gd.labels) > 1<<16 {
			clear(gd.labels)
		}
		s = gd.ProtoName(e.Prototype()) + " " + strconv.FormatUint(id, 10)
		gd.labels[id] = s
	}
	return s
}

// viewLabel returns the label of a replicated entity.
func (gd *gameDrawer) viewLabel(id uint64, proto int32) string {
	s, ok := gd.labels[id]
	if !ok {
		if len(gd.labels) > 1<<16 {
			clear(gd.labels)
		}
		s = gd.ProtoName(proto) + " " + strconv.FormatUint(id, 10)
		gd.labels[id] = s
	}
	return s
}

// Observe records the events of the step just run, for flashing.
func (gd *gameDrawer) Observe(g *sim.Game) {
	keep := gd.flashes[:0]
	for _, f := range gd.flashes {
		if f.frame+flashFrames > g.Frame() {
			keep = append(keep, f)
		}
	}
	gd.flashes = keep
	for _, ev := range g.Events() {
		var c debugdraw.Color
		at := ev.Point
		switch ev.Kind {
		case sim.OnCollide:
			c = sim.ColorHit
		case sim.OnOverlapBegin, sim.OnOverlapEnd:
			c = sim.ColorOverlap
			if a, b := g.Entity(ev.A), g.Entity(ev.B); a != nil && b != nil {
				at = a.Pos().Add(b.Pos()).Mul(0.5)
			}
		default:
			continue
		}
		gd.flashes = append(gd.flashes, flash{frame: ev.Frame, at: at, c: c})
	}
}

// drawLayers draws what ov turns on of every region's navmesh and of g's own debug
// drawing (paths, sweeps, events, zones, spawns): the layers under the entities.
func drawLayers(d debugdraw.Drawer, g *sim.Game, ov Overlay) {
	for _, r := range g.Regions() {
		if ov&(ovNavmesh|ovEdges|ovConstraints) != 0 {
			navi.DebugDraw(d, r.Mesh(), navi.DrawOptions{
				Triangles: ov.Has(ovNavmesh), Edges: ov.Has(ovEdges), Constraints: ov.Has(ovConstraints),
			})
		}
	}
	sim.DebugDraw(d, g, sim.DrawOptions{
		Paths: ov.Has(ovPaths), Sweeps: ov.Has(ovSweeps), Events: ov.Has(ovEvents),
		Hotspots: ov.Has(ovHotspots), Blackouts: ov.Has(ovBlackout), Spawns: ov.Has(ovSpawns),
		Portals: ov.Has(ovPortals), Region: -1,
	})
}

// Draw draws g with the overlays of ov; avatar (0: none) and selected (0: none) stand out.
func (gd *gameDrawer) Draw(d debugdraw.Drawer, g *sim.Game, ov Overlay, avatar, selected uint64) {
	drawLayers(d, g, ov)
	for _, e := range g.Entities() {
		prop := e.Flags()&world.FlagProp != 0
		if (prop && !ov.Has(ovProps)) || (!prop && !ov.Has(ovEntities)) {
			continue
		}
		gd.drawEntity(d, e, prop, ov.Has(ovLabels), uint64(e.ID()) == avatar, uint64(e.ID()) == selected)
	}
	if ov.Has(ovEvents) {
		for _, f := range gd.flashes {
			age := float32(g.Frame()-min(f.frame, g.Frame())) / flashFrames
			c := f.c.WithAlpha(uint8(255 * (1 - age)))
			d.Circle(f.at, 0.3+1.5*age, c, false)
		}
	}
	if a := g.Entity(sim.EntityID(avatar)); a != nil && ov.Has(ovAOI) {
		add, rem := gd.AOIAdd, gd.AOIRemove
		if add <= 0 {
			add, rem = defaultAOIAdd, defaultAOIRemove
		}
		d.Circle(a.Pos(), add, colorAOIAdd, false)
		d.Circle(a.Pos(), rem, colorAOIRemove, false)
	}
}

func (gd *gameDrawer) drawEntity(d debugdraw.Drawer, e *sim.Entity, prop, labels, avatar, selected bool) {
	c := sim.ColorNone
	switch {
	case e.Prototype() == sim.ProtoProjectile:
		c = sim.ColorProjectile
	case avatar:
		c = colorAvatar
	case prop:
		c = colorProp
	case e.Collision() == sim.Blocking:
		c = sim.ColorBlocking
	case e.Collision() == sim.Overlapping:
		c = sim.ColorOverlapping
	}
	p, r := e.Pos(), e.Radius()
	if avatar || e.Prototype() == sim.ProtoProjectile {
		d.Circle(p, r, c.WithAlpha(110), true)
	}
	d.Circle(p, r, c, false)
	if selected {
		d.Circle(p, r+0.35, sim.ColorSelected, false)
	}
	if !prop {
		// Facing is for display only: the platform's sin and cos are fine here.
		s, k := math.Sincos(float64(e.Yaw()))
		d.Segment(p, mgl32.Vec2{p[0] + 1.6*r*float32(k), p[1] + 1.6*r*float32(s)}, c)
	}
	if labels && (!prop || selected) {
		d.Text(mgl32.Vec2{p[0] + r, p[1] + r}, gd.label(e), colorLabel)
	}
}

// drawPrediction draws a predicted and an authoritative avatar position and the error
// vector between them.
func drawPrediction(d debugdraw.Drawer, predicted, authoritative mgl32.Vec2, radius float32) {
	d.Circle(authoritative, radius, colorAuthority, false)
	d.Circle(predicted, radius, colorPredicted, false)
	d.Segment(authoritative, predicted, colorError)
	d.Point(authoritative, 4, colorAuthority)
}
