package scene

import (
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/debugdraw/debugdrawtest"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
)

func TestDrawCorridor(t *testing.T) {
	t.Parallel()
	node := func(x, y float32) locomotion.PathNode { return locomotion.PathNode{Point: mgl32.Vec3{x, y, 0}} }
	turn := node(10, 5)
	turn.Side, turn.Radius = locomotion.Left, 0.75
	st := locomotion.State{Position: mgl32.Vec3{4, 0, 0}, Goal: 2,
		Path: []locomotion.PathNode{node(0, 0), node(3, 0), node(10, 0), turn, node(10, 12)}}
	tests := []struct {
		name   string
		st     locomotion.State
		labels bool
		// polygons: one band per leg ahead; points: one per node; walked: segments
		// between walked nodes; texts: indices.
		polygons, points, texts, turns int
	}{
		{"walking", st, true, 3, 5, 5, 1},
		{"no labels", st, false, 3, 5, 0, 1},
		{"no path", locomotion.State{Position: mgl32.Vec3{1, 1, 0}}, true, 0, 0, 0, 0},
		{"goal past the end", locomotion.State{Goal: 9, Path: st.Path[:2]}, false, 0, 2, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var r debugdrawtest.Recorder
			drawCorridor(&r, &tc.st, 0.5, tc.labels)
			var polygons, points, texts, turns int
			for _, c := range r.Calls {
				switch c.Kind {
				case debugdrawtest.Polygon:
					polygons++
					if len(c.Points) != 4 || c.Color != colorCorridor || !c.Filled {
						t.Errorf("band %+v", c)
					}
				case debugdrawtest.Point:
					points++
				case debugdrawtest.Text:
					texts++
				case debugdrawtest.Circle:
					if c.Color == colorTurn {
						turns++
						if c.Radius != 0.75 || c.Points[0] != (mgl32.Vec2{10, 5}) {
							t.Errorf("turning circle %+v", c)
						}
					}
				}
			}
			if polygons != tc.polygons || points != tc.points || texts != tc.texts || turns != tc.turns {
				t.Errorf("%d bands, %d corners, %d labels, %d turns; want %d, %d, %d, %d",
					polygons, points, texts, turns, tc.polygons, tc.points, tc.texts, tc.turns)
			}
		})
	}
	// The first band starts at the entity and is 2×radius wide.
	var r debugdrawtest.Recorder
	drawCorridor(&r, &st, 0.5, false)
	for _, c := range r.Calls {
		if c.Kind == debugdrawtest.Polygon {
			want := [4]mgl32.Vec2{{4, 0.5}, {10, 0.5}, {10, -0.5}, {4, -0.5}}
			if [4]mgl32.Vec2(c.Points) != want {
				t.Errorf("first band %v, want %v", c.Points, want)
			}
			break
		}
	}
}

// The sandbox draws the selected walker's corridor with the paths overlay.
func TestLocalDrawsSelectedCorridor(t *testing.T) {
	l := testLocal(t)
	st := l.Status()
	l.Do(Command{Kind: cmdMoveTo, Point: mgl32.Vec2{st.Avatar[0] + 20, st.Avatar[1] - 10}})
	run(l, 0, 500*time.Millisecond)
	if !l.Status().Moving {
		t.Fatal("the avatar is not walking")
	}
	bands := func(ov Overlay, selected uint64) int {
		var r debugdrawtest.Recorder
		l.Draw(&r, ov, selected)
		n := 0
		for _, c := range r.Calls {
			if c.Kind == debugdrawtest.Polygon && c.Color == colorCorridor {
				n++
			}
		}
		return n
	}
	if n := bands(defaultOverlays|ovPaths, st.AvatarID); n == 0 {
		t.Error("no corridor for the selected walking avatar")
	}
	if n := bands(defaultOverlays|ovPaths, 0) + bands(defaultOverlays&^ovPaths, st.AvatarID); n != 0 {
		t.Errorf("%d corridor bands without a selection or the paths overlay", n)
	}
}
