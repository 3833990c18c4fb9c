package sim

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/world"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func defaultWorld(t testing.TB) *world.World {
	t.Helper()
	w, err := world.LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// scripted runs the default world with population for frames frames, with an avatar
// walking a fixed tour, following and shooting, and returns the game.
func scripted(t testing.TB, frames int) *Game {
	t.Helper()
	g, err := New(defaultWorld(t), &Options{Seed: 42})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.AddRule(Rule{Hotspot: 15, Prototype: -1, On: Enter, Action: ActionToggleBlackout, Arg: 5}); err != nil {
		t.Fatal(err)
	}
	avatar, err := g.Spawn(0, 0, mgl32.Vec2{20, 160}, 0)
	if err != nil {
		t.Fatal(err)
	}
	tour := []mgl32.Vec2{{100, 146}, {64, 64}, {170, 64}, {176, 140}, {26, 96}, {150, 166}}
	for f := 1; f <= frames; f++ {
		switch {
		case f%150 == 1:
			must(t, g.Enqueue(Input{Entity: avatar, Command: CmdMoveAlongPath, Point: tour[(f/150)%len(tour)]}))
		case f%150 == 100:
			must(t, g.Enqueue(Input{Entity: avatar, Command: CmdFire, Point: mgl32.Vec2{96, 96}}))
		case f%400 == 200:
			// A wanderer follows the avatar for a while.
			for _, e := range g.Entities() {
				if e.Prototype() == 1 {
					_ = g.Follow(e.ID(), avatar, 2)
					break
				}
			}
		case f == 1000:
			must(t, g.Enqueue(Input{Entity: avatar, Command: CmdSetSpeed, Speed: 1000})) // clamped
		case f == 1500:
			must(t, g.Enqueue(Input{Entity: 99999, Command: CmdStop})) // rejected
		}
		if err := g.Step(); err != nil {
			t.Fatalf("frame %d: %v", f, err)
		}
	}
	return g
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestGoldenHash runs the default world for 2,000 frames with scripted inputs and
// compares the state hash with testdata/golden_hash.txt. The same test runs natively,
// with GOAMD64=v3 and under wasm (Node); all must agree. Rewrite with -update.
func TestGoldenHash(t *testing.T) {
	frames := 2000
	g := scripted(t, frames)
	if err := g.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%016x frames=%d entities=%d\n", g.StateHash(), frames, len(g.Entities()))
	path := filepath.Join("testdata", "golden_hash.txt")
	if *update {
		must(t, os.MkdirAll("testdata", 0o755))
		must(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if strings.TrimSpace(got) != strings.TrimSpace(string(want)) {
		t.Errorf("state after %d frames:\n got %s want %s"+
			"(paths come from navi and the world from shared/world: a change there changes the hash too; "+
			"check that native, GOAMD64=v3 and wasm agree, then rerun with -update)", frames, got, want)
	}
}
