package sim

import (
	"math"
	"strconv"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/debugdraw"

	"github.com/twinframe/twinframe/shared/geom"
)

// DrawOptions choose the overlays DebugDraw emits. The zero value draws nothing; use
// DrawAll for everything.
type DrawOptions struct {
	Entities  bool // bounds (by collision kind) and facing
	Labels    bool // entity ids
	Paths     bool // remaining path corners of moving entities
	Sweeps    bool // the last sweep of each entity: start, end, hit point and normal
	Events    bool // the last step's collisions and overlap changes
	Hotspots  bool // hotspot circles
	Blackouts bool // blackout zones (active: filled, inactive: outline)
	Spawns    bool // spawn markers
	Portals   bool // portals (the overlay "portals"): disc or polygon, and where each leads
	// Region limits drawing to one region id; -1 draws all.
	Region int32
	// SweepFrame, with Sweeps, draws only the sweeps made at that frame (0: each
	// entity's last): a stream of the sweeps of every frame sends each once.
	SweepFrame uint64
	// Select highlights one entity (0: none).
	Select EntityID
}

// DrawAll draws every overlay of every region.
var DrawAll = DrawOptions{Entities: true, Labels: true, Paths: true, Sweeps: true, Events: true,
	Hotspots: true, Blackouts: true, Spawns: true, Portals: true, Region: -1}

// Overlay colours.
var (
	ColorBlocking    = debugdraw.Blue
	ColorOverlapping = debugdraw.Cyan
	ColorNone        = debugdraw.Gray
	ColorProjectile  = debugdraw.Orange
	ColorPath        = debugdraw.Green
	ColorSweep       = debugdraw.Yellow
	ColorHit         = debugdraw.Red
	ColorOverlap     = debugdraw.Magenta
	ColorHotspot     = debugdraw.Yellow.WithAlpha(160)
	ColorBlackout    = debugdraw.Black.WithAlpha(90)
	ColorSpawn       = debugdraw.RGBA(150, 255, 150, 255)
	ColorSelected    = debugdraw.White
	ColorPortal      = debugdraw.Magenta.WithAlpha(200)
)

// DebugDraw draws the game's simulation state into d: entities, paths, last sweeps with
// their hits, the last step's events, hotspots, blackout zones and spawn markers, as
// chosen by opt. Drawing reads the game only; it never changes it.
func DebugDraw(d debugdraw.Drawer, g *Game, opt DrawOptions) {
	var buf [2]mgl32.Vec2
	for _, r := range g.regions {
		if opt.Region >= 0 && r.id != opt.Region {
			continue
		}
		if opt.Blackouts {
			for _, z := range r.zones {
				d.Circle(z.center, z.radius, ColorBlackout, z.on)
			}
		}
		if opt.Hotspots {
			for _, a := range r.areas {
				for _, h := range a.hotspots {
					d.Circle(h.center, h.radius, ColorHotspot, false)
				}
			}
		}
		if opt.Spawns {
			for _, p := range r.spawns {
				d.Point(p, 6, ColorSpawn)
			}
		}
		if opt.Portals {
			drawPortals(d, g, r)
		}
	}
	for _, e := range g.ents {
		if e.dead || (opt.Region >= 0 && e.region != opt.Region) {
			continue
		}
		if opt.Entities {
			c := ColorNone
			switch {
			case e.power.power != 0:
				c = ColorProjectile
			case e.collision == Blocking:
				c = ColorBlocking
			case e.collision == Overlapping:
				c = ColorOverlapping
			}
			if e.id == opt.Select {
				c = ColorSelected
			}
			d.Circle(e.pos, e.radius, c, false)
			// Facing is for display only, so the platform's sin and cos are fine here.
			s, k := math.Sincos(float64(e.yaw))
			tip := mgl32.Vec2{e.pos[0] + e.radius*float32(k), e.pos[1] + e.radius*float32(s)}
			d.Segment(e.pos, tip, c)
		}
		if opt.Labels {
			d.Text(e.pos, strconv.FormatUint(uint64(e.id), 10), debugdraw.White)
		}
		if opt.Paths && e.loco.mode != Idle && int(e.loco.next) < len(e.loco.path) {
			drawPath(d, &e.loco, e.pos)
		}
		if opt.Sweeps && e.sweep.Frame != 0 && (opt.SweepFrame == 0 || e.sweep.Frame == opt.SweepFrame) {
			s := e.sweep
			d.Circle(s.Start, s.Radius, ColorSweep.WithAlpha(120), false)
			d.Circle(s.End, s.Radius, ColorSweep, false)
			buf[0], buf[1] = s.Start, s.End
			d.Segment(buf[0], buf[1], ColorSweep)
			if s.Hit {
				d.Point(s.Point, 5, ColorHit)
				d.Segment(s.Point, geom.Axpy(s.Point, s.Normal, 0.5), ColorHit)
			}
		}
	}
	if opt.Events {
		for _, ev := range g.events {
			switch ev.Kind {
			case OnCollide:
				d.Point(ev.Point, 6, ColorHit)
			case OnOverlapBegin, OnOverlapEnd:
				a, b := g.Entity(ev.A), g.Entity(ev.B)
				if a != nil && b != nil {
					d.Segment(a.pos, b.pos, ColorOverlap)
				}
			}
		}
	}
}

// drawPortals draws each portal of r, its disc or its polygon, labelled with the
// region it leads to ("→ wilds", a one-way portal "⇒ vault").
func drawPortals(d debugdraw.Drawer, g *Game, r *Region) {
	for i := range r.portals {
		p := &r.portals[i]
		at := p.t.Pos
		if p.ring == nil {
			d.Circle(p.t.Pos, p.t.Radius, ColorPortal, false)
		} else {
			at = mgl32.Vec2{}
			for k, q := range p.ring {
				d.Segment(q, p.ring[(k+1)%len(p.ring)], ColorPortal)
				at = geom.Add(at, q)
			}
			at = geom.Scale(at, 1/float32(len(p.ring)))
		}
		to := strconv.Itoa(int(p.t.Region))
		for _, wr := range g.world.Regions {
			if wr.ID == p.t.Region {
				to = wr.Name
			}
		}
		arrow := "→ "
		if p.t.OneWay != 0 {
			arrow = "⇒ "
		}
		d.Text(at, arrow+to, ColorPortal)
	}
}

// drawPath draws the rest of a path from p: its straight legs, and each turn node's
// circle centre and arc (as short segments).
func drawPath(d debugdraw.Drawer, l *locomotor, p mgl32.Vec2) {
	for i := l.next; int(i) < len(l.path); i++ {
		c, a := l.path[i], l.arcAt(i)
		if a.side == 0 {
			d.Segment(p, c, ColorPath)
			p = c
			continue
		}
		if geom.Dist(p, c) > a.r+arcSlack {
			if _, in, _, ok := tangent(p, 0, c, a.rho()); ok {
				d.Segment(p, in, ColorPath)
				p = in
			}
		}
		d.Point(c, 2, ColorPath)
		out, ang := l.arcExit(i, p)
		const pieces = 8
		for k := 1; k <= pieces; k++ {
			q := rotateAbout(c, p, float32(a.side)*ang/pieces, a.r)
			d.Segment(p, q, ColorPath)
			p = q
		}
		p = out
	}
	d.Point(p, 4, ColorPath)
}
