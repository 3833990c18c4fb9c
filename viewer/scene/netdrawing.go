package scene

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/debugdraw"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/replication"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
)

// netDrawing draws the replicated world: the replica's region and the props of its
// prediction game, and the entities as the client shows them.
type netDrawing struct {
	gd    *gameDrawer // nil until the replica has a world
	radii []protoRadius
	aoi   replication.AOI
}

type protoRadius struct {
	id int32
	r  float32
}

// ready reports whether there is a world to draw.
func (dr *netDrawing) ready() bool { return dr.gd != nil }

// setWorld takes the prototypes' names and radii from the replica's first world.
func (dr *netDrawing) setWorld(w *world.World) {
	if dr.gd != nil || w == nil {
		return
	}
	dr.gd = newGameDrawer(w)
	for _, p := range w.Prototypes {
		dr.radii = append(dr.radii, protoRadius{p.ID, p.Radius})
	}
}

// radius returns the radius of an entity of prototype proto.
func (dr *netDrawing) radius(proto int32) float32 {
	if proto == sim.ProtoProjectile {
		return sim.BoltRadius
	}
	for _, p := range dr.radii {
		if p.id == proto {
			return p.r
		}
	}
	return 0.5
}

// drawGame draws the replica's navmesh and zones and its prediction game: the
// props, and the own avatar's sweeps, path and events.
func (dr *netDrawing) drawGame(d debugdraw.Drawer, r *replica.Replica, ov Overlay, selected uint64) {
	g := r.Game()
	if g == nil {
		return
	}
	drawLayers(d, g, ov)
	if ov.Has(ovProps) {
		for _, e := range g.Entities() {
			if e.Owner() < 0 && e.Prototype() != sim.ProtoProjectile && uint64(e.ID()) != r.Player() {
				dr.gd.drawEntity(d, e, true, ov.Has(ovLabels), false, uint64(e.ID()) == selected)
			}
		}
	}
}

// drawViews draws the entities as shown: the selected one's path corridor, each
// entity, and at the own avatar the prediction against the authority and the AOI.
func (dr *netDrawing) drawViews(d debugdraw.Drawer, views []replica.View, ov Overlay, selected uint64) {
	for i := range views {
		if v := &views[i]; v.ID == selected && ov.Has(ovPaths) {
			drawCorridor(d, &v.Server, dr.radius(v.Prototype), ov.Has(ovLabels))
		}
	}
	for i := range views {
		v := &views[i]
		if ov.Has(ovEntities) {
			dr.drawView(d, v, ov, v.ID == selected)
		}
		if v.Own && ov.Has(ovPrediction) {
			auth := mgl32.Vec2{v.Server.Position[0], v.Server.Position[1]}
			drawPrediction(d, v.Pos, auth, dr.radius(v.Prototype))
		}
		if v.Own && ov.Has(ovAOI) {
			d.Circle(v.Pos, dr.aoi.Add, colorAOIAdd, false)
			d.Circle(v.Pos, dr.aoi.Remove, colorAOIRemove, false)
		}
	}
}

func (dr *netDrawing) drawView(d debugdraw.Drawer, v *replica.View, ov Overlay, selected bool) {
	c := sim.ColorBlocking
	switch {
	case v.Projectile:
		c = sim.ColorProjectile
	case v.Own:
		c = colorAvatar
	case v.Held:
		c = sim.ColorNone
	}
	r := dr.radius(v.Prototype)
	if v.Own || v.Projectile {
		d.Circle(v.Pos, r, c.WithAlpha(110), true)
	}
	d.Circle(v.Pos, r, c, false)
	if selected {
		d.Circle(v.Pos, r+0.35, sim.ColorSelected, false)
	}
	s, k := math.Sincos(float64(v.Yaw))
	d.Segment(v.Pos, mgl32.Vec2{v.Pos[0] + 1.6*r*float32(k), v.Pos[1] + 1.6*r*float32(s)}, c)
	if ov.Has(ovPaths) && v.Moving && !v.Own {
		prev := v.Pos
		for _, p := range v.Server.Path[min(int(v.Server.Goal), len(v.Server.Path)):] {
			q := mgl32.Vec2{p.Point[0], p.Point[1]}
			d.Segment(prev, q, sim.ColorPath)
			prev = q
		}
	}
	if ov.Has(ovLabels) {
		d.Text(mgl32.Vec2{v.Pos[0] + r, v.Pos[1] + r}, dr.gd.viewLabel(v.ID, v.Prototype), colorLabel)
	}
}
