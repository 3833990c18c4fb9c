package xdump

import (
	"fmt"
	"math"
)

// Type is a field's data type. Its value is the symbol value in the meta-type table.
type Type uint8

// Field types. The values are what a meta dump writes; clients look them up by name in
// the meta-type table.
const (
	TypeInt    Type = 1 // "d": intnum
	TypeFloat  Type = 2 // "g": flonum
	TypeString Type = 3 // "s": string or nil
	TypeChars  Type = 4 // "c": character array of at most Len bytes, one string field
)

// String returns the type's symbol name: "d", "g", "s" or "c".
func (t Type) String() string {
	switch t {
	case TypeInt:
		return "d"
	case TypeFloat:
		return "g"
	case TypeString:
		return "s"
	case TypeChars:
		return "c"
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// Flags is a field's flag set. Its value is a symbol set over the meta-flags table.
type Flags uint32

// Field flags, with the values of the meta-flags symbol table.
const (
	Deity  Flags = 1  // visible only to a deity: omitted from a player's meta and data
	Bits   Flags = 8  // a symbol set; Type is TypeInt and Table names the symbol table
	Hidden Flags = 16 // masked for players: a masked value dumps as -1
)

// Dump is a field's dump setting. It is not part of the meta dump (as in Empire 4.4);
// it governs what the writer emits and what the parser accepts.
type Dump uint8

// Dump settings.
const (
	DumpNormal Dump = iota // dumped, and loaded from a dump or config file
	DumpConst              // dumped; a loaded value must equal the value already there
	DumpOnly               // dumped, but ignored when loading (derived values)
	DumpNone               // neither dumped nor loaded; absent from meta
)

// Field is the metadata of one table column: one record of `xdump meta TABLE`.
type Field struct {
	Name  string
	Type  Type
	Flags Flags
	// Len is 0 for a scalar. For TypeChars it is the maximum byte length of the single
	// string field; for any other type the field is an array dumped as Len fields.
	Len int
	// Table names the table the value refers to (a key in it, -1 meaning null), or the
	// symbol table of a symbol or symbol set; "" for none. A dump writes its uid.
	Table string
	Dump  Dump
	// Min and Max bound an integer field's loaded values when Min < Max. They are
	// checked by the parser and not dumped.
	Min, Max int64

	f32 bool // float32 storage: writes the shortest form that reads back as float32
}

// Elems is the number of dump fields this field takes: Len for arrays, else 1.
func (f *Field) Elems() int {
	if f.Len > 0 && f.Type != TypeChars {
		return f.Len
	}
	return 1
}

// IsChars reports whether the field dumps as one string without nil.
func (f *Field) IsChars() bool { return f.Type == TypeChars }

// Key says how the leftmost field identifies a table's rows.
type Key uint8

// Keys.
const (
	// KeyNone: rows are identified by their position only; the table cannot be split.
	KeyNone Key = iota
	// KeyIndex: the leftmost field is the row index: 0, 1, 2, ... without gaps.
	KeyIndex
	// KeyID: the leftmost field is an id, strictly increasing, gaps allowed.
	KeyID
	// KeyOrdered: the fields listed in Schema.Order form the key, rows strictly
	// increasing in that order (compared left to right).
	KeyOrdered
)

// Schema describes a table: everything but its rows.
type Schema struct {
	// UID is the table's id, the key of the table of tables. UIDs are part of the
	// format a client sees; choose them explicitly and keep them stable.
	UID int
	// Name identifies the table in commands and dumps: id-chars (ASCII 33..126 except
	// `"#()<>=` and, so that commands can name it, `?&*/,`), not starting with a
	// digit, unique in a registry.
	Name string
	// Fields are the columns in dump order. NewTable fills them from its columns.
	Fields []Field
	// Key says how rows are identified; with KeyOrdered, Order names the key fields.
	Key   Key
	Order []string
	// MinRows and MaxRows bound the number of rows a load may supply (MaxRows 0: no
	// bound). A table with MinRows == MaxRows has a fixed size. With KeyIndex or KeyID
	// MaxRows also bounds the key: 0 <= key < MaxRows.
	MinRows, MaxRows int
	// ReadOnly tables are dumped but never loaded (the meta tables, compiled-in
	// symbol tables).
	ReadOnly bool
	// SymbolField names the field whose values name this table's rows when another
	// table refers to a row by symbol (human-readable dialect). Default "name".
	SymbolField string
	// Visible, if set, says whether a viewer may see a row (by row index). Nil: all.
	Visible func(v Viewer, row int) bool
}

// Viewer is who asks for a dump: a deity sees everything, a player (ID) sees no Deity
// fields, sees Hidden fields masked and only the rows Schema.Visible grants.
type Viewer struct {
	Deity bool
	ID    int
}

// Value is one dumped field element. Which members matter depends on the field's Type:
// Int for TypeInt, Float for TypeFloat, Str and Nil for TypeString, Str for TypeChars.
type Value struct {
	Int   int64
	Float float64
	Str   string
	Nil   bool
}

// IntValue, FloatValue, StringValue and NilValue make Values.
func IntValue(i int64) Value     { return Value{Int: i} }
func FloatValue(f float64) Value { return Value{Float: f} }
func StringValue(s string) Value { return Value{Str: s} }
func NilValue() Value            { return Value{Nil: true} }

// equal compares two values as values of type t (floats bitwise, NaN equal to NaN).
func (v Value) equal(w Value, t Type) bool {
	switch t {
	case TypeInt:
		return v.Int == w.Int
	case TypeFloat:
		return math.Float64bits(v.Float) == math.Float64bits(w.Float) || (v.Float != v.Float && w.Float != w.Float)
	case TypeString:
		return v.Nil == w.Nil && v.Str == w.Str
	}
	return v.Str == w.Str
}

// validName reports whether s is an identifier of the xdump language.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIDChar(s[i]) {
			return false
		}
	}
	return true
}

func isIDChar(c byte) bool {
	if c < 33 || c > 126 {
		return false
	}
	switch c {
	case '"', '#', '(', ')', '<', '>', '=':
		return false
	}
	return true
}
