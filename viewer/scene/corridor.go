package scene

import (
	"strconv"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/debugdraw"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
)

// Colours of the selected entity's path corridor.
var (
	colorCorridor = debugdraw.Color{R: 255, G: 210, B: 80, A: 40}  // the band the disc sweeps
	colorFunnel   = debugdraw.Color{R: 255, G: 210, B: 80, A: 255} // the funnel's corners and legs
	colorWalked   = debugdraw.Color{R: 255, G: 210, B: 80, A: 90}  // legs already walked
	colorTurn     = debugdraw.Color{R: 255, G: 140, B: 60, A: 200} // a node's turning circle
)

// drawCorridor draws the path a locomotion state carries, as the funnel left it:
// the legs already walked (dim), the legs ahead from the entity's position through
// the corner it walks to (Goal), the corridor a disc of radius sweeps along them (the
// clearance the path needed), each corner with its index, and a node's turning
// circle where the node has a side and radius. It draws nothing for a state
// without a path.
func drawCorridor(d debugdraw.Drawer, st *locomotion.State, radius float32, labels bool) {
	if len(st.Path) == 0 {
		return
	}
	at := func(i int) mgl32.Vec2 { return mgl32.Vec2{st.Path[i].Point[0], st.Path[i].Point[1]} }
	goal := min(int(st.Goal), len(st.Path))
	for i := 1; i < goal; i++ {
		d.Segment(at(i-1), at(i), colorWalked)
	}
	prev := mgl32.Vec2{st.Position[0], st.Position[1]}
	for i := goal; i < len(st.Path); i++ {
		p := at(i)
		corridorLeg(d, prev, p, radius)
		d.Segment(prev, p, colorFunnel)
		d.Circle(p, radius, colorWalked, false)
		prev = p
	}
	for i, n := range st.Path {
		p := at(i)
		c := colorFunnel
		if i < goal {
			c = colorWalked
		}
		d.Point(p, 5, c)
		if n.Side != locomotion.None && n.Radius > 0 {
			d.Circle(p, n.Radius, colorTurn, false)
		}
		if labels {
			d.Text(p, strconv.Itoa(i), c)
		}
	}
}

// corridorLeg fills the band of half-width r around the segment a–b.
func corridorLeg(d debugdraw.Drawer, a, b mgl32.Vec2, r float32) {
	u := b.Sub(a)
	l := u.Len()
	if l < 1e-6 || r <= 0 {
		return
	}
	n := mgl32.Vec2{-u[1] / l * r, u[0] / l * r}
	quad := [4]mgl32.Vec2{a.Add(n), b.Add(n), b.Sub(n), a.Sub(n)}
	d.Polygon(quad[:], colorCorridor, true)
	d.Segment(quad[0], quad[1], colorWalked)
	d.Segment(quad[3], quad[2], colorWalked)
}
