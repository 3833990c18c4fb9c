package gameserver

import (
	"errors"
	"testing"

	"github.com/twinframe/twinframe/shared/sim"
)

// TestSpawnPassesFullPointOn: when the crowd around a spawn point leaves no room, a
// new avatar is placed at the next spawn point instead of its login being refused
// (the load test's logins failed with "no room for an avatar" beyond ≈ 450 bots).
func TestSpawnPassesFullPointOn(t *testing.T) {
	t.Parallel()
	s := benchServer(t, nil)
	pts := s.hub().Region(s.hubID()).SpawnPoints()
	if len(pts) < 2 {
		t.Fatalf("the default region has %d spawn points, want at least 2: the fixed default world is broken", len(pts))
	}
	// Fill the neighbourhood of point 0 until the game refuses one more there.
	held := 0
	for ; ; held++ {
		if _, err := s.hub().Spawn(AvatarPrototype, s.hubID(), pts[0], 0); err != nil {
			if !errors.Is(err, sim.ErrNoSpace) {
				t.Fatal(err)
			}
			break
		}
		if held > 5000 {
			t.Fatal("point 0 never filled")
		}
	}
	id, err := s.spawnAtPoints(s.regions[0], 0)
	if err != nil {
		t.Fatalf("spawn after %d avatars around point 0: %v", held, err)
	}
	e := s.hub().Entity(id)
	if e == nil {
		t.Fatalf("avatar %d not in the game", id)
	}
	if d := e.Pos().Sub(pts[0]).Len(); d < 8 {
		t.Errorf("avatar at %v, %.1f m from the full point %v", e.Pos(), d, pts[0])
	}
}
