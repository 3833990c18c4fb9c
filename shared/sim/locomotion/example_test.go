package locomotion_test

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
)

// The server sends a relative update carrying only what changed; the client
// merges it into the last state it knows.
func ExampleDiff() {
	known := locomotion.State{Entity: 9, Frame: 10, Fields: locomotion.HasPosition | locomotion.HasYaw,
		Position: mgl32.Vec3{4, 4, 0}, Yaw: 0.5}
	now := known
	now.Frame, now.Position = 11, mgl32.Vec3{4.5, 4, 0}

	update := locomotion.Diff(&known, &now)
	out := archive.NewPacker(archive.Replication, archive.Proximity)
	out.TransferObject(&update)
	fmt.Printf("% X\n", out.Bytes())

	in, _ := archive.NewUnpacker(archive.Replication, out.Bytes())
	var received locomotion.State
	in.TransferObject(&received)
	merged, _ := known.Apply(&received)
	fmt.Println(merged.Frame, merged.Position, merged.Yaw)
	// Output:
	// 01 09 0B 11 48 40 00
	// 11 [4.5 4 0] 0.5
}
