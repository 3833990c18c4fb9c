package sim

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/sim/locomotion"

	"github.com/twinframe/twinframe/shared/geom"
)

// A path is a list of nodes. A straight node is a point the path passes through. A turn
// node is a circle the path goes around (the Marvel Heroes locomotor's circle-tangent
// segments): its point is the centre, usually the obstacle vertex the path turns
// around, its radius the mover's path radius, and its side says which way it turns
// (Left: counter-clockwise, the centre on the mover's left). Between nodes the path
// runs along the common tangent of the two circles (of radius 0 for a point), and on
// a turn node it follows the arc from the tangent that arrives to the tangent that
// leaves.

// arc is how a path node is passed: side 0 passes through its point; Left or Right
// turns around a circle of radius r about it.
type arc struct {
	side locomotion.Side
	r    float32
}

// rho returns the node's radius signed by its side: positive when the centre is on the
// left of the travel direction.
func (a arc) rho() float32 {
	switch a.side {
	case locomotion.Left:
		return a.r
	case locomotion.Right:
		return -a.r
	}
	return 0
}

// Turn node limits.
const (
	// maxArcTurnCos: corners turning by more than 120° stay straight corners (the
	// navi places such corners short of the vertex's mitred offset, so no circle about
	// the vertex fits both legs).
	maxArcTurnCos float32 = -0.5
	// minArcTurnSin: corners turning by less than about 0.06° stay straight.
	minArcTurnSin float32 = 1e-3
	// arcSlack: a mover this close to a turn circle (or inside it) is on its arc.
	arcSlack = cornerTolerance
	// pastExit: a mover more than this beyond π round its arc has passed the exit.
	pastExit float32 = math.Pi + 0.25
)

// tangent returns the directed common tangent from node a (centre pa, signed radius
// ra) to node b: where it leaves a, where it touches b, and its unit direction. For
// radii of equal sign it is an outer tangent, for opposite signs an inner one; ok is
// false when none exists (|rb - ra| exceeds the distance of the centres).
func tangent(pa mgl32.Vec2, ra float32, pb mgl32.Vec2, rb float32) (from, to, u mgl32.Vec2, ok bool) {
	dh, l := geom.Unit(geom.Sub(pb, pa))
	if l == 0 {
		return pa, pb, mgl32.Vec2{}, false
	}
	alpha := (rb - ra) / l
	if !(alpha >= -1 && alpha <= 1) {
		return pa, pb, mgl32.Vec2{}, false
	}
	k := float32(math.Sqrt(float64(1 - float32(alpha*alpha))))
	perp := mgl32.Vec2{-dh[1], dh[0]}
	// n is the tangent's left normal: a centre on the left lies at +n·r from it.
	n := mgl32.Vec2{float32(alpha*dh[0]) + float32(k*perp[0]), float32(alpha*dh[1]) + float32(k*perp[1])}
	u = mgl32.Vec2{float32(k*dh[0]) - float32(alpha*perp[0]), float32(k*dh[1]) - float32(alpha*perp[1])}
	return geom.Axpy(pa, n, -ra), geom.Axpy(pb, n, -rb), u, true
}

// tangentTo returns where the tangent from point p touches node b (centre pb, signed
// radius rb), and ok as tangent does: the same arithmetic as tangent(p, 0, pb, rb)'s
// second result, without the two results the walk does not need (it calls this for
// every mover heading for a turn, every frame).
func tangentTo(p, pb mgl32.Vec2, rb float32) (mgl32.Vec2, bool) {
	dh, l := geom.Unit(geom.Sub(pb, p))
	if l == 0 {
		return pb, false
	}
	alpha := rb / l // (rb - 0) / l: the same bits
	if !(alpha >= -1 && alpha <= 1) {
		return pb, false
	}
	k := float32(math.Sqrt(float64(1 - float32(alpha*alpha))))
	perp := mgl32.Vec2{-dh[1], dh[0]}
	n := mgl32.Vec2{float32(alpha*dh[0]) + float32(k*perp[0]), float32(alpha*dh[1]) + float32(k*perp[1])}
	return geom.Axpy(pb, n, -rb), true
}

// arcAngle returns the angle in [0, 2π) from p to q about c, turning to side.
func arcAngle(c, p, q mgl32.Vec2, side locomotion.Side) float32 {
	w1, w2 := geom.Sub(p, c), geom.Sub(q, c)
	s := geom.Cross(w1, w2)
	if side == locomotion.Right {
		s = -s
	}
	a := atan2(s, geom.Dot(w1, w2))
	if a < 0 {
		a += 2 * math.Pi
	}
	return a
}

// sincos returns the sine and cosine of x in [-π-1, π+1] with the same bits on every
// platform: a Taylor polynomial for x/4 (|x/4| < 1.1, error below 1e-9 before
// rounding), then the double-angle formulas twice.
func sincos(x float32) (s, c float32) {
	h := x / 4
	h2 := float32(h * h)
	s = float32(h2 * float32(-1.0/39916800))
	s = float32(h2*(s+1.0/362880)) - 1.0/5040
	s = float32(h2*s) + 1.0/120
	s = float32(h2*s) - 1.0/6
	s = float32(h*float32(h2*s)) + h
	c = float32(h2 * float32(1.0/479001600))
	c = float32(h2*(c-1.0/3628800)) + 1.0/40320
	c = float32(h2*c) - 1.0/720
	c = float32(h2*c) + 1.0/24
	c = float32(h2*c) - 0.5
	c = float32(h2*c) + 1
	for range 2 {
		s, c = float32(2*float32(s*c)), float32(c*c)-float32(s*s)
	}
	return s, c
}

// rotateAbout returns p turned by angle (counter-clockwise) about c, put at distance r.
func rotateAbout(c, p mgl32.Vec2, angle, r float32) mgl32.Vec2 {
	w, l := geom.Unit(geom.Sub(p, c))
	if l == 0 {
		return p
	}
	s, k := sincos(angle)
	w = mgl32.Vec2{float32(w[0]*k) - float32(w[1]*s), float32(w[0]*s) + float32(w[1]*k)}
	return geom.Axpy(c, w, r)
}

// filletCorners turns the corners of a straight path into turn nodes of radius r where
// an arc fits: the corner's circle of radius r tangent to both legs, whose centre is the
// vertex the navi turned around when it placed the corner at the vertex's mitred
// offset. The arc must fit in half of each leg (the whole of a leg to the start or the
// goal, which never turn), and the mover must fit (fits) on its middle and quarter
// points: where the navi moved a corner elsewhere (a vertex too near another, a
// chamfer), the circle is not about the vertex and would cut into it. It rewrites the turned corners' points to the centres and
// returns the nodes' arcs (all straight when none fits: then empty).
func filletCorners(path []mgl32.Vec2, arcs []arc, r float32, fits func(mgl32.Vec2) bool) []arc {
	arcs = arcs[:0]
	if r <= 0 || len(path) < 3 {
		return arcs
	}
	prev := path[0] // the previous corner as the navi placed it
	any := false
	for i := 1; i+1 < len(path); i++ {
		c := path[i]
		uin, lin := geom.Unit(geom.Sub(c, prev))
		uout, lout := geom.Unit(geom.Sub(path[i+1], c))
		prev = c
		a := arc{}
		cr, co := geom.Cross(uin, uout), geom.Dot(uin, uout)
		if lin > 0 && lout > 0 && co >= maxArcTurnCos && (cr > minArcTurnSin || cr < -minArcTurnSin) {
			// The tangent points lie r·tan(φ/2) from the corner, φ the turn.
			t := float32(r * (float32(math.Abs(float64(cr))) / (1 + co)))
			inRoom, outRoom := lin/2, lout/2
			if i == 1 {
				inRoom = lin
			}
			if i+2 == len(path) {
				outRoom = lout
			}
			bis, _ := geom.Unit(geom.Sub(uout, uin))
			cosHalf := float32(math.Sqrt(float64((1 + co) / 2)))
			centre := geom.Axpy(c, bis, r/cosHalf)
			if t <= inRoom && t <= outRoom && arcClear(centre, bis, r, cr, co, fits) {
				path[i] = centre
				a = arc{side: locomotion.Left, r: r}
				if cr < 0 {
					a.side = locomotion.Right
				}
				any = true
			}
		}
		if any {
			for len(arcs) < i {
				arcs = append(arcs, arc{}) // the straight nodes before the first turn
			}
			arcs = append(arcs, a)
		}
	}
	if any {
		arcs = append(arcs, arc{}) // the goal
	}
	return arcs
}

// arcClear reports whether the mover fits at the middle and quarter points of the arc
// of radius r about centre turning by the angle of sine |cr| and cosine co, whose middle
// lies towards -bis.
func arcClear(centre, bis mgl32.Vec2, r, cr, co float32, fits func(mgl32.Vec2) bool) bool {
	mid := geom.Axpy(centre, bis, -r)
	if !fits(mid) {
		return false
	}
	q := atan2(float32(math.Abs(float64(cr))), co) / 4
	for _, sgn := range [2]float32{1, -1} {
		if !fits(rotateAbout(centre, mid, sgn*q, r)) {
			return false
		}
	}
	return true
}

// arcOutward returns 1/cos(θ/2) for the angle θ a step turns on an arc of radius r
// (θ capped at 2 radians, so fast movers stay near the arc): a frame that ends on the
// arc ends that many radii from the centre, so that the chord from one such end to the
// next keeps r from the centre.
func arcOutward(step, r float32) float32 {
	_, c := sincos(min(step/r, 2) / 2)
	return 1 / c
}
