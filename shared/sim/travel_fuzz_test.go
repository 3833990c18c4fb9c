package sim

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// FuzzImmigrate feeds arbitrary bytes to Immigrate, as a node would receive them
// from another: it must refuse them with nothing changed, or take an entity the
// game then steps; never panic.
func FuzzImmigrate(f *testing.F) {
	w := defaultWorld(f)
	var gate int32 = -1
	var target int32
	for _, tr := range w.Transitions {
		if tr.Name == "park-gate" {
			gate, target = tr.Marker, tr.Region
		}
	}
	if gate < 0 {
		f.Fatal("no park gate in the default world")
	}
	hub, err := New(w, &Options{NoPopulation: true})
	if err != nil {
		f.Fatal(err)
	}
	av, err := hub.Spawn(protoAvatar, 0, mgl32.Vec2{112, 180}, 0)
	if err != nil {
		f.Fatal(err)
	}
	if err := hub.SetOwner(av, 7); err != nil {
		f.Fatal(err)
	}
	b, err := hub.Emigrate(av)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte{})
	f.Add(b[:len(b)/2])
	g, err := New(w, &Options{Region: target, NoPopulation: true})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		before, hash := len(g.Entities()), g.StateHash()
		id, err := g.Immigrate(data, gate)
		if err != nil {
			if len(g.Entities()) != before || g.StateHash() != hash {
				t.Fatalf("refused (%v) but the game changed", err)
			}
			return
		}
		if g.Entity(id) == nil {
			t.Fatalf("immigrant %d is not in the game", id)
		}
		_ = g.Step()
		// Keep the shared game small: the next input starts without this one.
		if g.Entity(id) != nil {
			if err := g.Destroy(id); err != nil {
				t.Fatal(err)
			}
		}
		_ = g.Step()
	})
}
