package navi

import "math"

// Robust geometric predicates. Each is evaluated in float64 first; when the
// result is smaller than a forward error bound (Shewchuk, "Adaptive Precision
// Floating-Point Arithmetic and Fast Robust Geometric Predicates", 1997) it
// is recomputed exactly with floating-point expansions (expansion.go) held
// in fixed-size arrays on the stack, so the fallback does not allocate. The
// sign is therefore exact for float32 coordinates (see expansion.go for the
// range), on every platform, which keeps the triangulation topologically
// consistent and identical between native and wasm builds.

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

// orientExact is the exact sign of the orientation determinant, written
// as ab + bc + ca with ab = ax·by − bx·ay (the cx·cy terms cancel): each
// 2×2 term is an exact 4-component expansion and their sum one of at most
// 12 components, whose largest component carries the sign.
func orientExact(a, b, c vec2) int {
	var ab, bc, ca [4]float64
	twoTwoDiffProducts(a.x, b.y, b.x, a.y, &ab)
	twoTwoDiffProducts(b.x, c.y, c.x, b.y, &bc)
	twoTwoDiffProducts(c.x, a.y, a.x, c.y, &ca)
	var t8 [8]float64
	var det [12]float64
	n := expansionSum(ab[:], bc[:], t8[:])
	n = expansionSum(t8[:n], ca[:], det[:])
	return expansionSign(det[:n])
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

// inCircleExact is the exact sign of the in-circle determinant, without
// translating to d (a difference of coordinates may round): Shewchuk's
// incircleexact, expanding the 4×4 lifted determinant by its last column
// into 2×2 minors of the original coordinates. Every intermediate is an
// expansion in a fixed-size array, so nothing escapes to the heap.
func inCircleExact(a, b, c, d vec2) int {
	var ab, bc, cd, da, ac, bd [4]float64
	twoTwoDiffProducts(a.x, b.y, b.x, a.y, &ab)
	twoTwoDiffProducts(b.x, c.y, c.x, b.y, &bc)
	twoTwoDiffProducts(c.x, d.y, d.x, c.y, &cd)
	twoTwoDiffProducts(d.x, a.y, a.x, d.y, &da)
	twoTwoDiffProducts(a.x, c.y, c.x, a.y, &ac)
	twoTwoDiffProducts(b.x, d.y, d.x, b.y, &bd)

	var t8 [8]float64
	var cda, dab, abc, bcd [12]float64
	n := expansionSum(cd[:], da[:], t8[:])
	cdaN := expansionSum(t8[:n], ac[:], cda[:])
	n = expansionSum(da[:], ab[:], t8[:])
	dabN := expansionSum(t8[:n], bd[:], dab[:])
	for i := range 4 {
		bd[i], ac[i] = -bd[i], -ac[i]
	}
	n = expansionSum(ab[:], bc[:], t8[:])
	abcN := expansionSum(t8[:n], ac[:], abc[:])
	n = expansionSum(bc[:], cd[:], t8[:])
	bcdN := expansionSum(t8[:n], bd[:], bcd[:])

	var adet, bdet, cdet, ddet [96]float64
	aN := liftTerm(bcd[:bcdN], a.x, a.y, 1, &adet)
	bN := liftTerm(cda[:cdaN], b.x, b.y, -1, &bdet)
	cN := liftTerm(dab[:dabN], c.x, c.y, 1, &cdet)
	dN := liftTerm(abc[:abcN], d.x, d.y, -1, &ddet)
	var abdet, cddet [192]float64
	var det [384]float64
	abN := expansionSum(adet[:aN], bdet[:bN], abdet[:])
	cdN := expansionSum(cdet[:cN], ddet[:dN], cddet[:])
	n = expansionSum(abdet[:abN], cddet[:cdN], det[:])
	return expansionSign(det[:n])
}

// liftTerm stores s·e·(x² + y²), s = ±1, in out and returns its length.
func liftTerm(e []float64, x, y, s float64, out *[96]float64) int {
	var t24, u24 [24]float64
	var x48, y48 [48]float64
	n := scaleExpansion(e, x, t24[:])
	xn := scaleExpansion(t24[:n], s*x, x48[:])
	n = scaleExpansion(e, y, u24[:])
	yn := scaleExpansion(u24[:n], s*y, y48[:])
	return expansionSum(x48[:xn], y48[:yn], out[:])
}
