package sim

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/geom"
)

// The clearance field lets a wall query skip the walls when nothing is near. Nearly
// every physics sweep of a crowd is far from any wall (in a 10k-NPC frame, 97% of the
// wall sweeps found no edge close enough to test), yet each one scanned the edges of
// the wall cells its box touched. The field holds, for each square of clrSize metres,
// a lower bound of the distance from any point of the square to the nearest blocking
// edge, so that one byte read says that a disc swept from a point cannot reach a wall.
// It only skips queries that would have found nothing: results are the same bits.

const (
	clrSize float32 = 0.5      // side of a clearance square
	clrUnit float32 = 1.0 / 16 // metres per step of the stored clearance
	// clrCap bounds the stored clearance (and the work of building the field): a query
	// that needs more scans the walls as it would without the field.
	clrCap float32 = 1
	// clrMargin is taken off every computed distance, far beyond float32 rounding at
	// a region's coordinates, so that the bound is never above the true distance.
	clrMargin float32 = 1e-3
	// clrFar is the clearance the field's bit set answers for: a bit per square says
	// "at least clrFar", enough for a walking NPC (radius 0.4 m, a step of 0.125 m and
	// the slack: 0.59 m) in 89% of a 10k crowd's moves.
	clrFarQ         = 10
	clrFar  float32 = clrFarQ * clrUnit
)

// clearance is the clearance field of a wall grid: w×h squares from org, with a ring
// of squares of clearance 0 around the region's bounds, so that a lookup needs no
// clamping.
//
// Every mover of a frame asks the field once, and in a 10k crowd the byte's line is
// seldom cached (149 KB for the default region, read at scattered places between
// passes over the entities). The bit field far (1 bit per square: 19 KB) answers most
// queries; the byte is read only where the bit is 0 or the query asks for more.
type clearance struct {
	org  mgl32.Vec2
	inv  float32 // 1 / clrSize
	w, h uint
	q    []uint8  // per square: the clearance in clrUnit steps, rounded down
	far  []uint64 // bit k: q[k] ≥ clrFarQ
}

// build computes the field over bounds from the blocking edges segs: each edge lowers
// the squares within clrCap of it to its distance from the square's centre minus the
// square's half diagonal.
func (c *clearance) build(bounds geom.AABB, segs []geom.Segment) {
	c.org = geom.Sub(bounds.Min, vec(clrSize))
	c.inv = 1 / clrSize
	c.w = uint((bounds.Max[0]-bounds.Min[0])*c.inv) + 3
	c.h = uint((bounds.Max[1]-bounds.Min[1])*c.inv) + 3
	capQ := uint8(clrCap / clrUnit)
	c.q = make([]uint8, c.w*c.h)
	for y := uint(1); y+1 < c.h; y++ {
		row := c.q[y*c.w : (y+1)*c.w]
		for x := 1; x+1 < len(row); x++ {
			row[x] = capQ
		}
	}
	half := float32(clrSize * 0.7072) // half a square's diagonal, rounded up
	far := clrCap + half + clrMargin  // a centre this far from an edge keeps the cap
	for _, s := range segs {
		ab := geom.Sub(s.B, s.A)
		inv := float32(0)
		if l2 := geom.Dot(ab, ab); l2 > 0 {
			inv = 1 / l2
		}
		x0, y0 := c.square(geom.Sub(lo2(s.A, s.B), vec(far)))
		x1, y1 := c.square(geom.Add(hi2(s.A, s.B), vec(far)))
		for y := y0; y <= y1; y++ {
			cy := c.org[1] + float32((float32(y)+0.5)*clrSize)
			for x := x0; x <= x1; x++ {
				cx := c.org[0] + float32((float32(x)+0.5)*clrSize)
				// The distance from the centre to the closest point of the edge.
				d := mgl32.Vec2{cx - s.A[0], cy - s.A[1]}
				t := float32(geom.Dot(d, ab) * inv)
				if t < 0 {
					t = 0
				} else if t > 1 {
					t = 1
				}
				d2 := geom.LenSq(geom.Sub(d, geom.Scale(ab, t)))
				if d2 >= float32(far*far) {
					continue
				}
				k := y*c.w + x
				v := float32(math.Sqrt(float64(d2))) - half - clrMargin
				if !(v > 0) {
					c.q[k] = 0
				} else if q := uint8(v / clrUnit); q < c.q[k] {
					c.q[k] = q
				}
			}
		}
	}
	c.far = make([]uint64, (len(c.q)+63)/64)
	for k, q := range c.q {
		if q >= clrFarQ {
			c.far[k/64] |= 1 << (k % 64)
		}
	}
}

// square returns the square of p, clamped to the field.
func (c *clearance) square(p mgl32.Vec2) (x, y uint) {
	fx := min(max((p[0]-c.org[0])*c.inv, 0), float32(c.w-1))
	fy := min(max((p[1]-c.org[1])*c.inv, 0), float32(c.h-1))
	return uint(fx), uint(fy)
}

// clearOf returns a lower bound of the distance from p to the nearest blocking edge
// (at most clrCap; 0 outside the region's bounds and for NaN). It is small enough to
// inline.
func (c *clearance) clearOf(p mgl32.Vec2) float32 {
	// Negative values (beyond the ring), NaN and infinities become huge unsigned ones.
	x, y := uint(int((p[0]-c.org[0])*c.inv)), uint(int((p[1]-c.org[1])*c.inv))
	if x >= c.w || y >= c.h {
		return 0
	}
	return float32(c.q[y*c.w+x]) * clrUnit
}

// beyond reports whether the clearance at p exceeds d ≥ 0, as clearOf(p) > d does
// (the same answer for every such d), reading the square's bit first: when it is set
// and d is below clrFar, the byte need not be read. (It is a little too large to
// inline; a call costs less than the cache miss it spares.)
func (c *clearance) beyond(p mgl32.Vec2, d float32) bool {
	x, y := uint(int((p[0]-c.org[0])*c.inv)), uint(int((p[1]-c.org[1])*c.inv))
	if x >= c.w || y >= c.h {
		return false // clearOf says 0, and d is not negative
	}
	k := y*c.w + x
	if d < clrFar && c.far[k>>6]>>(k&63)&1 != 0 {
		return true
	}
	return float32(c.q[k])*clrUnit > d
}
