package xdump_test

import (
	"os"

	"github.com/twinframe/twinframe/shared/xdump"
)

// Entity is a game-state row kept in a plain Go slice.
type Entity struct {
	ID        int32
	Proto     int32
	Pos       [2]float32
	Flags     uint32
	Name      string
	Secret    int32
	Timestamp int64
}

// A table registers its schema and one accessor per field, once; the writer and the
// parser know no table.
func ExampleRegistry_Register() {
	reg := xdump.NewRegistry(xdump.DefaultMetaUIDs)
	reg.Register(xdump.SymbolTable(10, "entity-flags", []xdump.Symbol{{Value: 1, Name: "moving"}, {Value: 2, Name: "blocking"}}))

	entities := []Entity{
		{ID: 0, Proto: 3, Pos: [2]float32{1.5, -2}, Flags: 3, Name: "crate one", Secret: 7, Timestamp: 12},
		{ID: 5, Proto: 3, Pos: [2]float32{0.1, 4}, Name: `say "hi"`, Timestamp: 40},
	}
	err := reg.Register(xdump.NewTable(xdump.Schema{UID: 11, Name: "entity", Key: xdump.KeyID}, &entities,
		xdump.Int("id", func(e *Entity) *int32 { return &e.ID }).Ref("entity"),
		xdump.Int("proto", func(e *Entity) *int32 { return &e.Proto }),
		xdump.Floats("pos", 2, func(e *Entity) []float32 { return e.Pos[:] }),
		xdump.Int("flags", func(e *Entity) *uint32 { return &e.Flags }).BitsOf("entity-flags"),
		xdump.String("name", func(e *Entity) *string { return &e.Name }),
		xdump.Int("secret", func(e *Entity) *int32 { return &e.Secret }).With(xdump.Deity),
		xdump.Int("timestamp", func(e *Entity) *int64 { return &e.Timestamp }),
	))
	if err != nil || reg.Check() != nil {
		panic(err)
	}
	deity, player := xdump.Viewer{Deity: true}, xdump.Viewer{ID: 1}
	t := reg.Table("entity")
	reg.WriteTable(os.Stdout, t, xdump.Options{Viewer: player, Meta: true})
	reg.WriteTable(os.Stdout, t, xdump.Options{Viewer: deity})
	// Output:
	// XDUMP meta entity 0
	// "id" 1 0 0 11
	// "proto" 1 0 0 -1
	// "pos" 2 0 2 -1
	// "flags" 1 8 0 10
	// "name" 3 0 0 -1
	// "timestamp" 1 0 0 -1
	// /6
	// XDUMP entity 0
	// 0 3 1.5 -2 3 "crate\040one" 7 12
	// 5 3 0.1 4 0 "say\040\042hi\042" 0 40
	// /2
}
