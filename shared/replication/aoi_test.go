package replication_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/replication"
)

func TestAOIHysteresis(t *testing.T) {
	t.Parallel()
	a := replication.AOI{Add: 10, Remove: 15}
	center := mgl32.Vec2{0, 0}
	cands := []replication.Candidate{
		{ID: 1, Pos: mgl32.Vec2{100, 0}}, // self: always in view
		{ID: 2, Pos: mgl32.Vec2{5, 0}},   // inside Add
		{ID: 3, Pos: mgl32.Vec2{12, 0}},  // between Add and Remove
		{ID: 4, Pos: mgl32.Vec2{20, 0}},  // outside Remove
	}
	add, remove := a.Update(center, 1, nil, cands, nil, nil)
	if !slices.Equal(add, []uint64{1, 2}) || len(remove) != 0 {
		t.Fatalf("first view: add %v remove %v", add, remove)
	}
	// 3 and 4 were visible: 3 stays (inside Remove), 4 leaves; 9 is no longer a candidate.
	add, remove = a.Update(center, 1, []uint64{1, 3, 4, 9}, cands, nil, nil)
	if !slices.Equal(add, []uint64{2}) || !slices.Equal(remove, []uint64{4, 9}) {
		t.Fatalf("update: add %v remove %v", add, remove)
	}
	if leaks := a.Leaks(center, 1, cands, 0, nil); !slices.Equal(leaks, []uint64{4}) {
		t.Fatalf("leaks %v", leaks)
	}
	if leaks := a.Leaks(center, 1, cands, 5, nil); len(leaks) != 0 {
		t.Fatalf("leaks with slack %v", leaks)
	}
	if !a.Valid() || (replication.AOI{Add: 5, Remove: 4}).Valid() {
		t.Fatal("Valid")
	}
}

// A client's view on the edge: an entity walking back and forth across the add
// radius enters once and does not flicker.
func TestAOINoFlicker(t *testing.T) {
	t.Parallel()
	a := replication.DefaultAOI
	var visible []uint64
	changes := 0
	for i := range 100 {
		x := a.Add - 1 + float32(i%7) // oscillates across the add radius
		add, remove := a.Update(mgl32.Vec2{}, 1, visible, []replication.Candidate{{ID: 1}, {ID: 2, Pos: mgl32.Vec2{x, 0}}}, nil, nil)
		changes += len(add) + len(remove)
		for _, id := range remove {
			visible = slices.DeleteFunc(visible, func(v uint64) bool { return v == id })
		}
		visible = append(visible, add...)
		slices.Sort(visible)
	}
	if changes != 2 { // self and entity 2, once each
		t.Fatalf("%d view changes", changes)
	}
}

func ExampleAOI() {
	a := replication.AOI{Add: 40, Remove: 50}
	ents := []replication.Candidate{{ID: 7, Pos: mgl32.Vec2{0, 0}}, {ID: 8, Pos: mgl32.Vec2{45, 0}}, {ID: 9, Pos: mgl32.Vec2{30, 0}}}
	add, remove := a.Update(mgl32.Vec2{0, 0}, 7, nil, ents, nil, nil)
	fmt.Println("enter:", add, "leave:", remove)
	// Entity 8 is between the radii: it stays out; once in, it would stay in.
	ents[2].Pos = mgl32.Vec2{55, 0}
	add, remove = a.Update(mgl32.Vec2{0, 0}, 7, []uint64{7, 9}, ents, nil, nil)
	fmt.Println("enter:", add, "leave:", remove)
	// Output:
	// enter: [7 9] leave: []
	// enter: [] leave: [9]
}
