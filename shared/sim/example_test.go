package sim_test

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/debugdraw/debugdrawtest"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
)

// An avatar walks along a navmesh path in the default world until it arrives.
func Example() {
	w, err := world.LoadDefault()
	if err != nil {
		panic(err)
	}
	g, err := sim.New(w, &sim.Options{Seed: 1, NoPopulation: true})
	if err != nil {
		panic(err)
	}
	avatar, _ := g.Spawn(0, 0, mgl32.Vec2{64, 64}, 0)
	status, _ := g.MoveAlongPath(avatar, mgl32.Vec2{100, 34})
	for g.Entity(avatar).Mode() != sim.Idle {
		_ = g.Step()
	}
	p := g.Entity(avatar).Pos()
	fmt.Printf("%v path; arrived at (%.2f, %.2f) in frame %d (%.2f s)\n",
		status, p[0], p[1], g.Frame(), float64(g.Frame())*sim.FrameMillis/1000)
	fmt.Println(g.CheckInvariants())
	// Output:
	// complete path; arrived at (100.00, 34.00) in frame 173 (8.65 s)
	// <nil>
}

// A bolt flies at a dummy and reports a PowerResult.
func ExampleGame_Fire() {
	w, _ := world.LoadDefault()
	g, _ := sim.New(w, &sim.Options{NoPopulation: true})
	avatar, _ := g.Spawn(0, 0, mgl32.Vec2{64, 64}, 0)
	dummy, _ := g.Spawn(3, 0, mgl32.Vec2{72, 64}, 0)
	_, _ = g.Fire(avatar, mgl32.Vec2{72, 64})
	for range 5 {
		_ = g.Step()
		for _, r := range g.PowerResults() {
			fmt.Printf("frame %d: bolt %d hit %d (dummy %d) at x=%.2f\n", r.Frame, r.Projectile, r.Target, dummy, r.Point[0])
		}
	}
	// Output:
	// frame 4: bolt 50 hit 49 (dummy 49) at x=71.55
}

// DebugDraw emits the simulation's overlays into any debugdraw.Drawer.
func ExampleDebugDraw() {
	w, _ := world.LoadDefault()
	g, _ := sim.New(w, &sim.Options{Seed: 1})
	_ = g.Step()
	var rec debugdrawtest.Recorder
	sim.DebugDraw(&rec, g, sim.DrawOptions{Blackouts: true, Hotspots: true, Region: -1})
	fmt.Println(rec.Count(debugdrawtest.Circle), "circles")
	// Output:
	// 14 circles
}
