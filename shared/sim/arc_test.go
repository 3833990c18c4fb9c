package sim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/sim/locomotion"

	"github.com/twinframe/twinframe/shared/geom"
)

func near(a, b mgl32.Vec2, tol float32) bool { return geom.Dist(a, b) <= tol }

func TestTangent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		pa     mgl32.Vec2
		ra     float32
		pb     mgl32.Vec2
		rb     float32
		ok     bool
		from   mgl32.Vec2 // checked when ok
		to     mgl32.Vec2
		u      mgl32.Vec2
		inexct bool // from, to and u only satisfy the tangent conditions
	}{
		{"point to point", mgl32.Vec2{0, 0}, 0, mgl32.Vec2{3, 4}, 0, true, mgl32.Vec2{0, 0}, mgl32.Vec2{3, 4}, mgl32.Vec2{0.6, 0.8}, false},
		{"outer, both left", mgl32.Vec2{0, 0}, 1, mgl32.Vec2{10, 0}, 1, true, mgl32.Vec2{0, -1}, mgl32.Vec2{10, -1}, mgl32.Vec2{1, 0}, false},
		{"outer, both right", mgl32.Vec2{0, 0}, -1, mgl32.Vec2{10, 0}, -1, true, mgl32.Vec2{0, 1}, mgl32.Vec2{10, 1}, mgl32.Vec2{1, 0}, false},
		{"inner, left to right", mgl32.Vec2{0, 0}, 1, mgl32.Vec2{10, 0}, -1, true, mgl32.Vec2{}, mgl32.Vec2{}, mgl32.Vec2{}, true},
		{"point to a left circle", mgl32.Vec2{0, 0}, 0, mgl32.Vec2{5, 5}, 2, true, mgl32.Vec2{}, mgl32.Vec2{}, mgl32.Vec2{}, true},
		{"left circle to a point", mgl32.Vec2{5, 5}, 2, mgl32.Vec2{0, 0}, 0, true, mgl32.Vec2{}, mgl32.Vec2{}, mgl32.Vec2{}, true},
		{"point inside the circle", mgl32.Vec2{0, 0}, 0, mgl32.Vec2{0.5, 0}, 1, false, mgl32.Vec2{}, mgl32.Vec2{}, mgl32.Vec2{}, false},
		{"inner tangent of overlapping circles", mgl32.Vec2{0, 0}, 1, mgl32.Vec2{1.5, 0}, -1, false, mgl32.Vec2{}, mgl32.Vec2{}, mgl32.Vec2{}, false},
		{"same centre", mgl32.Vec2{2, 2}, 1, mgl32.Vec2{2, 2}, 1, false, mgl32.Vec2{}, mgl32.Vec2{}, mgl32.Vec2{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			from, to, u, ok := tangent(tc.pa, tc.ra, tc.pb, tc.rb)
			if ok != tc.ok {
				t.Fatalf("ok %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			if !tc.inexct && (!near(from, tc.from, 1e-5) || !near(to, tc.to, 1e-5) || !near(u, tc.u, 1e-5)) {
				t.Fatalf("got %v → %v along %v, want %v → %v along %v", from, to, u, tc.from, tc.to, tc.u)
			}
			// The conditions: u is a unit vector from from to to; each centre lies at its
			// signed radius on the left of the line (so a Left node turns counter-clockwise).
			if l := geom.Len(u); math.Abs(float64(l-1)) > 1e-5 {
				t.Errorf("|u| = %v", l)
			}
			if d := geom.Sub(to, from); geom.Dot(d, u) < 0 || math.Abs(float64(geom.Cross(u, d))) > 1e-4 {
				t.Errorf("from %v to %v is not along %v", from, to, u)
			}
			for _, c := range []struct {
				centre, p mgl32.Vec2
				r         float32
			}{{tc.pa, from, tc.ra}, {tc.pb, to, tc.rb}} {
				if got := geom.Cross(u, geom.Sub(c.centre, c.p)); math.Abs(float64(got-c.r)) > 1e-4 {
					t.Errorf("centre %v lies %v left of the line at %v, want %v", c.centre, got, c.p, c.r)
				}
				if got := geom.Dot(u, geom.Sub(c.centre, c.p)); math.Abs(float64(got)) > 1e-4 {
					t.Errorf("centre %v is not abeam of the tangent point %v", c.centre, c.p)
				}
			}
		})
	}
}

func TestSincos(t *testing.T) {
	t.Parallel()
	for x := float32(-math.Pi - 1); x <= math.Pi+1; x += 0.001 {
		s, c := sincos(x)
		ws, wc := math.Sincos(float64(x))
		if math.Abs(float64(s)-ws) > 1e-6 || math.Abs(float64(c)-wc) > 1e-6 {
			t.Fatalf("sincos(%v) = %v, %v; want %v, %v", x, s, c, ws, wc)
		}
	}
}

func TestFilletCorners(t *testing.T) {
	t.Parallel()
	const r = 0.5
	always := func(mgl32.Vec2) bool { return true }
	tests := []struct {
		name  string
		path  []mgl32.Vec2
		fits  func(mgl32.Vec2) bool
		sides []locomotion.Side // nil: no turn nodes
		nodes []mgl32.Vec2      // the nodes afterwards
	}{
		{"left turn about (10.5, 0.5)", []mgl32.Vec2{{0, 0}, {10, 0}, {10, 10}}, always,
			[]locomotion.Side{0, locomotion.Left, 0}, []mgl32.Vec2{{0, 0}, {9.5, 0.5}, {10, 10}}},
		{"right turn", []mgl32.Vec2{{0, 0}, {10, 0}, {10, -10}}, always,
			[]locomotion.Side{0, locomotion.Right, 0}, []mgl32.Vec2{{0, 0}, {9.5, -0.5}, {10, -10}}},
		{"two turns sharing a leg", []mgl32.Vec2{{0, 0}, {10, 0}, {10, 10}, {0, 10}}, always,
			[]locomotion.Side{0, locomotion.Left, locomotion.Left, 0}, []mgl32.Vec2{{0, 0}, {9.5, 0.5}, {9.5, 9.5}, {0, 10}}},
		{"a leg too short for two arcs", []mgl32.Vec2{{0, 0}, {10, 0}, {10, 0.8}, {0, 0.8}}, always,
			nil, []mgl32.Vec2{{0, 0}, {10, 0}, {10, 0.8}, {0, 0.8}}},
		{"a turn of 150° stays a corner", []mgl32.Vec2{{0, 0}, {10, 0}, {1.34, 5}}, always,
			nil, []mgl32.Vec2{{0, 0}, {10, 0}, {1.34, 5}}},
		{"straight on", []mgl32.Vec2{{0, 0}, {5, 0}, {10, 0}}, always, nil, []mgl32.Vec2{{0, 0}, {5, 0}, {10, 0}}},
		{"the arc would leave walkable ground", []mgl32.Vec2{{0, 0}, {10, 0}, {10, 10}},
			func(p mgl32.Vec2) bool { return p[0] < 9.6 }, nil, []mgl32.Vec2{{0, 0}, {10, 0}, {10, 10}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := append([]mgl32.Vec2(nil), tc.path...)
			arcs := filletCorners(path, nil, r, tc.fits)
			if tc.sides == nil && len(arcs) != 0 {
				t.Fatalf("arcs %v, want none", arcs)
			}
			if tc.sides != nil {
				if len(arcs) != len(path) {
					t.Fatalf("%d arcs for %d nodes", len(arcs), len(path))
				}
				for i, s := range tc.sides {
					if arcs[i].side != s || (s != 0 && arcs[i].r != r) {
						t.Errorf("node %d: %+v, want side %d", i, arcs[i], s)
					}
				}
			}
			for i, p := range tc.nodes {
				if !near(path[i], p, 1e-5) {
					t.Errorf("node %d at %v, want %v", i, path[i], p)
				}
			}
		})
	}
}

// TestAdvanceAlongArcs walks a path of straight legs and turn nodes with advance alone
// (no physics): the mover ends every frame at least the radius from every turn centre,
// its motion cuts the circle by at most one step's sagitta, it steps exactly speed ×
// 50 ms a frame, and covers the path's length (legs plus arcs) in the frames that takes.
func TestAdvanceAlongArcs(t *testing.T) {
	t.Parallel()
	const r = 0.5
	tests := []struct {
		name   string
		nodes  []mgl32.Vec2
		arcs   []arc
		step   float32
		length float64 // of the path along legs and arcs
	}{
		{"quarter turn left", []mgl32.Vec2{{0, 0}, {9.5, 0.5}, {10, 10}},
			[]arc{{}, {locomotion.Left, r}, {}}, 0.3, 9.5 + 9.5 + math.Pi/4},
		{"quarter turn right", []mgl32.Vec2{{0, 0}, {9.5, -0.5}, {10, -10}},
			[]arc{{}, {locomotion.Right, r}, {}}, 0.3, 9.5 + 9.5 + math.Pi/4},
		{"left then right", []mgl32.Vec2{{0, 0}, {9.5, 0.5}, {10.5, 9.5}, {20, 10}},
			[]arc{{}, {locomotion.Left, r}, {locomotion.Right, r}, {}}, 0.125, 9.5 + 9 + 9.5 + math.Pi/2},
		{"a step longer than the arc", []mgl32.Vec2{{0, 0}, {9.5, 0.5}, {10, 10}},
			[]arc{{}, {locomotion.Left, r}, {}}, 2, 9.5 + 9.5 + math.Pi/4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := locomotor{mode: PathMove, path: tc.nodes, arcs: tc.arcs, next: 1}
			p := tc.nodes[0]
			goal := tc.nodes[len(tc.nodes)-1]
			frames := 0
			for int(l.next) < len(l.path) {
				q, next := l.advance(p, tc.step)
				if d := geom.Dist(p, q); math.Abs(float64(d-tc.step)) > 1e-3 && int(next) < len(l.path) {
					t.Fatalf("frame %d: moved %v, want %v", frames, d, tc.step)
				}
				for i, a := range tc.arcs {
					if a.side == 0 {
						continue
					}
					c := tc.nodes[i]
					if d := geom.Dist(q, c); d < r-1e-4 {
						t.Fatalf("frame %d: %v is %v from the turn centre %v", frames, q, d, c)
					}
					// The frame's motion is the chord p→q: it cuts the circle by at most the
					// sagitta of one step.
					m := geom.Sub(q, p)
					k := min(max(geom.Dot(geom.Sub(c, p), m)/geom.LenSq(m), 0), 1)
					_, cosHalf := sincos(min(tc.step/r, 2) / 2)
					if d := geom.Dist(geom.Axpy(p, m, k), c); d < r*cosHalf-1e-4 {
						t.Fatalf("frame %d: the motion %v → %v passes %v from the turn centre %v", frames, p, q, d, c)
					}
				}
				p = q
				l.next = l.passedCorners(next, p)
				frames++
				if frames > 1000 {
					t.Fatalf("no arrival: at %v, node %d", p, l.next)
				}
			}
			if p != goal {
				t.Errorf("ended at %v, want %v", p, goal)
			}
			if want := int(math.Ceil(tc.length / float64(tc.step))); frames != want && frames != want+1 {
				t.Errorf("%d frames for %.3f m at %v m a frame, want %d", frames, tc.length, tc.step, want)
			}
		})
	}
}

// TestWallsClear: the wall-distance test that arcs are checked with finds every edge
// closer than the radius, and open ground is clear.
func TestWallsClear(t *testing.T) {
	t.Parallel()
	r := quiet(t).Region(0)
	w := &r.walls
	for _, s := range w.segs {
		mid := geom.Scale(geom.Add(s.A, s.B), 0.5)
		d, l := geom.Unit(geom.Sub(s.B, s.A))
		if l == 0 {
			continue
		}
		n := mgl32.Vec2{-d[1], d[0]}
		for _, side := range []float32{1, -1} {
			if p := geom.Axpy(mid, n, side*0.3); w.clear(p, 0.5) {
				t.Fatalf("%v, 0.3 m from edge %v, is clear for 0.5", p, s)
			}
		}
	}
	for _, p := range []mgl32.Vec2{{64, 64}, {128, 64}, {100, 34}} {
		if !r.Mesh().Contains(p, 1, walkFlags) || !w.clear(p, 0.9) {
			t.Errorf("%v: open ground not clear", p)
		}
	}
}

// TestTangentTo: tangentTo gives tangent(p, 0, ...)'s touching point bit for bit.
func TestTangentTo(t *testing.T) {
	t.Parallel()
	const seed = 5
	rng := rand.New(rand.NewPCG(seed, 3))
	for range 100000 {
		p := mgl32.Vec2{rng.Float32()*200 - 4, rng.Float32()*200 - 4}
		c := geom.Axpy(p, mgl32.Vec2{rng.Float32()*2 - 1, rng.Float32()*2 - 1}, rng.Float32()*8)
		rb := (rng.Float32()*2 - 1) * 1.5
		_, want, _, wok := tangent(p, 0, c, rb)
		got, ok := tangentTo(p, c, rb)
		if got != want || ok != wok {
			t.Fatalf("seed %d: tangentTo(%v, %v, %g) = %v %v, tangent gives %v %v", seed, p, c, rb, got, ok, want, wok)
		}
	}
}
