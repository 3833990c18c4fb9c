package xdump

import (
	"fmt"
	"math"
	"unsafe"
)

// Table is a registered table: a Schema plus accessors to its rows. Make one with
// NewTable (rows in a Go slice, one Column per field) or SymbolTable.
type Table struct {
	schema Schema
	data   tableData
	offs   []int // offs[i]: index of field i's first element in a flattened row
	width  int   // elements in a flattened row
}

// tableData is the type-erased access the writer and parser use.
type tableData interface {
	rowCount() int
	get(row, field, elem int) Value
	// values fills dst (Table.width long) with row's flattened values.
	values(row int, dst []Value)
	// load replaces all rows with rows (one flattened []Value each, Table.width long),
	// setting only the fields for which set[field] is true; a row at an index that
	// already exists starts as a copy of it. On error nothing changes; the error
	// carries the failing row and field.
	load(rows [][]Value, set []bool, offs []int) error
}

// Schema returns the table's schema. The caller must not modify it.
func (t *Table) Schema() *Schema { return &t.schema }

// Name returns the table's name.
func (t *Table) Name() string { return t.schema.Name }

// Len returns the number of rows.
func (t *Table) Len() int { return t.data.rowCount() }

// Value returns element elem of field f in row row (elem 0 for scalars).
func (t *Table) Value(row, f, elem int) Value { return t.data.get(row, f, elem) }

// FieldIndex returns the index of the field called name, or -1.
func (t *Table) FieldIndex(name string) int {
	for i := range t.schema.Fields {
		if t.schema.Fields[i].Name == name {
			return i
		}
	}
	return -1
}

// Column is one field of a table of rows of type R: its metadata and how to read and
// write it. The constructors below cover common Go types; Func covers the rest.
type Column[R any] struct {
	f   Field
	get func(r *R, elem int) Value
	set func(r *R, elem int, v Value) error
}

// Field returns the column's metadata.
func (c Column[R]) Field() Field { return c.f }

// Ref marks the value as a key of table (or a symbol of symbol table) table.
func (c Column[R]) Ref(table string) Column[R] { c.f.Table = table; return c }

// BitsOf marks an integer field as a symbol set over symbol table table.
func (c Column[R]) BitsOf(table string) Column[R] {
	c.f.Table = table
	c.f.Flags |= Bits
	return c
}

// With adds flags (Deity, Hidden).
func (c Column[R]) With(fl Flags) Column[R] { c.f.Flags |= fl; return c }

// Dumped sets the dump setting.
func (c Column[R]) Dumped(d Dump) Column[R] { c.f.Dump = d; return c }

// Range bounds loaded integer values to [min, max].
func (c Column[R]) Range(min, max int64) Column[R] { c.f.Min, c.f.Max = min, max; return c }

// Func makes a column from a Field and accessor functions. get returns element elem
// (0..f.Elems()-1) of row r; set stores it and may refuse the value with an error
// (the parser reports it with file and line). A nil set makes the column DumpOnly.
func Func[R any](f Field, get func(r *R, elem int) Value, set func(r *R, elem int, v Value) error) Column[R] {
	if set == nil && f.Dump == DumpNormal {
		f.Dump = DumpOnly
	}
	return Column[R]{f: f, get: get, set: set}
}

// Integer is the set of Go integer types an Int column can store.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32
}

// errRange is returned by setters for values the Go type cannot hold.
var errRange = fmt.Errorf("xdump: value out of range")

func setInt[T Integer](p *T, i int64) error {
	t := T(i)
	if int64(t) != i {
		return errRange
	}
	*p = t
	return nil
}

// Int is a TypeInt column stored in the integer that p points into.
func Int[R any, T Integer](name string, p func(r *R) *T) Column[R] {
	return Column[R]{
		f:   Field{Name: name, Type: TypeInt},
		get: func(r *R, _ int) Value { return Value{Int: int64(*p(r))} },
		set: func(r *R, _ int, v Value) error { return setInt(p(r), v.Int) },
	}
}

// Ints is a TypeInt array column of n elements; p returns the backing slice (for a Go
// array field, a[:]), at least n long.
func Ints[R any, T Integer](name string, n int, p func(r *R) []T) Column[R] {
	return Column[R]{
		f:   Field{Name: name, Type: TypeInt, Len: n},
		get: func(r *R, i int) Value { return Value{Int: int64(p(r)[i])} },
		set: func(r *R, i int, v Value) error { return setInt(&p(r)[i], v.Int) },
	}
}

func setFloat[T ~float32 | ~float64](p *T, x float64) error {
	t := T(x)
	if !math.IsInf(x, 0) && math.IsInf(float64(t), 0) {
		return errRange
	}
	*p = t
	return nil
}

// Float is a TypeFloat column stored in the float32 or float64 that p points into. A
// float32 dumps in the shortest form that reads back to the same float32.
func Float[R any, T ~float32 | ~float64](name string, p func(r *R) *T) Column[R] {
	var zero T
	return Column[R]{
		f:   Field{Name: name, Type: TypeFloat, f32: unsafe.Sizeof(zero) == 4},
		get: func(r *R, _ int) Value { return Value{Float: float64(*p(r))} },
		set: func(r *R, _ int, v Value) error { return setFloat(p(r), v.Float) },
	}
}

// String is a TypeString column stored in a Go string; it never dumps nil and refuses
// to load nil.
func String[R any](name string, p func(r *R) *string) Column[R] {
	return Column[R]{
		f:   Field{Name: name, Type: TypeString},
		get: func(r *R, _ int) Value { return Value{Str: *p(r)} },
		set: func(r *R, _ int, v Value) error {
			if v.Nil {
				return fmt.Errorf("xdump: field %s doesn't take nil", name)
			}
			*p(r) = v.Str
			return nil
		},
	}
}

// NullString is a TypeString column stored in a *string; nil dumps as nil.
func NullString[R any](name string, p func(r *R) **string) Column[R] {
	return Column[R]{
		f: Field{Name: name, Type: TypeString},
		get: func(r *R, _ int) Value {
			if s := *p(r); s != nil {
				return Value{Str: *s}
			}
			return Value{Nil: true}
		},
		set: func(r *R, _ int, v Value) error {
			if v.Nil {
				*p(r) = nil
			} else {
				s := v.Str
				*p(r) = &s
			}
			return nil
		},
	}
}

// Chars is a TypeChars column of at most n bytes stored in a Go string.
func Chars[R any](name string, n int, p func(r *R) *string) Column[R] {
	return Column[R]{
		f:   Field{Name: name, Type: TypeChars, Len: n},
		get: func(r *R, _ int) Value { return Value{Str: *p(r)} },
		set: func(r *R, _ int, v Value) error {
			if len(v.Str) > n {
				return errRange
			}
			*p(r) = v.Str
			return nil
		},
	}
}

// NewTable makes a table whose rows are the elements of *rows, one Column per field in
// dump order (s.Fields is replaced by the columns' fields). The slice is read when
// dumping and replaced as a whole when a load succeeds.
func NewTable[R any](s Schema, rows *[]R, cols ...Column[R]) *Table {
	s.Fields = make([]Field, len(cols))
	for i := range cols {
		s.Fields[i] = cols[i].f
	}
	return newTable(s, &sliceData[R]{rows: rows, cols: cols})
}

func newTable(s Schema, d tableData) *Table {
	t := &Table{schema: s, data: d, offs: make([]int, len(s.Fields))}
	for i := range s.Fields {
		t.offs[i] = t.width
		t.width += s.Fields[i].Elems()
	}
	return t
}

type sliceData[R any] struct {
	rows *[]R
	cols []Column[R]
}

func (d *sliceData[R]) rowCount() int { return len(*d.rows) }

func (d *sliceData[R]) get(row, f, elem int) Value {
	return d.cols[f].get(&(*d.rows)[row], elem)
}

func (d *sliceData[R]) values(row int, dst []Value) {
	r := &(*d.rows)[row]
	k := 0
	for i := range d.cols {
		c := &d.cols[i]
		n := 1
		if c.f.Len > 0 && c.f.Type != TypeChars {
			n = c.f.Len
		}
		for e := 0; e < n; e++ {
			dst[k] = c.get(r, e)
			k++
		}
	}
}

// loadError is a loader's refusal of one value: row index, field index and element.
type loadError struct {
	row, field, elem int
	err              error
}

func (e *loadError) Error() string { return e.err.Error() }
func (e *loadError) Unwrap() error { return e.err }

func (d *sliceData[R]) load(rows [][]Value, set []bool, offs []int) error {
	old := *d.rows
	out := make([]R, len(rows))
	for i, vals := range rows {
		if i < len(old) {
			out[i] = old[i]
		}
		for f := range d.cols {
			c := &d.cols[f]
			if !set[f] || c.set == nil {
				continue
			}
			for e := 0; e < c.f.Elems(); e++ {
				if err := c.set(&out[i], e, vals[offs[f]+e]); err != nil {
					return &loadError{i, f, e, err}
				}
			}
		}
	}
	*d.rows = out
	return nil
}

// Symbol is one row of a symbol table: a value and its name.
type Symbol struct {
	Value int64
	Name  string
}

// SymbolTable makes a read-only symbol table (fields value, name) over syms. Values
// that can be members of a symbol set must be powers of two.
func SymbolTable(uid int, name string, syms []Symbol) *Table {
	rows := syms
	return NewTable(Schema{UID: uid, Name: name, ReadOnly: true}, &rows,
		Int("value", func(s *Symbol) *int64 { return &s.Value }),
		String("name", func(s *Symbol) *string { return &s.Name }))
}

// Floats is a TypeFloat array column of n elements; p returns the backing slice (for a
// Go array field, a[:]), at least n long.
func Floats[R any, T ~float32 | ~float64](name string, n int, p func(r *R) []T) Column[R] {
	var zero T
	return Column[R]{
		f:   Field{Name: name, Type: TypeFloat, Len: n, f32: unsafe.Sizeof(zero) == 4},
		get: func(r *R, i int) Value { return Value{Float: float64(p(r)[i])} },
		set: func(r *R, i int, v Value) error { return setFloat(&p(r)[i], v.Float) },
	}
}
