package xdump

import (
	"io"
	"math"
	"strconv"
)

// Options say how WriteTable dumps a table.
type Options struct {
	Viewer    Viewer
	Meta      bool  // write `xdump meta T` (rows from MetaOf) instead of T's data
	Timestamp int64 // the header's timestamp
	// Keep, if set, selects rows (by index; among the meta rows for a meta dump).
	Keep func(row int) bool
	// Export omits DumpOnly fields: the machine form Load reads back.
	Export bool
}

// WriteTable writes the machine-readable dump of t as o.Viewer sees it: header
// `XDUMP [meta ]NAME TIMESTAMP`, one line per row, footer `/N`.
func (r *Registry) WriteTable(w io.Writer, t *Table, o Options) error {
	meta, v, timestamp, keep := o.Meta, o.Viewer, o.Timestamp, o.Keep
	name := t.schema.Name
	if meta {
		t = r.MetaOf(t, v)
	}
	cols := visibleFields(t, v, o.Export)
	vals := make([]Value, t.width)
	buf := make([]byte, 0, 32<<10+512)
	buf = append(buf, "XDUMP "...)
	if meta {
		buf = append(buf, "meta "...)
	}
	buf = append(buf, name...)
	buf = append(buf, ' ')
	buf = strconv.AppendInt(buf, timestamp, 10)
	buf = append(buf, '\n')
	n := 0
	for row := 0; row < t.Len(); row++ {
		if !t.rowVisible(v, row) || keep != nil && !keep(row) {
			continue
		}
		t.data.values(row, vals)
		buf = t.appendRow(buf, vals, cols, v)
		n++
		if len(buf) >= 32<<10 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	buf = append(buf, '/')
	buf = strconv.AppendInt(buf, int64(n), 10)
	buf = append(buf, '\n')
	_, err := w.Write(buf)
	return err
}

// visibleFields returns the indices of the fields a dump for v contains.
func visibleFields(t *Table, v Viewer, export bool) []int {
	cols := make([]int, 0, len(t.schema.Fields))
	for i := range t.schema.Fields {
		f := &t.schema.Fields[i]
		if f.Dump == DumpNone || export && f.Dump == DumpOnly || !v.Deity && f.Flags&Deity != 0 {
			continue
		}
		cols = append(cols, i)
	}
	return cols
}

func (t *Table) rowVisible(v Viewer, row int) bool {
	return v.Deity || t.schema.Visible == nil || t.schema.Visible(v, row)
}

// appendRow appends one record line: the given fields of a row's flattened values,
// single-space separated.
func (t *Table) appendRow(buf []byte, vals []Value, cols []int, v Viewer) []byte {
	for i, fi := range cols {
		f := &t.schema.Fields[fi]
		mask := !v.Deity && f.Flags&Hidden != 0
		off := t.offs[fi]
		for e := 0; e < f.Elems(); e++ {
			if i > 0 || e > 0 {
				buf = append(buf, ' ')
			}
			if mask {
				buf = append(buf, "-1"...)
				continue
			}
			buf = appendValue(buf, f, vals[off+e])
		}
	}
	return append(buf, '\n')
}

// appendValue appends one field in machine-readable syntax.
func appendValue(buf []byte, f *Field, val Value) []byte {
	switch f.Type {
	case TypeInt:
		return strconv.AppendInt(buf, val.Int, 10)
	case TypeFloat:
		return appendFloat(buf, val.Float, f.f32)
	case TypeString:
		if val.Nil {
			return append(buf, "nil"...)
		}
	}
	return appendQuoted(buf, val.Str)
}

// appendFloat writes the shortest %g-style form that reads back exactly (as a float32
// when f32), and inf, -inf, nan as C's printf does.
func appendFloat(buf []byte, x float64, f32 bool) []byte {
	switch {
	case math.IsNaN(x):
		return append(buf, "nan"...)
	case math.IsInf(x, 1):
		return append(buf, "inf"...)
	case math.IsInf(x, -1):
		return append(buf, "-inf"...)
	}
	bits := 64
	if f32 {
		bits = 32
	}
	return strconv.AppendFloat(buf, x, 'g', -1, bits)
}

// appendQuoted writes s as an xdump string: bytes 33..126 except '"' and '\' as
// themselves, all others as a backslash and three octal digits.
func appendQuoted(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 33 || c > 126 || c == '"' || c == '\\' {
			buf = append(buf, '\\', '0'+c>>6, '0'+c>>3&7, '0'+c&7)
			continue
		}
		buf = append(buf, c)
	}
	return append(buf, '"')
}
