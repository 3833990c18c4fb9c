package archive_test

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
)

// marker is a small Serializer: one Serialize method packs and unpacks.
type marker struct {
	Position mgl32.Vec3
	Active   bool
	Label    string
	Hidden   bool
}

func (m *marker) Serialize(a *archive.Archive) error {
	a.TransferVec3Fixed(&m.Position, 3) // positions travel with 3 fractional bits
	a.TransferBool(&m.Active)
	a.TransferString(&m.Label)
	a.TransferBool(&m.Hidden) // packed into the same byte as Active
	return a.Err()
}

func Example() {
	out := archive.NewPacker(archive.Replication, archive.Proximity)
	out.TransferObject(&marker{Position: mgl32.Vec3{2.125, -1, 0.3}, Active: true, Label: "spawn"})
	fmt.Printf("% X\n", out.Bytes())

	in, err := archive.NewUnpacker(archive.Replication, out.Bytes())
	if err != nil {
		fmt.Println(err)
		return
	}
	var m marker
	in.TransferObject(&m)
	fmt.Println(m.Position, m.Active, m.Label, m.Hidden, in.Done())
	// Output:
	// 01 22 0F 04 82 05 73 70 61 77 6E
	// [2.125 -1 0.25] true spawn false <nil>
}

func ExampleArchive_TransferBool() {
	a := archive.NewPacker(archive.Replication, archive.AllChannels)
	for _, b := range []bool{true, false, true, false, true, false} {
		a.TransferBool(&b)
	}
	fmt.Printf("% X\n", a.Bytes())
	// Output: EF 01 AD 01
}

func ExampleNewUnpacker_error() {
	_, err := archive.NewUnpacker(archive.Database, []byte{9, 0, 0, 0, 1, 1})
	fmt.Println(err)
	// Output: archive: size mismatch at offset 0 (persistent size): header says 9 bytes, archive has 6
}
