package sim

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/debugdraw"
	"github.com/twinframe/twinframe/shared/debugdraw/debugdrawtest"
	"github.com/twinframe/twinframe/shared/sim/locomotion"

	"github.com/twinframe/twinframe/shared/geom"
)

func TestDebugDraw(t *testing.T) {
	g := quiet(t)
	av := spawn(t, g, protoAvatar, mgl32.Vec2{64, 64})
	spawn(t, g, protoDummy, mgl32.Vec2{66, 64})
	must(t, g.MoveTo(av, mgl32.Vec2{70, 64}))
	run(t, g, 8) // the avatar runs into the dummy
	var rec debugdrawtest.Recorder
	DebugDraw(&rec, g, DrawAll)
	n := len(g.Entities())
	if got := len(rec.Filter(debugdrawtest.Text, debugdraw.White)); got != n {
		t.Errorf("%d labels for %d entities", got, n)
	}
	if len(rec.Filter(debugdrawtest.Point, ColorHit)) == 0 {
		t.Error("no hit point drawn for the collision")
	}
	if len(rec.Filter(debugdrawtest.Point, ColorSpawn)) != len(g.Region(0).SpawnPoints()) {
		t.Error("spawn markers missing")
	}
	hash := g.StateHash()
	rec.Reset()
	DebugDraw(&rec, g, DrawOptions{Region: 7})
	DebugDraw(debugdraw.Nop{}, g, DrawAll)
	if rec.Count(debugdrawtest.Circle) != 0 || g.StateHash() != hash {
		t.Error("drawing changed the game or drew another region")
	}
}

// TestDrawPathArcs: a path with a turn node is drawn as legs and an arc round the
// node's centre, continuous from the entity to the goal.
func TestDrawPathArcs(t *testing.T) {
	t.Parallel()
	const r = 0.5
	l := locomotor{mode: PathMove, path: []mgl32.Vec2{{0, 0}, {9.5, 0.5}, {10, 10}},
		arcs: []arc{{}, {locomotion.Left, r}, {}}, next: 1}
	var rec debugdrawtest.Recorder
	drawPath(&rec, &l, mgl32.Vec2{0, 0})
	segs := rec.Filter(debugdrawtest.Segment, ColorPath)
	if len(segs) < 4 {
		t.Fatalf("%d segments", len(segs))
	}
	prev := mgl32.Vec2{0, 0}
	onArc := 0
	for i, s := range segs {
		a, b := s.Points[0], s.Points[1]
		if geom.Dist(a, prev) > 1e-4 {
			t.Fatalf("segment %d starts at %v, the last ended at %v", i, a, prev)
		}
		if d := geom.Dist(b, l.path[1]); d < r-1e-4 {
			t.Fatalf("segment %d ends %v from the turn centre", i, d)
		} else if d < r+1e-4 {
			onArc++
		}
		prev = b
	}
	if geom.Dist(prev, l.path[2]) > 1e-4 || onArc < 8 {
		t.Errorf("ends at %v with %d points on the arc", prev, onArc)
	}
}

// TestDrawPortals: the overlay portals draws the hub's disc portal as a circle and
// its polygon portal as a closed ring, each labelled with where it leads; without the
// overlay nothing of the portal colour is drawn.
func TestDrawPortals(t *testing.T) {
	t.Parallel()
	g := quiet(t)
	var rec debugdrawtest.Recorder
	DebugDraw(&rec, g, DrawOptions{Portals: true, Region: -1})
	if n := len(rec.Filter(debugdrawtest.Circle, ColorPortal)); n != 1 {
		t.Errorf("%d portal circles, want 1 (park-gate)", n)
	}
	if n := len(rec.Filter(debugdrawtest.Segment, ColorPortal)); n != 4 {
		t.Errorf("%d portal segments, want 4 (vault-door)", n)
	}
	labels := map[string]bool{}
	for _, c := range rec.Filter(debugdrawtest.Text, ColorPortal) {
		labels[c.Text] = true
	}
	if !labels["→ wilds"] || !labels["→ vault"] {
		t.Errorf("labels %v", labels)
	}
	rec.Reset()
	DebugDraw(&rec, g, DrawOptions{Hotspots: true, Region: -1})
	if rec.Count(debugdrawtest.Text) != 0 || len(rec.Filter(debugdrawtest.Circle, ColorPortal)) != 0 {
		t.Error("portals drawn without the overlay")
	}
}
