package xdump

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Sentinel errors; typed errors wrap them where it helps errors.Is.
var (
	ErrUnknownTable = errors.New("xdump: unknown table")
	ErrAmbiguous    = errors.New("xdump: ambiguous name")
	ErrRegister     = errors.New("xdump: bad table registration")
)

// MetaUIDs are the uids of the four meta tables every registry has.
type MetaUIDs struct {
	Table int // "table": the table of tables (uid, name)
	Meta  int // "meta": field metadata (name, type, flags, len, table)
	Type  int // "meta-type": symbols of Field.Type
	Flags int // "meta-flags": symbols of Field.Flags
}

// DefaultMetaUIDs puts the meta tables first.
var DefaultMetaUIDs = MetaUIDs{Table: 0, Meta: 1, Type: 2, Flags: 3}

// Registry is the set of tables a server can dump and load: its meta tables plus the
// tables registered with Register. It is a value owned by whoever builds the world;
// nothing is registered globally. A Registry is not safe for concurrent mutation.
type Registry struct {
	tables []*Table // sorted by uid
	byName map[string]*Table
	uids   MetaUIDs
	meta   *Table // the meta table; its rows are its own fields
}

// The meta table's own fields, written once.
func metaColumns() []Column[Field] {
	return []Column[Field]{
		String("name", func(f *Field) *string { return &f.Name }),
		Int("type", func(f *Field) *Type { return &f.Type }).Ref("meta-type"),
		Int("flags", func(f *Field) *Flags { return &f.Flags }).BitsOf("meta-flags"),
		Int("len", func(f *Field) *int { return &f.Len }),
		// table: the reference is dumped as a uid; tableRefColumn patches the getter.
		Func(Field{Name: "table", Type: TypeInt}, func(*Field, int) Value { return Value{Int: -1} }, nil).Ref("table"),
	}
}

// NewRegistry returns a registry holding only the meta tables, at the given uids.
func NewRegistry(uids MetaUIDs) *Registry {
	r := &Registry{byName: map[string]*Table{}, uids: uids}
	tableRows := &r.tables
	r.mustRegister(NewTable(Schema{UID: uids.Table, Name: "table", Key: KeyID, ReadOnly: true}, tableRows,
		Int("uid", func(t **Table) *int { return &(*t).schema.UID }).Ref("table"),
		String("name", func(t **Table) *string { return &(*t).schema.Name })))
	r.meta = r.metaTable(nil)
	r.mustRegister(r.meta)
	r.mustRegister(SymbolTable(uids.Type, "meta-type", []Symbol{
		{int64(TypeInt), "d"}, {int64(TypeFloat), "g"}, {int64(TypeString), "s"}, {int64(TypeChars), "c"}}))
	r.mustRegister(SymbolTable(uids.Flags, "meta-flags", []Symbol{
		{int64(Deity), "deity"}, {int64(Bits), "bits"}, {int64(Hidden), "hidden"}}))
	return r
}

// metaTable returns the meta table over fields; nil means its own fields.
func (r *Registry) metaTable(fields []Field) *Table {
	cols := metaColumns()
	cols[4] = Func(cols[4].f, func(f *Field, _ int) Value {
		if f.Table == "" {
			return Value{Int: -1}
		}
		if t := r.byName[f.Table]; t != nil {
			return Value{Int: int64(t.schema.UID)}
		}
		return Value{Int: -1}
	}, nil)
	cols[4].f.Dump = DumpNormal
	rows := &fields
	t := NewTable(Schema{UID: r.uids.Meta, Name: "meta", ReadOnly: true}, rows, cols...)
	if fields == nil {
		*rows = t.schema.Fields
	}
	return t
}

func (r *Registry) mustRegister(t *Table) {
	if err := r.Register(t); err != nil {
		panic(err) // the built-in tables are correct by construction
	}
}

// Register adds a table. It checks the schema (names, unique uid and name, types,
// flags) but not references to other tables, which may be registered later; call
// Check when all are in.
func (r *Registry) Register(t *Table) error {
	s := &t.schema
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: table %q: %s", ErrRegister, s.Name, fmt.Sprintf(format, args...))
	}
	if !validName(s.Name) || strings.ContainsAny(s.Name, "?&*/,") || s.Name[0] >= '0' && s.Name[0] <= '9' {
		return bad("invalid name") // commands could not name it
	}
	if s.UID < 0 {
		return bad("negative uid %d", s.UID)
	}
	if r.byName[s.Name] != nil {
		return bad("name already registered")
	}
	i, found := r.searchUID(s.UID)
	if found {
		return bad("uid %d already used by %q", s.UID, r.tables[i].schema.Name)
	}
	seen := map[string]bool{}
	for j := range s.Fields {
		f := &s.Fields[j]
		if !validName(f.Name) || strings.ContainsAny(f.Name, "&?") {
			return bad("field %d: invalid name %q", j, f.Name)
		}
		if seen[f.Name] {
			return bad("duplicate field %q", f.Name)
		}
		seen[f.Name] = true
		switch f.Type {
		case TypeInt, TypeFloat, TypeString, TypeChars:
		default:
			return bad("field %q: bad type %d", f.Name, f.Type)
		}
		if f.Len < 0 || f.Len > maxArray || f.Type == TypeChars && f.Len == 0 {
			return bad("field %q: bad len %d", f.Name, f.Len)
		}
		if f.Flags&^(Deity|Bits|Hidden) != 0 {
			return bad("field %q: unknown flags %#x", f.Name, uint32(f.Flags))
		}
		if f.Flags&Bits != 0 && (f.Type != TypeInt || f.Table == "") {
			return bad("field %q: bits needs type d and a symbol table", f.Name)
		}
		if f.Table != "" && f.Type != TypeInt {
			return bad("field %q: a reference needs type d", f.Name)
		}
		if f.Flags&Hidden != 0 && f.Type != TypeInt && f.Type != TypeFloat {
			return bad("field %q: hidden needs type d or g", f.Name)
		}
	}
	if s.Key == KeyOrdered {
		if len(s.Order) == 0 {
			return bad("KeyOrdered without Order")
		}
		for _, n := range s.Order {
			if j := t.FieldIndex(n); j < 0 || s.Fields[j].Type != TypeInt || s.Fields[j].Len != 0 {
				return bad("key field %q: not a scalar integer field", n)
			}
		}
	}
	if (s.Key == KeyIndex || s.Key == KeyID) && (len(s.Fields) == 0 || s.Fields[0].Type != TypeInt || s.Fields[0].Len != 0) {
		return bad("key needs a leftmost scalar integer field")
	}
	r.tables = slices.Insert(r.tables, i, t)
	r.byName[s.Name] = t
	return nil
}

// Check verifies what Register cannot: every Field.Table names a registered table.
func (r *Registry) Check() error {
	var errs []error
	for _, t := range r.tables {
		for _, f := range t.schema.Fields {
			if f.Table != "" && r.byName[f.Table] == nil {
				errs = append(errs, fmt.Errorf("%w: table %q field %q refers to unknown table %q",
					ErrRegister, t.schema.Name, f.Name, f.Table))
			}
		}
	}
	return errors.Join(errs...)
}

// Tables returns the tables in uid order. The caller must not modify the slice.
func (r *Registry) Tables() []*Table { return r.tables }

// Table returns the table called name, or nil.
func (r *Registry) Table(name string) *Table { return r.byName[name] }

// ByUID returns the table with the given uid, or nil.
func (r *Registry) ByUID(uid int) *Table {
	if i, found := r.searchUID(uid); found {
		return r.tables[i]
	}
	return nil
}

// searchUID returns where a table with uid is or would be in r.tables (uid order).
func (r *Registry) searchUID(uid int) (int, bool) {
	return slices.BinarySearchFunc(r.tables, uid, func(t *Table, uid int) int { return cmp.Compare(t.schema.UID, uid) })
}

// Lookup finds a table by exact name, unique name prefix, or uid (a decimal number).
func (r *Registry) Lookup(s string) (*Table, error) {
	if t := r.byName[s]; t != nil {
		return t, nil
	}
	if n, err := strconv.Atoi(s); err == nil {
		if t := r.ByUID(n); t != nil {
			return t, nil
		}
		return nil, fmt.Errorf("%w %q", ErrUnknownTable, s)
	}
	var found *Table
	for _, t := range r.tables {
		if strings.HasPrefix(t.schema.Name, s) {
			if found != nil {
				return nil, fmt.Errorf("%w: table %q", ErrAmbiguous, s)
			}
			found = t
		}
	}
	if found == nil || s == "" {
		return nil, fmt.Errorf("%w %q", ErrUnknownTable, s)
	}
	return found, nil
}

// MetaOf returns the meta table describing t's fields as viewer v sees them: the rows
// `xdump meta T` dumps.
func (r *Registry) MetaOf(t *Table, v Viewer) *Table {
	fields := make([]Field, 0, len(t.schema.Fields))
	for _, f := range t.schema.Fields {
		if f.Dump == DumpNone || !v.Deity && f.Flags&Deity != 0 {
			continue
		}
		fields = append(fields, f)
	}
	return r.metaTable(fields)
}

// maxArray caps Field.Len, and so what a parser allocates per field.
const maxArray = 1 << 16
