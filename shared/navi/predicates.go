package navi

import (
	"math"
	"math/big"
)

// Robust geometric predicates. Each is evaluated in float64 first; when the
// result is smaller than a forward error bound (Shewchuk, "Adaptive Precision
// Floating-Point Arithmetic and Fast Robust Geometric Predicates", 1997) it
// is recomputed exactly with math/big rationals. The sign is therefore always
// exact for finite inputs, on every platform, which keeps the triangulation
// topologically consistent and identical between native and wasm builds.

var (
	epsilon     = math.Ldexp(1, -53)
	ccwErrBound = (3 + 16*epsilon) * epsilon
	iccErrBound = (10 + 96*epsilon) * epsilon
)

type vec2 struct{ x, y float64 }

// orient returns >0 when c lies to the left of a→b, <0 to the right, 0 on the line.
func orient(a, b, c vec2) int {
	detl := float64((a.x - c.x) * (b.y - c.y)) // conversions: no FMA
	detr := float64((a.y - c.y) * (b.x - c.x))
	det := detl - detr
	var detsum float64
	switch {
	case detl > 0:
		if detr <= 0 {
			return sign(det)
		}
		detsum = detl + detr
	case detl < 0:
		if detr >= 0 {
			return sign(det)
		}
		detsum = -detl - detr
	default:
		return sign(det)
	}
	if bound := ccwErrBound * detsum; det >= bound || -det >= bound {
		return sign(det)
	}
	return orientExact(a, b, c)
}

func sign(x float64) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

func rat(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }

func orientExact(a, b, c vec2) int {
	acx := new(big.Rat).Sub(rat(a.x), rat(c.x))
	bcy := new(big.Rat).Sub(rat(b.y), rat(c.y))
	acy := new(big.Rat).Sub(rat(a.y), rat(c.y))
	bcx := new(big.Rat).Sub(rat(b.x), rat(c.x))
	l := new(big.Rat).Mul(acx, bcy)
	r := new(big.Rat).Mul(acy, bcx)
	return l.Cmp(r)
}

// inCircle returns >0 when d lies strictly inside the circle through the
// counter-clockwise triangle a, b, c; <0 outside; 0 on it.
func inCircle(a, b, c, d vec2) int {
	adx, ady := a.x-d.x, a.y-d.y
	bdx, bdy := b.x-d.x, b.y-d.y
	cdx, cdy := c.x-d.x, c.y-d.y
	// Each product rounded by an explicit conversion: no FMA.
	bdxcdy, cdxbdy := float64(bdx*cdy), float64(cdx*bdy)
	alift := float64(adx*adx) + float64(ady*ady)
	cdxady, adxcdy := float64(cdx*ady), float64(adx*cdy)
	blift := float64(bdx*bdx) + float64(bdy*bdy)
	adxbdy, bdxady := float64(adx*bdy), float64(bdx*ady)
	clift := float64(cdx*cdx) + float64(cdy*cdy)
	det := float64(alift*(bdxcdy-cdxbdy)) + float64(blift*(cdxady-adxcdy)) + float64(clift*(adxbdy-bdxady))
	permanent := (math.Abs(bdxcdy)+math.Abs(cdxbdy))*alift +
		(math.Abs(cdxady)+math.Abs(adxcdy))*blift +
		(math.Abs(adxbdy)+math.Abs(bdxady))*clift
	if bound := iccErrBound * permanent; det > bound || -det > bound {
		return sign(det)
	}
	return inCircleExact(a, b, c, d)
}

func inCircleExact(a, b, c, d vec2) int {
	dx, dy := rat(d.x), rat(d.y)
	sub := func(p, q *big.Rat) *big.Rat { return new(big.Rat).Sub(p, q) }
	mul := func(p, q *big.Rat) *big.Rat { return new(big.Rat).Mul(p, q) }
	add := func(p, q *big.Rat) *big.Rat { return new(big.Rat).Add(p, q) }
	adx, ady := sub(rat(a.x), dx), sub(rat(a.y), dy)
	bdx, bdy := sub(rat(b.x), dx), sub(rat(b.y), dy)
	cdx, cdy := sub(rat(c.x), dx), sub(rat(c.y), dy)
	alift := add(mul(adx, adx), mul(ady, ady))
	blift := add(mul(bdx, bdx), mul(bdy, bdy))
	clift := add(mul(cdx, cdx), mul(cdy, cdy))
	det := mul(alift, sub(mul(bdx, cdy), mul(cdx, bdy)))
	det = add(det, mul(blift, sub(mul(cdx, ady), mul(adx, cdy))))
	det = add(det, mul(clift, sub(mul(adx, bdy), mul(bdx, ady))))
	return det.Sign()
}
