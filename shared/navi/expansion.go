package navi

// Floating-point expansions (Shewchuk, "Adaptive Precision Floating-Point
// Arithmetic and Fast Robust Geometric Predicates", 1997): a number held
// exactly as a sum of float64 components that do not overlap, smallest
// first. The exact predicates build their determinants from these in
// fixed-size arrays, so they never allocate.
//
// The operations are exact as long as nothing overflows or underflows,
// which holds for coordinates that are float32 values (every mesh vertex
// and query point is one): the largest term, a product of four
// coordinates, stays far inside float64's range, and so does the smallest
// rounding error of one.
//
// Every product is rounded by an explicit float64 conversion, so the
// compiler cannot fuse it with the following addition (docs/ARCHITECTURE.md §6): the
// error-free transformations below depend on each operation rounding once.

// splitter is 2^27 + 1: Split cuts a float64 into two 26-bit halves.
const splitter = 1<<27 + 1

// twoSum returns x = fl(a+b) and the exact error y = a + b − x.
func twoSum(a, b float64) (x, y float64) {
	x = a + b
	bv := x - a
	av := x - bv
	return x, (a - av) + (b - bv)
}

// fastTwoSum is twoSum for |a| ≥ |b|.
func fastTwoSum(a, b float64) (x, y float64) {
	x = a + b
	return x, b - (x - a)
}

// twoDiff returns x = fl(a−b) and the exact error y = a − b − x.
func twoDiff(a, b float64) (x, y float64) {
	x = a - b
	bv := a - x
	av := x + bv
	return x, (a - av) + (bv - b)
}

// split returns hi + lo = a with each half fitting in 26 bits.
func split(a float64) (hi, lo float64) {
	c := float64(splitter * a)
	hi = c - (c - a)
	return hi, a - hi
}

// twoProduct returns x = fl(a·b) and the exact error y = a·b − x.
func twoProduct(a, b float64) (x, y float64) {
	x = float64(a * b)
	ahi, alo := split(a)
	bhi, blo := split(b)
	return x, twoProductErr(x, ahi, alo, bhi, blo)
}

func twoProductErr(x, ahi, alo, bhi, blo float64) float64 {
	e := x - float64(ahi*bhi)
	e -= float64(alo * bhi)
	e -= float64(ahi * blo)
	return float64(alo*blo) - e
}

// twoTwoDiffProducts stores a·b − c·d exactly, as four components, in out.
func twoTwoDiffProducts(a, b, c, d float64, out *[4]float64) {
	a1, a0 := twoProduct(a, b)
	b1, b0 := twoProduct(c, d)
	// (a1 + a0) − b0, then − b1 (Shewchuk's Two_Two_Diff).
	i, x0 := twoDiff(a0, b0)
	j, k := twoSum(a1, i)
	i, x1 := twoDiff(k, b1)
	x3, x2 := twoSum(j, i)
	*out = [4]float64{x0, x1, x2, x3}
}

// expansionSum stores e + f in h (len(h) ≥ len(e) + len(f)) without zero
// components and returns its length, at least 1. e and f are non-empty.
// (Shewchuk's fast_expansion_sum_zeroelim, with twoSum in place of its
// first fastTwoSum: both give the same exact result there.)
func expansionSum(e, f, h []float64) int {
	i, j := 0, 0
	// take returns the next component of smaller magnitude of e and f.
	take := func() float64 {
		if j >= len(f) || (i < len(e) && (f[j] > e[i]) == (f[j] > -e[i])) {
			i++
			return e[i-1]
		}
		j++
		return f[j-1]
	}
	q := take()
	n := 0
	for i < len(e) || j < len(f) {
		var hh float64
		q, hh = twoSum(q, take())
		if hh != 0 {
			h[n] = hh
			n++
		}
	}
	if q != 0 || n == 0 {
		h[n] = q
		n++
	}
	return n
}

// scaleExpansion stores e·b in h (len(h) ≥ 2·len(e)) without zero
// components and returns its length, at least 1. e is non-empty.
func scaleExpansion(e []float64, b float64, h []float64) int {
	bhi, blo := split(b)
	prod := func(a float64) (x, y float64) {
		x = float64(a * b)
		ahi, alo := split(a)
		return x, twoProductErr(x, ahi, alo, bhi, blo)
	}
	q, hh := prod(e[0])
	n := 0
	if hh != 0 {
		h[n] = hh
		n++
	}
	for _, c := range e[1:] {
		p1, p0 := prod(c)
		sum, hh := twoSum(q, p0)
		if hh != 0 {
			h[n] = hh
			n++
		}
		q, hh = fastTwoSum(p1, sum)
		if hh != 0 {
			h[n] = hh
			n++
		}
	}
	if q != 0 || n == 0 {
		h[n] = q
		n++
	}
	return n
}

// expansionSign returns the sign of a zero-eliminated expansion: that of
// its largest (last) component.
func expansionSign(e []float64) int { return sign(e[len(e)-1]) }
