package sim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/geom"
)

// TestSweepDiscMatchesGeom checks that sweepDisc gives geom.SweepCircleCircle's results
// to the bit on random discs of the simulation's sizes: positions over a 400 m region,
// motions up to a fast mover's, radii of NPCs and props, the other disc placed anywhere
// near, close to the swept path's edge, on the path, overlapping, or at the start.
func TestSweepDiscMatchesGeom(t *testing.T) {
	t.Parallel()
	const seed = 7
	rng := rand.New(rand.NewPCG(seed, 9))
	hits := 0
	for i := range 200000 {
		start := mgl32.Vec2{rng.Float32()*410 - 10, rng.Float32()*410 - 10}
		m := mgl32.Vec2{rng.Float32()*4 - 2, rng.Float32()*4 - 2}
		if i%97 == 0 {
			m = mgl32.Vec2{0, rng.Float32()*4 - 2} // along an axis
		}
		ra, rb := 0.1+rng.Float32()*1.4, 0.1+rng.Float32()*2
		rr := ra + rb
		var p mgl32.Vec2
		switch i % 5 {
		case 0: // anywhere near
			p = geom.Axpy(start, mgl32.Vec2{rng.Float32()*2 - 1, rng.Float32()*2 - 1}, 6)
		case 1: // near the edge of the swept path (grazing)
			u := rng.Float32()*1.4 - 0.2
			side := mgl32.Vec2{-m[1], m[0]}
			if n, l := geom.Unit(side); l > 0 {
				side = n
			}
			p = geom.Axpy(geom.Axpy(start, m, u), side, rr*(0.98+rng.Float32()*0.04))
		case 2: // on the path
			p = geom.Axpy(start, m, rng.Float32()*1.5)
		case 3: // overlapping or touching at the start
			p = geom.Axpy(start, mgl32.Vec2{rng.Float32()*2 - 1, rng.Float32()*2 - 1}, rr*0.7)
		default: // at the start, or exactly rr away along an axis
			if rng.IntN(2) == 0 {
				p = start
			} else {
				p = geom.Add(start, mgl32.Vec2{rr, 0})
			}
		}
		want, wok := geom.SweepCircleCircle(geom.Circle{Center: start, Radius: ra}, m, geom.Circle{Center: p, Radius: rb})
		d := geom.Sub(p, start)
		got, ok := sweepDisc(start, m, p, rb, d, geom.Dot(d, m), geom.LenSq(m), float32(rr*rr))
		if ok != wok || (ok && !sameHit(got, want)) {
			t.Fatalf("seed %d, case %d: sweepDisc(%v, %v, %v, %g, %g) = %+v %v, geom gives %+v %v",
				seed, i, start, m, p, ra, rb, got, ok, want, wok)
		}
		if ok {
			hits++
		}
	}
	if hits < 50000 {
		t.Fatalf("seed %d: only %d of the cases hit: the cases do not exercise the sweep", seed, hits)
	}
}

// sweepDisc is discT, then discHit for the contact: what sweepNear computes for a
// candidate that can become its first hit.
func sweepDisc(start, m, p mgl32.Vec2, r float32, d mgl32.Vec2, dm, mm, rr2 float32) (geom.Hit, bool) {
	t, ok := discT(d, m, geom.LenSq(d)-rr2, dm, mm, rr2)
	if !ok {
		return geom.Hit{}, false
	}
	return discHit(start, m, p, r, t), true
}

func sameHit(a, b geom.Hit) bool {
	bits := func(h geom.Hit) [5]uint32 {
		return [5]uint32{math.Float32bits(h.T), math.Float32bits(h.Point[0]), math.Float32bits(h.Point[1]),
			math.Float32bits(h.Normal[0]), math.Float32bits(h.Normal[1])}
	}
	return bits(a) == bits(b)
}
