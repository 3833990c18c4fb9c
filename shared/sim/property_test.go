package sim

import (
	"flag"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

var propSeed = flag.Uint64("seed", 0, "run the property test with this seed only")

// TestRandomScenarios plays seeded random scenarios — random spawns, commands (valid and
// not: NaN points, missing ids, huge speeds), projectiles and destroys on top of the
// default world's population — and checks the invariants after every frame. A failure
// prints the seed; rerun it with -seed.
func TestRandomScenarios(t *testing.T) {
	seeds := []uint64{1, 2, 3, 4}
	frames := 300
	if testing.Short() || raceEnabled {
		seeds, frames = seeds[:2], 150
	}
	if *propSeed != 0 {
		seeds = []uint64{*propSeed}
	}
	w := defaultWorld(t)
	for _, seed := range seeds {
		g, err := New(w, &Options{Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(seed, 99))
		point := func() mgl32.Vec2 {
			switch rng.IntN(20) {
			case 0:
				return mgl32.Vec2{float32(math.NaN()), 1}
			case 1:
				return mgl32.Vec2{-1e6, 1e7}
			}
			return mgl32.Vec2{rng.Float32() * 192, rng.Float32() * 192}
		}
		pick := func() EntityID {
			es := g.Entities()
			if rng.IntN(10) == 0 || len(es) == 0 {
				return EntityID(rng.IntN(1000))
			}
			return es[rng.IntN(len(es))].ID()
		}
		for f := range frames {
			for range rng.IntN(6) {
				switch rng.IntN(9) {
				case 0:
					_, _ = g.Spawn(int32(rng.IntN(5)), 0, point(), 0)
				case 1:
					_ = g.Enqueue(Input{Entity: pick(), Command: CmdMoveAlongPath, Point: point()})
				case 2:
					_ = g.Enqueue(Input{Entity: pick(), Command: CmdMoveTo, Point: point()})
				case 3:
					_ = g.Enqueue(Input{Entity: pick(), Command: CmdFollow, Target: pick(), Range: rng.Float32() * 5})
				case 4:
					_ = g.Enqueue(Input{Entity: pick(), Command: CmdSetSpeed, Speed: []float32{0, 1, 6, 1e9, -3}[rng.IntN(5)]})
				case 5:
					_ = g.Enqueue(Input{Entity: pick(), Command: CmdFire, Point: point()})
				case 6:
					_ = g.Enqueue(Input{Entity: pick(), Command: CmdStop})
				case 7:
					_ = g.Enqueue(Input{Entity: pick(), Command: CmdLookAt, Point: point()})
				case 8:
					if rng.IntN(4) == 0 {
						_ = g.Destroy(pick())
					}
				}
			}
			if err := g.Step(); err != nil {
				t.Fatalf("seed %d frame %d: %v", seed, f, err)
			}
			if err := g.CheckInvariants(); err != nil {
				t.Fatalf("seed %d frame %d (rerun with -seed=%d): %v", seed, g.Frame(), seed, err)
			}
		}
		t.Logf("seed %d: %d frames, %d entities, hash %016x", seed, frames, len(g.Entities()), g.StateHash())
	}
}
