package debugdraw_test

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/debugdraw"
)

// logDrawer is a Drawer that prints what it is asked to draw.
type logDrawer struct{ debugdraw.Nop }

func (logDrawer) Segment(a, b mgl32.Vec2, c debugdraw.Color) {
	fmt.Printf("segment %v-%v %v\n", a, b, c)
}

func Example() {
	var d debugdraw.Drawer = logDrawer{}
	d.Segment(mgl32.Vec2{0, 0}, mgl32.Vec2{1, 0}, debugdraw.RGBA(1, 2, 3, 255))
	d.Text(mgl32.Vec2{0, 0}, "ignored by Nop", debugdraw.White)
	// Output:
	// segment [0 0]-[1 0] {1 2 3 255}
}
