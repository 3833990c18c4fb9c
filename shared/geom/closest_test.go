package geom

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// refSegSegDist is the distance between two segments in float64: the smallest of the four
// endpoint-to-segment distances and, when the lines' closest points lie inside both
// segments, the distance between them.
func refSegSegDist(p1, q1, p2, q2 vec) float64 {
	best := math.Min(math.Min(refDistSegment(p1, p2, q2), refDistSegment(q1, p2, q2)),
		math.Min(refDistSegment(p2, p1, q1), refDistSegment(q2, p1, q1)))
	d1, d2, r := vsub(q1, p1), vsub(q2, p2), vsub(p1, p2)
	a, b, c, e, f := vdot(d1, d1), vdot(d1, d2), vdot(d1, r), vdot(d2, d2), vdot(d2, r)
	if den := a*e - b*b; den > 1e-12 {
		s, t := (b*f-c*e)/den, (a*f-b*c)/den
		if s >= 0 && s <= 1 && t >= 0 && t <= 1 {
			best = math.Min(best, vlen(vsub(vat(p1, d1, s), vat(p2, d2, t))))
		}
	}
	return best
}

func TestClosestPointsSegmentSegment(t *testing.T) {
	tests := []struct {
		name   string
		s1, s2 Segment
		c1, c2 mgl32.Vec2
		t1, t2 float32
	}{
		{"crossing", Segment{v2(0, 0), v2(4, 4)}, Segment{v2(0, 4), v2(4, 0)}, v2(2, 2), v2(2, 2), 0.5, 0.5},
		{"end to interior", Segment{v2(0, 0), v2(1, 0)}, Segment{v2(3, -1), v2(3, 1)}, v2(1, 0), v2(3, 0), 1, 0.5},
		{"both ends", Segment{v2(0, 0), v2(1, 1)}, Segment{v2(2, 3), v2(5, 5)}, v2(1, 1), v2(2, 3), 1, 0},
		{"parallel", Segment{v2(0, 0), v2(4, 0)}, Segment{v2(5, 1), v2(9, 1)}, v2(4, 0), v2(5, 1), 1, 0},
		{"point and segment", Segment{v2(1, 1), v2(1, 1)}, Segment{v2(0, 0), v2(2, 0)}, v2(1, 1), v2(1, 0), 0, 0.5},
		{"segment and point", Segment{v2(0, 0), v2(2, 0)}, Segment{v2(1, 1), v2(1, 1)}, v2(1, 0), v2(1, 1), 0.5, 0},
		{"two points", Segment{v2(1, 1), v2(1, 1)}, Segment{v2(0, 0), v2(0, 0)}, v2(1, 1), v2(0, 0), 0, 0},
	}
	for _, tc := range tests {
		c1, c2, t1, t2 := ClosestPointsSegmentSegment(tc.s1, tc.s2)
		if !near2(c1, tc.c1, 1e-6) || !near2(c2, tc.c2, 1e-6) || !near(t1, tc.t1, 1e-6) || !near(t2, tc.t2, 1e-6) {
			t.Errorf("%s: got %v %v %v %v, want %v %v %v %v", tc.name, c1, c2, t1, t2, tc.c1, tc.c2, tc.t1, tc.t2)
		}
	}
}

func TestClosestPointsSegmentSegmentRandom(t *testing.T) {
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, 7))
	for i := range randomCases {
		g := gen{rng: rng, snap: i%3 == 0}
		s1, s2 := Segment{g.v2(-5, 5), g.v2(-5, 5)}, Segment{g.v2(-5, 5), g.v2(-5, 5)}
		switch rng.IntN(8) {
		case 0: // parallel
			s2.B = Axpy(s2.A, Sub(s1.B, s1.A), g.f(-2, 2))
		case 1:
			s1.B = s1.A
		}
		c1, c2, t1, t2 := ClosestPointsSegmentSegment(s1, s2)
		p1, q1, p2, q2 := f64(to3(s1.A)), f64(to3(s1.B)), f64(to3(s2.A)), f64(to3(s2.B))
		want := refSegSegDist(p1, q1, p2, q2)
		got := vlen(vsub(f64(to3(c1)), f64(to3(c2))))
		on1 := vlen(vsub(f64(to3(c1)), vat(p1, vsub(q1, p1), float64(t1))))
		on2 := vlen(vsub(f64(to3(c2)), vat(p2, vsub(q2, p2), float64(t2))))
		if math.Abs(got-want) > 1e-4 || on1 > 1e-5 || on2 > 1e-5 || t1 < 0 || t1 > 1 || t2 < 0 || t2 > 1 {
			t.Fatalf("case %d: ClosestPointsSegmentSegment(%v, %v) = %v %v %v %v: distance %g, want %g",
				i, s1, s2, c1, c2, t1, t2, got, want)
		}
	}
}

func TestClosestPointOnAABB(t *testing.T) {
	b := AABB{v2(0, 0), v2(1, 2)}
	for _, tc := range []struct{ p, want mgl32.Vec2 }{
		{v2(0.5, 0.5), v2(0.5, 0.5)},
		{v2(-1, 5), v2(0, 2)},
		{v2(9, -9), v2(1, 0)},
		{v2(-3, 0.5), v2(0, 0.5)},
	} {
		if got := ClosestPointOnAABB(tc.p, b); got != tc.want {
			t.Errorf("ClosestPointOnAABB(%v) = %v, want %v", tc.p, got, tc.want)
		}
	}
}

func TestPolygon(t *testing.T) {
	// An L shape, counter-clockwise.
	l := Polygon{v2(0, 0), v2(4, 0), v2(4, 2), v2(2, 2), v2(2, 4), v2(0, 4)}
	if err := l.Validate(); err != nil {
		t.Fatal(err)
	}
	if a := l.Area(); a != 12 {
		t.Errorf("Area = %v, want 12", a)
	}
	rev := Polygon{v2(0, 4), v2(2, 4), v2(2, 2), v2(4, 2), v2(4, 0), v2(0, 0)}
	if a := rev.Area(); a != -12 {
		t.Errorf("clockwise Area = %v, want -12", a)
	}
	for _, tc := range []struct {
		p      mgl32.Vec2
		inside bool
		q      mgl32.Vec2
		edge   int
	}{
		{v2(0.5, 1), true, v2(0, 1), 5},
		{v2(1, 1), true, v2(1, 0), 0}, // equidistant from edges 0 and 5: the first wins
		{v2(3, 3), false, v2(3, 2), 2},
		{v2(1, 3.5), true, v2(1, 4), 4},
		{v2(5, 1), false, v2(4, 1), 1},
		{v2(-1, -1), false, v2(0, 0), 0},
		{v2(3, 2.5), false, v2(3, 2), 2}, // in the notch, level with no vertex
		{v2(1, 2), true, v2(2, 2), 2},    // level with the notch's vertices
	} {
		if got := l.Contains(tc.p); got != tc.inside {
			t.Errorf("Contains(%v) = %v, want %v", tc.p, got, tc.inside)
		}
		if got := rev.Contains(tc.p); got != tc.inside {
			t.Errorf("clockwise Contains(%v) = %v, want %v", tc.p, got, tc.inside)
		}
		if q, e := ClosestPointOnPolygon(tc.p, l); q != tc.q || e != tc.edge {
			t.Errorf("ClosestPointOnPolygon(%v) = %v, %d; want %v, %d", tc.p, q, e, tc.q, tc.edge)
		}
	}
	if q, e := ClosestPointOnPolygon(v2(1, 1), nil); q != v2(1, 1) || e != -1 {
		t.Errorf("empty polygon: %v, %d", q, e)
	}
}

func TestPolygonValidate(t *testing.T) {
	nan := float32(math.NaN())
	tests := []struct {
		name  string
		poly  Polygon
		err   error
		index int // -1: not a VertexError
	}{
		{"too few", Polygon{v2(0, 0), v2(1, 0)}, ErrTooFewVertices, -1},
		{"NaN", Polygon{v2(0, 0), v2(1, 0), v2(nan, 1)}, ErrNonFinite, 2},
		{"duplicate", Polygon{v2(0, 0), v2(1, 0), v2(1, 0), v2(0, 1)}, ErrDuplicateVertex, 2},
		{"closing duplicate", Polygon{v2(0, 0), v2(1, 0), v2(0, 1), v2(0, 0)}, ErrDuplicateVertex, 0},
		{"collinear", Polygon{v2(0, 0), v2(1, 0), v2(2, 0)}, ErrZeroArea, -1},
		{"bow tie", Polygon{v2(0, 0), v2(2, 2), v2(2, 0), v2(0, 2)}, ErrSelfIntersect, 2},
		{"touching vertex", Polygon{v2(0, 0), v2(4, 0), v2(4, 4), v2(2, 0), v2(0, 4)}, ErrSelfIntersect, 2},
	}
	for _, tc := range tests {
		err := tc.poly.Validate()
		if !errors.Is(err, tc.err) {
			t.Errorf("%s: Validate() = %v, want %v", tc.name, err, tc.err)
			continue
		}
		var ve *VertexError
		if got := errors.As(err, &ve); got != (tc.index >= 0) || got && ve.Index != tc.index {
			t.Errorf("%s: Validate() = %v (%#v), want vertex %d", tc.name, err, ve, tc.index)
		}
	}
	if got := (&VertexError{3, ErrNonFinite}).Error(); got != "geom: vertex 3: coordinate is NaN or infinite" {
		t.Errorf("VertexError.Error() = %q", got)
	}
}
