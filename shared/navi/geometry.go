package navi

import (
	"errors"
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/twinframe/twinframe/shared/geom"
)

// Kind says what a polygon adds to the space it covers.
type Kind uint8

// Polygon kinds. Where polygons overlap, an obstacle wins over a hole, and a
// hole wins over walkable ground.
const (
	// Walkable ground: agents walk on it and see across it.
	Walkable Kind = iota + 1
	// Obstacle is solid (a building, a prop): it blocks walking and sight.
	Obstacle
	// Hole is open space agents cannot walk on but can see across (water, a pit).
	Hole
	numKinds = 3
)

func (k Kind) String() string {
	switch k {
	case Walkable:
		return "walkable"
	case Obstacle:
		return "obstacle"
	case Hole:
		return "hole"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Flags describe a triangle of the mesh.
type Flags uint8

// Triangle flags.
const (
	// Walk: inside walkable ground and outside every obstacle and hole.
	Walk Flags = 1 << iota
	// Sight: outside every obstacle; line of sight passes.
	Sight
	// BlackOut: the triangle's centroid lies in a blackout zone (no spawning).
	BlackOut
	// Fly is reserved for flying movement; the builder never sets it yet.
	Fly
)

// Polygon is a simple polygon of one Kind. Points form a ring that closes
// implicitly; either winding order is accepted.
type Polygon struct {
	Kind   Kind
	Points []mgl32.Vec2
}

// Geometry is the input of Build: the region's bounds and its polygons.
// Every point must lie inside Bounds (the boundary included).
type Geometry struct {
	Bounds   geom.AABB
	Polygons []Polygon
	// Zones are circles the mesh should follow, typically the blackout
	// zones the region will add (Mesh.AddBlackOutZone flags triangles by
	// their centroids, so large triangles make a zone coarse). Build
	// makes each a ZoneSides-gon of constraint edges that block nothing,
	// with the circle's area, clipped to Bounds; a zone added later on the
	// same circle then flags triangles covering its area to within 1%
	// (TestZoneArea). Zones
	// with a radius that is not positive and finite, or a centre that is
	// not finite, are ignored.
	Zones []geom.Circle
}

// ZoneSides is the number of sides of the polygon Build makes of a
// Geometry zone. Its corners lie 1.3% outside the circle, so its area is
// the circle's (the midpoints of its sides lie 0.65% inside the circle).
const ZoneSides = 16

// Options tune Build. The zero value uses the defaults.
type Options struct {
	// MergeTolerance: points closer than this are merged into the first one
	// seen (default 1e-3 world units).
	MergeTolerance float32
	// GridCell is the cell size of the point-location hint grid (default:
	// chosen so the grid has about one cell per 8 triangles).
	GridCell float32
	// MaxSteinerPoints caps the points added where constraint edges cross
	// (default 4 × the input point count + 1024); exceeding it is an error.
	MaxSteinerPoints int
}

// Errors returned by Build, wrapped in an *InputError or directly.
var (
	ErrBounds           = errors.New("navi: bounds are empty or not finite")
	ErrKind             = errors.New("navi: unknown polygon kind")
	ErrNotFinite        = errors.New("navi: coordinate is NaN or infinite")
	ErrOutOfBounds      = errors.New("navi: point outside the bounds")
	ErrTooFewPoints     = errors.New("navi: polygon has fewer than 3 distinct points (open or degenerate)")
	ErrZeroArea         = errors.New("navi: polygon has zero area")
	ErrSelfIntersecting = errors.New("navi: polygon intersects itself")
	ErrTooComplex       = errors.New("navi: too many crossing constraint edges")
	ErrInternal         = errors.New("navi: internal triangulation error")
)

// InputError names the polygon and vertex at fault. Vertex is -1 when the
// error concerns the whole polygon; Other is a second vertex involved (for
// self-intersections), or -1.
type InputError struct {
	Polygon, Vertex, Other int
	Err                    error
}

func (e *InputError) Error() string {
	s := fmt.Sprintf("navi: polygon %d", e.Polygon)
	if e.Vertex >= 0 {
		s += fmt.Sprintf(" vertex %d", e.Vertex)
	}
	if e.Other >= 0 {
		s += fmt.Sprintf(" (with edge from vertex %d)", e.Other)
	}
	msg := e.Err.Error()
	if len(msg) > 6 && msg[:6] == "navi: " {
		msg = msg[6:]
	}
	return s + ": " + msg
}

func (e *InputError) Unwrap() error { return e.Err }

// cleanPolygon checks one polygon and returns its ring, counter-clockwise,
// with merged points as vertex ids. Repairs (documented on Build): an
// explicitly repeated closing point and consecutive points that merge are
// dropped; clockwise rings are reversed. orig maps ring positions to input
// vertex indices, for error messages.
func (b *builder) cleanPolygon(pi int, p Polygon) (ring []int32, err error) {
	if p.Kind < Walkable || p.Kind > Hole {
		return nil, &InputError{pi, -1, -1, ErrKind}
	}
	bd := b.bounds
	ring = make([]int32, 0, len(p.Points))
	orig := make([]int, 0, len(p.Points))
	for vi, q := range p.Points {
		if !geom.Finite(q[0]) || !geom.Finite(q[1]) {
			return nil, &InputError{pi, vi, -1, ErrNotFinite}
		}
		if q[0] < bd.Min[0] || q[1] < bd.Min[1] || q[0] > bd.Max[0] || q[1] > bd.Max[1] {
			return nil, &InputError{pi, vi, -1, ErrOutOfBounds}
		}
		id := b.addPoint(vec2{float64(q[0]), float64(q[1])})
		if len(ring) > 0 && ring[len(ring)-1] == id {
			continue // repair: consecutive duplicate
		}
		ring = append(ring, id)
		orig = append(orig, vi)
	}
	for len(ring) > 1 && ring[0] == ring[len(ring)-1] {
		ring, orig = ring[:len(ring)-1], orig[:len(orig)-1] // repair: explicit closing point
	}
	if len(ring) < 3 {
		return nil, &InputError{pi, -1, -1, ErrTooFewPoints}
	}
	// Repeated vertex (the ring touches itself).
	for i := range ring {
		for j := i + 1; j < len(ring); j++ {
			if ring[i] == ring[j] {
				return nil, &InputError{pi, orig[j], orig[i], ErrSelfIntersecting}
			}
		}
	}
	allCollinear := true
	for i := 1; i+1 < len(ring); i++ {
		if orient(b.pts[ring[0]], b.pts[ring[i]], b.pts[ring[i+1]]) != 0 {
			allCollinear = false
			break
		}
	}
	if allCollinear {
		return nil, &InputError{pi, -1, -1, ErrZeroArea}
	}
	// Self-intersection: every pair of non-adjacent edges must be disjoint,
	// adjacent edges must not fold back onto each other.
	n := len(ring)
	for i := 0; i < n; i++ {
		a0, a1 := b.pts[ring[i]], b.pts[ring[(i+1)%n]]
		for j := i + 1; j < n; j++ {
			b0, b1 := b.pts[ring[j]], b.pts[ring[(j+1)%n]]
			adjacent := j == i+1 || (i == 0 && j == n-1)
			if adjacent {
				// Shared vertex; they overlap only if collinear and pointing the same way.
				var shared, x, y vec2
				if j == i+1 {
					shared, x, y = a1, a0, b1
				} else {
					shared, x, y = a0, a1, b0
				}
				if orient(shared, x, y) == 0 && float64((x.x-shared.x)*(y.x-shared.x))+float64((x.y-shared.y)*(y.y-shared.y)) > 0 {
					return nil, &InputError{pi, orig[j], orig[i], ErrSelfIntersecting}
				}
				continue
			}
			if segmentsIntersect(a0, a1, b0, b1) {
				return nil, &InputError{pi, orig[j], orig[i], ErrSelfIntersecting}
			}
		}
	}
	// Area (exact sign through a fan of orientations is not enough for
	// zero-area detection, so use the shoelace sum in float64 plus the fan).
	area := 0.0
	p0 := b.pts[ring[0]]
	for i := 1; i+1 < len(ring); i++ {
		pa, pb := b.pts[ring[i]], b.pts[ring[i+1]]
		area += float64((pa.x-p0.x)*(pb.y-p0.y)) - float64((pa.y-p0.y)*(pb.x-p0.x))
	}
	tol := b.tol
	if math.Abs(area)/2 <= tol*tol {
		return nil, &InputError{pi, -1, -1, ErrZeroArea}
	}
	if area < 0 { // repair: clockwise ring
		for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
			ring[i], ring[j] = ring[j], ring[i]
		}
	}
	return ring, nil
}

// segmentsIntersect reports whether the closed segments p0p1 and q0q1 share a point.
func segmentsIntersect(p0, p1, q0, q1 vec2) bool {
	o1, o2 := orient(p0, p1, q0), orient(p0, p1, q1)
	o3, o4 := orient(q0, q1, p0), orient(q0, q1, p1)
	if o1*o2 < 0 && o3*o4 < 0 {
		return true
	}
	on := func(a, b, c vec2) bool { // c on segment ab, given collinear
		return math.Min(a.x, b.x) <= c.x && c.x <= math.Max(a.x, b.x) &&
			math.Min(a.y, b.y) <= c.y && c.y <= math.Max(a.y, b.y)
	}
	return (o1 == 0 && on(p0, p1, q0)) || (o2 == 0 && on(p0, p1, q1)) ||
		(o3 == 0 && on(q0, q1, p0)) || (o4 == 0 && on(q0, q1, p1))
}
