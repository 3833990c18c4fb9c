package sim

import (
	"testing"

	"github.com/twinframe/twinframe/shared/world"
)

func TestSmoke(t *testing.T) {
	w, err := world.LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(w, &Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 400; i++ {
		if err := g.Step(); err != nil {
			t.Fatal(err)
		}
		if err := g.CheckInvariants(); err != nil {
			t.Fatalf("%v", err)
		}
	}
	moving := 0
	for _, e := range g.Entities() {
		if e.Mode() != Idle {
			moving++
		}
	}
	t.Logf("entities %d moving %d events %d hash %x", len(g.Entities()), moving, len(g.Events()), g.StateHash())
}
