package world_test

import (
	"fmt"
	"os"

	"github.com/twinframe/twinframe/shared/navi"
	"github.com/twinframe/twinframe/shared/world"
	"github.com/twinframe/twinframe/shared/xdump"
)

// Load the embedded default world and dump some of its tables, as the deity and as a
// player: the player's entity dump lacks the deity field seed and masks the hidden goal.
func Example() {
	w, err := world.LoadDefault()
	if err != nil {
		fmt.Println(err)
		return
	}
	deity, player := xdump.Viewer{Deity: true}, xdump.Viewer{ID: 1}
	w.Xdump(os.Stdout, "xdump prototype 0-3", deity)
	w.Xdump(os.Stdout, "xdump proto-flags *", player)
	w.Xdump(os.Stdout, "xdump entity 1", deity)
	w.Xdump(os.Stdout, "xdump entity 1", player)
	// Output:
	// XDUMP prototype 0
	// 0 "avatar" 0.5 6 1 1 -1
	// 1 "wanderer" 0.4 2.5 1 18 -1
	// 2 "ghost" 0.4 3 2 18 -1
	// 3 "dummy" 0.45 1.5 1 2 -1
	// /4
	// XDUMP proto-flags 0
	// 1 "player"
	// 2 "npc"
	// 4 "prop"
	// 8 "static"
	// 16 "wander"
	// /5
	// XDUMP entity 0
	// 1 4 0 8 55 0 0 0 16 8 55 -1 1952501485 0
	// /1
	// XDUMP entity 0
	// 1 4 0 8 55 0 0 0 16 -1 -1 -1 0
	// /1
}

// A region's geometry is the input of navi.Build; BuildMesh builds it and adds the
// blackout zones.
func ExampleWorld_BuildMesh() {
	w, err := world.LoadDefault()
	if err != nil {
		fmt.Println(err)
		return
	}
	g, _ := w.Geometry(0)
	fmt.Println("bounds", g.Bounds.Min, g.Bounds.Max, "polygons", len(g.Polygons))
	m, err := w.BuildMesh(0, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("valid:", navi.Validate(m) == nil)
	// Output:
	// bounds [0 0] [192 192] polygons 85
	// valid: true
}
