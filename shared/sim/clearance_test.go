package sim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/geom"
)

// nearestWall returns the distance from p to the nearest blocking edge, by brute force.
func nearestWall(w *wallGrid, p mgl32.Vec2) float32 {
	best := float32(1e9)
	for _, s := range w.segs {
		q, _ := geom.ClosestPointOnSegment(p, s)
		best = min(best, geom.Dist(p, q))
	}
	return best
}

// TestClearanceIsALowerBound: at random points of the default region (and around its
// walls' ends, where a square's corner is closest), the clearance never exceeds the
// distance to the nearest wall, and it is not uselessly low in open ground.
func TestClearanceIsALowerBound(t *testing.T) {
	t.Parallel()
	const seed = 11
	w := &quiet(t).Region(0).walls
	rng := rand.New(rand.NewPCG(seed, 1))
	pts := make([]mgl32.Vec2, 0, 30000)
	for range 20000 {
		pts = append(pts, mgl32.Vec2{rng.Float32()*200 - 4, rng.Float32()*200 - 4}) // and a little outside
	}
	for _, s := range w.segs[:min(len(w.segs), 2000)] {
		for _, end := range [2]mgl32.Vec2{s.A, s.B} {
			pts = append(pts, geom.Add(end, mgl32.Vec2{(rng.Float32()*2 - 1) * 3, (rng.Float32()*2 - 1) * 3}))
		}
	}
	open := 0
	for _, p := range pts {
		got, want := w.clr.clearOf(p), nearestWall(w, p)
		if got > want {
			t.Fatalf("seed %d: clearance %g at %v, but a wall is %g away", seed, got, p, want)
		}
		if inside := p[0] >= 0 && p[1] >= 0 && p[0] < 192 && p[1] < 192; inside && want > clrCap+1 && got < clrCap {
			t.Errorf("seed %d: clearance %g at %v, %g from the nearest wall: want the cap %g", seed, got, p, want, clrCap)
		}
		if got > 0 {
			open++
		}
	}
	if open < len(pts)/2 {
		t.Errorf("only %d of %d points have a clearance", open, len(pts))
	}
}

// TestWallQueriesSkipOnlyMisses: the wall sweep and the clear test give the same
// results with the clearance field as without it, for random discs and motions of
// the lengths movers and projectiles use.
func TestWallQueriesSkipOnlyMisses(t *testing.T) {
	t.Parallel()
	const seed = 12
	w := &quiet(t).Region(0).walls
	bare := *w
	bare.clr = clearance{}
	rng := rand.New(rand.NewPCG(seed, 2))
	skipped := 0
	for i := range 50000 {
		c := geom.Circle{Center: mgl32.Vec2{rng.Float32() * 192, rng.Float32() * 192}, Radius: 0.1 + rng.Float32()*0.6}
		l := []float32{0.02, 0.15, 0.5, 3}[i%4]
		m := mgl32.Vec2{(rng.Float32()*2 - 1) * l, (rng.Float32()*2 - 1) * l}
		h1, ok1 := w.sweep(c, m)
		h2, ok2 := bare.sweep(c, m)
		if ok1 != ok2 || h1 != h2 {
			t.Fatalf("seed %d: sweep of %v by %v: %v %v with the field, %v %v without", seed, c, m, h1, ok1, h2, ok2)
		}
		if w.clear(c.Center, c.Radius) != bare.clear(c.Center, c.Radius) {
			t.Fatalf("seed %d: clear(%v, %g) differs with the field", seed, c.Center, c.Radius)
		}
		if w.near(c.Center, c.Radius+abs32(m[0])+abs32(m[1])) {
			continue
		}
		skipped++
		// What moveEntity relies on: no sweep that stays within |m| of the centre
		// (a slide from part of the way, in another direction) meets a wall either.
		u := rng.Float32()
		p := geom.Axpy(c.Center, m, u)
		slide := geom.Scale(mgl32.Vec2{-m[1], m[0]}, 1-u)
		if h, ok := bare.sweep(geom.Circle{Center: p, Radius: c.Radius}, slide); ok {
			t.Fatalf("seed %d: the field says no wall near %v (radius %g, motion %v), but a slide from %v by %v hits %v",
				seed, c.Center, c.Radius, m, p, slide, h)
		}
	}
	t.Logf("%d of 50000 sweeps skipped the walls", skipped)
	if skipped == 0 {
		t.Error("the field skipped no sweep")
	}
}

// TestClearanceBitAgrees: beyond, which reads a square's bit before its byte, answers
// as the byte alone does (clearOf(p) > d) for random points and distances on both
// sides of clrFar, and the bit answers for most open ground.
func TestClearanceBitAgrees(t *testing.T) {
	t.Parallel()
	const seed = 13
	c := &quiet(t).Region(0).walls.clr
	rng := rand.New(rand.NewPCG(seed, 3))
	byBit := 0
	for i := range 100000 {
		p := mgl32.Vec2{rng.Float32()*200 - 4, rng.Float32()*200 - 4}
		d := rng.Float32() * 1.2
		if i%8 == 0 {
			d = float32(int(d*16)) / 16 // on a step of the field: ties
		}
		if got, want := c.beyond(p, d), c.clearOf(p) > d; got != want {
			t.Fatalf("seed %d: beyond(%v, %g) = %v, clearOf = %g", seed, p, d, got, c.clearOf(p))
		}
		if d < clrFar && c.clearOf(p) >= clrFar {
			byBit++
		}
	}
	if byBit < 10000 {
		t.Errorf("the bit answered only %d of 100000 queries", byBit)
	}
	for _, p := range []mgl32.Vec2{{-1e30, 5}, {5, 1e30}, {float32(math.NaN()), 5}, {5, float32(math.Inf(-1))}} {
		if c.beyond(p, 0) {
			t.Errorf("beyond(%v, 0): true outside the field", p)
		}
	}
}
