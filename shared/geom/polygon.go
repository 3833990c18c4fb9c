package geom

import (
	"errors"
	"strconv"

	"github.com/go-gl/mathgl/mgl32"
)

// Polygon is a simple polygon given by its vertices in order (either winding); the last
// vertex connects back to the first. Edge i runs from vertex i to vertex i+1 (mod n).
type Polygon []mgl32.Vec2

// Errors reported by Polygon.Validate, wrapped in a *VertexError when a vertex is at fault.
var (
	ErrTooFewVertices  = errors.New("geom: polygon has fewer than 3 vertices")
	ErrNonFinite       = errors.New("geom: coordinate is NaN or infinite")
	ErrDuplicateVertex = errors.New("geom: vertex repeats the previous one")
	ErrZeroArea        = errors.New("geom: polygon has zero area")
	ErrSelfIntersect   = errors.New("geom: polygon edges cross")
)

// VertexError names the vertex a polygon error is about. It unwraps to one of the Err values.
type VertexError struct {
	Index int
	Err   error
}

func (e *VertexError) Error() string {
	return "geom: vertex " + strconv.Itoa(e.Index) + ": " + trimPrefix(e.Err.Error())
}

func (e *VertexError) Unwrap() error { return e.Err }

func trimPrefix(s string) string {
	const p = "geom: "
	if len(s) >= len(p) && s[:len(p)] == p {
		return s[len(p):]
	}
	return s
}

// Validate checks that poly has at least three finite vertices, no vertex equal to its
// predecessor, no two non-adjacent edges that touch or cross (an O(n²) check) and non-zero
// area. It returns nil or an error matching one of the Err values with errors.Is; errors
// about a particular vertex are *VertexError (for crossing edges, the first vertex of the
// later edge).
func (poly Polygon) Validate() error {
	n := len(poly)
	if n < 3 {
		return ErrTooFewVertices
	}
	for i, v := range poly {
		if !Finite2(v) {
			return &VertexError{Index: i, Err: ErrNonFinite}
		}
		if v == poly[(i+n-1)%n] {
			return &VertexError{Index: i, Err: ErrDuplicateVertex}
		}
	}
	for i := range n {
		e1 := Segment{poly[i], poly[(i+1)%n]}
		for j := i + 2; j < n; j++ {
			if i == 0 && j == n-1 {
				continue // adjacent through the closing edge
			}
			e2 := Segment{poly[j], poly[(j+1)%n]}
			if c1, c2, _, _ := ClosestPointsSegmentSegment(e1, e2); c1 == c2 {
				return &VertexError{Index: j, Err: ErrSelfIntersect}
			}
		}
	}
	if poly.Area() == 0 {
		return ErrZeroArea
	}
	return nil
}

// Area returns the signed area of poly: positive for counter-clockwise vertices.
func (poly Polygon) Area() float32 {
	n := len(poly)
	if n < 3 {
		return 0
	}
	// Shoelace formula about the first vertex, which keeps the products small.
	var sum float32
	o := poly[0]
	for i := 1; i+1 < n; i++ {
		sum += Cross(Sub(poly[i], o), Sub(poly[i+1], o))
	}
	return float32(sum * 0.5)
}

// Contains reports whether p lies inside poly, by the even-odd (crossing-number) rule. Points
// exactly on the boundary may be reported either way (deterministically).
func (poly Polygon) Contains(p mgl32.Vec2) bool {
	n := len(poly)
	inside := false
	for i, j := 0, n-1; i < n; j, i = i, i+1 {
		a, b := poly[j], poly[i]
		// Half-open rule on y so that a vertex on the ray is counted once.
		if (a[1] > p[1]) != (b[1] > p[1]) {
			// x coordinate of the edge at height p.y, compared without division: the sign of
			// the orientation of (a, b, p) tells the side, flipped for downward edges.
			o := Cross(Sub(b, a), Sub(p, a))
			if (o > 0) == (b[1] > a[1]) {
				inside = !inside
			}
		}
	}
	return inside
}

// ClosestPointOnPolygon returns the point q of poly's boundary closest to p and the index of
// the edge it lies on (the first such edge on ties). An empty polygon gives p and -1; a single
// vertex gives that vertex and 0. Use Contains to tell whether p is inside.
func ClosestPointOnPolygon(p mgl32.Vec2, poly Polygon) (q mgl32.Vec2, edge int) {
	n := len(poly)
	if n == 0 {
		return p, -1
	}
	q, edge = poly[0], 0
	best := Dot(Sub(p, q), Sub(p, q))
	for i := range n {
		c, _ := ClosestPointOnSegment(p, Segment{poly[i], poly[(i+1)%n]})
		d := Sub(p, c)
		if d2 := Dot(d, d); d2 < best {
			q, edge, best = c, i, d2
		}
	}
	return q, edge
}
