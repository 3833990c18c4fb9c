package sim

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/debugdraw"
	"github.com/twinframe/twinframe/shared/debugdraw/debugdrawtest"
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
	if got := rec.Count(debugdrawtest.Text); got != n {
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
