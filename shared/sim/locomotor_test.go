package sim

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/navi"
	"github.com/twinframe/twinframe/shared/sim/locomotion"

	"github.com/twinframe/twinframe/shared/geom"
)

// TestLongWalksArrive walks entities across the default world: each walk ends where its
// path ends (the goal, the goal moved to walkable ground, or the partial path's end),
// within arriveTol, in about the time its length takes; no walker idles midway.
func TestLongWalksArrive(t *testing.T) {
	t.Parallel()
	const arriveTol = 0.05
	tests := []struct {
		name     string
		proto    int32
		from, to mgl32.Vec2
	}{
		// The reported stall: it went idle at (38.79, 135.21), walking back to a corner
		// it had passed every frame.
		{"park to the south-east corner", protoAvatar, mgl32.Vec2{20, 160}, mgl32.Vec2{188, 52}},
		// A gap between two lab walls exactly as wide as an avatar.
		{"into the lab through a tight gap", protoAvatar, mgl32.Vec2{174.05, 169.23}, mgl32.Vec2{138.16, 143.16}},
		// The path turns back on itself along the park's south edge.
		{"along the park's edge", protoAvatar, mgl32.Vec2{161.99, 129.03}, mgl32.Vec2{44.88, 168.2}},
		{"lab to the park", protoAvatar, mgl32.Vec2{146.02, 133.19}, mgl32.Vec2{23.0, 138.2}},
		{"diagonal across the region", protoAvatar, mgl32.Vec2{6, 6}, mgl32.Vec2{186, 186}},
		{"to a goal inside a tower", protoAvatar, mgl32.Vec2{180, 10}, mgl32.Vec2{14, 14}},
		{"wanderer through the depots", protoWanderer, mgl32.Vec2{150.79, 99.48}, mgl32.Vec2{157.92, 3.87}},
		{"wanderer north through the streets", protoWanderer, mgl32.Vec2{135.21, 10.36}, mgl32.Vec2{99.52, 114.69}},
		{"wanderer from the lab to the park", protoWanderer, mgl32.Vec2{180, 180}, mgl32.Vec2{10, 180}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := quiet(t)
			id := spawn(t, g, tc.proto, tc.from)
			st, err := g.MoveAlongPath(id, tc.to)
			if err != nil {
				t.Fatalf("MoveAlongPath: %v %v", st, err)
			}
			e := g.Entity(id)
			path, _ := e.Path()
			end := path[len(path)-1]
			var length float32
			for i := 1; i < len(path); i++ {
				length += geom.Dist(path[i-1], path[i])
			}
			limit := int(length/e.Speed()*FrameRate*5/4) + 2*StuckFrames
			for f := 0; e.Mode() != Idle; f++ {
				if f == limit {
					t.Fatalf("%v path of %.1f m: still walking after %d frames, at %v (corner %d of %d)",
						st, length, f, e.Pos(), e.loco.next, len(path))
				}
				run(t, g, 1)
			}
			if d := geom.Dist(e.Pos(), end); d > arriveTol {
				t.Fatalf("%v path: idle at %v after %d frames, %.3f m from the path's end %v",
					st, e.Pos(), g.Frame(), d, end)
			}
			// A goal where the entity fits is the path's end.
			if st == navi.PathComplete && g.Region(0).Mesh().Contains(tc.to, e.Radius()+PathClearance, walkFlags) &&
				geom.Dist(end, tc.to) > arriveTol {
				t.Errorf("complete path ends at %v, not at the walkable goal %v", end, tc.to)
			}
		})
	}
}

// TestTouchPath: the read-ahead reads the next node (and its arc) of a mover and
// nothing of an idle entity or a path walked to its end, without going out of range.
func TestTouchPath(t *testing.T) {
	t.Parallel()
	path := []mgl32.Vec2{{1, 2}, {3, 4}, {5, 6}}
	for _, c := range []struct {
		name string
		loco locomotor
		want float32
	}{
		{"idle", locomotor{mode: Idle, path: path, next: 1}, 0},
		{"straight", locomotor{mode: PathMove, path: path, next: 2}, 5},
		{"turn", locomotor{mode: PathMove, path: path, next: 1, arcs: []arc{{}, {side: locomotion.Left, r: 0.5}, {}}}, 3.5},
		{"at the end", locomotor{mode: Direct, path: path, next: 3}, 0},
		{"arcs shorter", locomotor{mode: PathMove, path: path, next: 2, arcs: []arc{{}}}, 5},
	} {
		if got := touchPath(&Entity{loco: c.loco}); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestArriveWithoutMotion: a move that plans no motion in its first frame (a path of
// one node, to where the entity stands) ends in that frame's commit, although physics
// has nothing to move: the physics pass must commit entities without motion whose
// move can arrive.
func TestArriveWithoutMotion(t *testing.T) {
	t.Parallel()
	g := quiet(t)
	av := spawn(t, g, protoAvatar, mgl32.Vec2{64, 64})
	e := g.Entity(av)
	st, err := g.MoveAlongPath(av, e.Pos())
	if err != nil || st != navi.PathComplete || e.Mode() != PathMove {
		t.Fatalf("MoveAlongPath to its own position: %v, %v, mode %v", st, err, e.Mode())
	}
	run(t, g, 1)
	if e.Mode() != Idle {
		t.Errorf("after a frame: mode %v, want idle", e.Mode())
	}
}
