package geom

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

const tolT = 1e-5

func v2(x, y float32) mgl32.Vec2 { return mgl32.Vec2{x, y} }

func near(a, b, tol float32) bool { return float32(math.Abs(float64(a-b))) <= tol }

func near2(a, b mgl32.Vec2, tol float32) bool { return near(a[0], b[0], tol) && near(a[1], b[1], tol) }

func checkHit2(t *testing.T, name string, got Hit, gotOK bool, want Hit, wantOK bool) {
	t.Helper()
	if gotOK != wantOK {
		t.Errorf("%s: hit = %v (%+v), want %v", name, gotOK, got, wantOK)
		return
	}
	if !wantOK {
		return
	}
	if !near(got.T, want.T, tolT) || !near2(got.Point, want.Point, 1e-4) || !near2(got.Normal, want.Normal, 1e-4) {
		t.Errorf("%s: got %+v, want %+v", name, got, want)
	}
}

var s2 = float32(math.Sqrt2)

func TestSweepCircleSegment(t *testing.T) {
	wall := Segment{v2(5, -3), v2(5, 3)}
	tests := []struct {
		name   string
		c      Circle
		motion mgl32.Vec2
		s      Segment
		want   Hit
		ok     bool
	}{
		{"face head-on", Circle{v2(0, 0), 1}, v2(10, 0), wall, Hit{0.4, v2(5, 0), v2(-1, 0)}, true},
		{"face from the other side", Circle{v2(10, 1), 1}, v2(-10, 0), wall, Hit{0.4, v2(5, 1), v2(1, 0)}, true},
		{"face oblique", Circle{v2(0, 0), 1}, v2(8, 4), wall, Hit{0.5, v2(5, 2), v2(-1, 0)}, true},
		{"too short", Circle{v2(0, 0), 1}, v2(3.9, 0), wall, Hit{}, false},
		{"exactly reaches", Circle{v2(0, 0), 1}, v2(4, 0), wall, Hit{1, v2(5, 0), v2(-1, 0)}, true},
		{"parallel miss", Circle{v2(0, 0), 1}, v2(0, 10), wall, Hit{}, false},
		{"moving away", Circle{v2(0, 0), 1}, v2(-10, 0), wall, Hit{}, false},
		{"zero motion apart", Circle{v2(0, 0), 1}, v2(0, 0), wall, Hit{}, false},
		// The path passes the end B = (5,3) within the band of the infinite line but the centre
		// stays beyond the end: only the end disc can be hit.
		{"end cap", Circle{v2(0, 4), 1}, v2(10, 0), wall, Hit{0.5, v2(5, 3), v2(0, 1)}, true},
		{"end cap diagonal", Circle{v2(0, 8), 1}, v2(10, -10), Segment{v2(5, 3), v2(5, -3)},
			Hit{(5 - 1/s2) / 10, v2(5, 3), v2(-1/s2, 1/s2)}, true},
		// Passes the corner diagonally just outside the radius: the strip test alone (the
		// "expanded" shape) would hit, the capsule must not.
		{"end cap near miss", Circle{v2(0, 9.6), 1}, v2(10, -10), Segment{v2(5, 3), v2(5, -3)}, Hit{}, false},
		{"along the line into the end", Circle{v2(5, 10), 1}, v2(0, -10), wall, Hit{0.6, v2(5, 3), v2(0, 1)}, true},
		{"touching, moving in", Circle{v2(4, 0), 1}, v2(1, 0), wall, Hit{0, v2(5, 0), v2(-1, 0)}, true},
		{"touching, moving away", Circle{v2(4, 0), 1}, v2(-1, 0), wall, Hit{}, false},
		{"touching, sliding", Circle{v2(4, 0), 1}, v2(0, 1), wall, Hit{}, false},
		{"overlapping start", Circle{v2(4.5, 0), 1}, v2(-1, 0), wall, Hit{0, v2(5, 0), v2(-1, 0)}, true},
		{"overlapping, zero motion", Circle{v2(5.5, 1), 1}, v2(0, 0), wall, Hit{0, v2(5, 1), v2(1, 0)}, true},
		{"centre on segment, moving right", Circle{v2(5, 0), 1}, v2(1, 0), wall, Hit{0, v2(5, 0), v2(-1, 0)}, true},
		{"centre on segment, moving left", Circle{v2(5, 0), 1}, v2(-1, 0), wall, Hit{0, v2(5, 0), v2(1, 0)}, true},
		{"centre on segment, still", Circle{v2(5, 0), 1}, v2(0, 0), wall, Hit{0, v2(5, 0), v2(-1, 0)}, true},
		{"degenerate segment", Circle{v2(0, 0), 1}, v2(10, 0), Segment{v2(5, 0), v2(5, 0)}, Hit{0.4, v2(5, 0), v2(-1, 0)}, true},
		{"zero radius", Circle{v2(0, 0), 0}, v2(10, 0), wall, Hit{0.5, v2(5, 0), v2(-1, 0)}, true},
		{"zero radius through the end", Circle{v2(0, 3), 0}, v2(10, 0), wall, Hit{0.5, v2(5, 3), v2(-1, 0)}, true},
		{"negative radius", Circle{v2(0, 0), -1}, v2(10, 0), wall, Hit{}, false},
		{"NaN motion", Circle{v2(0, 0), 1}, v2(float32(math.NaN()), 0), wall, Hit{}, false},
		{"Inf segment", Circle{v2(0, 0), 1}, v2(10, 0), Segment{v2(5, float32(math.Inf(-1))), v2(5, 3)}, Hit{}, false},
	}
	for _, tc := range tests {
		got, ok := SweepCircleSegment(tc.c, tc.motion, tc.s)
		checkHit2(t, tc.name, got, ok, tc.want, tc.ok)
	}
}

func TestSweepCircleCircle(t *testing.T) {
	other := Circle{v2(6, 0), 2}
	tests := []struct {
		name   string
		c      Circle
		motion mgl32.Vec2
		want   Hit
		ok     bool
	}{
		{"head-on", Circle{v2(0, 0), 1}, v2(6, 0), Hit{0.5, v2(4, 0), v2(-1, 0)}, true},
		{"grazing", Circle{v2(0, 3), 1}, v2(12, 0), Hit{0.5, v2(6, 2), v2(0, 1)}, true},
		{"near miss", Circle{v2(0, 3.01), 1}, v2(12, 0), Hit{}, false},
		// |(x, 2)| = 3 at x = -√5: T = (6 - √5)/12.
		{"oblique", Circle{v2(0, 2), 1}, v2(12, 0), Hit{(6 - float32(math.Sqrt(5))) / 12,
			v2(6-2*float32(math.Sqrt(5))/3, 4.0/3), v2(-float32(math.Sqrt(5))/3, 2.0/3)}, true},
		{"short", Circle{v2(0, 0), 1}, v2(2.9, 0), Hit{}, false},
		{"away", Circle{v2(0, 0), 1}, v2(-6, 0), Hit{}, false},
		{"overlap", Circle{v2(4, 0), 1}, v2(-6, 0), Hit{0, v2(4, 0), v2(-1, 0)}, true},
		{"concentric, moving", Circle{v2(6, 0), 1}, v2(0, 3), Hit{0, v2(6, -2), v2(0, -1)}, true},
		{"concentric, still", Circle{v2(6, 0), 1}, v2(0, 0), Hit{0, v2(8, 0), v2(1, 0)}, true},
		{"still apart", Circle{v2(0, 0), 1}, v2(0, 0), Hit{}, false},
	}
	for _, tc := range tests {
		got, ok := SweepCircleCircle(tc.c, tc.motion, other)
		checkHit2(t, tc.name, got, ok, tc.want, tc.ok)
	}
}

func TestSweepCirclePoint(t *testing.T) {
	p := v2(3, 4)
	tests := []struct {
		name   string
		c      Circle
		motion mgl32.Vec2
		want   Hit
		ok     bool
	}{
		{"head-on", Circle{v2(0, 4), 1}, v2(4, 0), Hit{0.5, p, v2(-1, 0)}, true},
		{"diagonal", Circle{v2(0, 0), 1}, v2(6, 8), Hit{0.4, p, v2(-0.6, -0.8)}, true},
		{"miss", Circle{v2(0, 2.9), 1}, v2(10, 0), Hit{}, false},
		{"inside", Circle{v2(3, 4.5), 1}, v2(1, 0), Hit{0, p, v2(0, 1)}, true},
		{"on the point", Circle{v2(3, 4), 1}, v2(0, -2), Hit{0, p, v2(0, 1)}, true},
		{"zero radius through", Circle{v2(0, 4), 0}, v2(6, 0), Hit{0.5, p, v2(-1, 0)}, true},
	}
	for _, tc := range tests {
		got, ok := SweepCirclePoint(tc.c, tc.motion, p)
		checkHit2(t, tc.name, got, ok, tc.want, tc.ok)
	}
}

func TestClosestPointOnSegment(t *testing.T) {
	s := Segment{v2(0, 0), v2(4, 0)}
	tests := []struct {
		p     mgl32.Vec2
		s     Segment
		wantQ mgl32.Vec2
		wantT float32
	}{
		{v2(1, 5), s, v2(1, 0), 0.25},
		{v2(-1, 1), s, v2(0, 0), 0},
		{v2(9, -1), s, v2(4, 0), 1},
		{v2(2, 0), s, v2(2, 0), 0.5},
		{v2(7, 7), Segment{v2(1, 1), v2(1, 1)}, v2(1, 1), 0},
		{v2(-2, 2), Segment{v2(-2, 0), v2(2, 4)}, v2(-1, 1), 0.25},
	}
	for _, tc := range tests {
		q, u := ClosestPointOnSegment(tc.p, tc.s)
		if !near2(q, tc.wantQ, 1e-6) || !near(u, tc.wantT, 1e-6) {
			t.Errorf("ClosestPointOnSegment(%v, %v) = %v, %v; want %v, %v", tc.p, tc.s, q, u, tc.wantQ, tc.wantT)
		}
	}
}
