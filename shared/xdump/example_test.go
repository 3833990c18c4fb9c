package xdump_test

import (
	"errors"
	"fmt"
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

// Prop is a configuration row: a prop type of the default world.
type Prop struct {
	ID     int32
	Name   string
	Radius float32
	Kind   int32
}

func propRegistry(props *[]Prop) *xdump.Registry {
	reg := xdump.NewRegistry(xdump.DefaultMetaUIDs)
	reg.Register(xdump.SymbolTable(20, "collision", []xdump.Symbol{{Value: 0, Name: "none"}, {Value: 1, Name: "blocking"}, {Value: 2, Name: "overlapping"}}))
	reg.Register(xdump.NewTable(xdump.Schema{UID: 21, Name: "prop", Key: xdump.KeyIndex}, props,
		xdump.Int("id", func(p *Prop) *int32 { return &p.ID }).Ref("prop"),
		xdump.String("name", func(p *Prop) *string { return &p.Name }),
		xdump.Float("radius", func(p *Prop) *float32 { return &p.Radius }),
		xdump.Int("kind", func(p *Prop) *int32 { return &p.Kind }).Ref("collision"),
	))
	return reg
}

// Configuration is human-readable xdump: free spacing, comments, a column header
// (names or unique prefixes), symbols by name, tables split into parts with "...".
func ExampleRegistry_Load() {
	var props []Prop
	reg := propRegistry(&props)
	config := `# props of the default world
config prop
id name        ...
 0 "car"
 1 "crate"      # wooden
/config
config prop
id rad  kind
 0 2.25 block
 1 0.5  overlapping
/config
`
	if err := reg.Load("props.config", []byte(config)); err != nil {
		fmt.Println(err)
	}
	fmt.Printf("%+v\n", props)
	err := reg.Load("bad.config", []byte("config prop\nid name radius kind\n0 \"car\" 1 wall\n/config\n"))
	var pe *xdump.ParseError
	if errors.As(err, &pe) {
		fmt.Println(pe.File, pe.Line, pe.Msg)
	}
	// Output:
	// [{ID:0 Name:car Radius:2.25 Kind:1} {ID:1 Name:crate Radius:0.5 Kind:2}]
	// bad.config 3 unknown kind symbol 'wall' in field 4
}

// A client asks for what changed since its last dump with a condition.
func ExampleRegistry_Exec() {
	props := []Prop{{0, "car", 2.25, 1}, {1, "crate", 0.5, 2}, {2, "cone", 0.2, 2}}
	reg := propRegistry(&props)
	if err := reg.Exec(os.Stdout, "xdump prop ?kind=overlapping&radius<0.4", xdump.Viewer{ID: 1}, 42); err != nil {
		fmt.Println(err)
	}
	err := reg.Exec(os.Stdout, "xdump meta-f *", xdump.Viewer{ID: 1}, 42) // unique prefix
	fmt.Println(err)
	err = reg.Exec(os.Stdout, "xdump m *", xdump.Viewer{ID: 1}, 42)
	fmt.Println(err, errors.Is(err, xdump.ErrCommand), errors.Is(err, xdump.ErrAmbiguous))
	// Output:
	// XDUMP prop 42
	// 2 "cone" 0.2 2
	// /1
	// XDUMP meta-flags 42
	// 1 "deity"
	// 8 "bits"
	// 16 "hidden"
	// /3
	// <nil>
	// xdump: ambiguous name: table "m" true true
}
