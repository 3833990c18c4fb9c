package xdump

import (
	"errors"
	"fmt"
)

// ErrReference is wrapped by every RefError.
var ErrReference = errors.New("xdump: bad reference")

// RefError is a field value that refers to nothing: a key missing from the referenced
// table, a value missing from a symbol table, or a bit of a symbol set without a name.
type RefError struct {
	Table string // the table holding the value
	Row   int    // row index
	Field string // field label, name(i) for an array element
	Value int64
	To    string // the referenced table
}

func (e *RefError) Error() string {
	return fmt.Sprintf("xdump: table %s row %d field %s: value %d refers to nothing in table %s",
		e.Table, e.Row, e.Field, e.Value, e.To)
}

// Unwrap returns ErrReference.
func (e *RefError) Unwrap() error { return ErrReference }

// maxRefErrors caps what Verify reports.
const maxRefErrors = 100

// Verify checks every reference in every table, in uid and row order: a field with a
// Table holds -1 (null) or a key of that table (its leftmost integer field, or the row
// index); a symbol set holds only bits named in its symbol table. It returns the
// RefErrors joined (at most 100), or nil.
func (r *Registry) Verify() error {
	keys := map[string]map[int64]bool{} // referenced table -> its keys (lookups only)
	keysOf := func(t *Table) map[int64]bool {
		if k, ok := keys[t.schema.Name]; ok {
			return k
		}
		k := make(map[int64]bool, t.Len())
		keyed := len(t.schema.Fields) > 0 && t.schema.Fields[0].Type == TypeInt && t.schema.Fields[0].Len == 0
		for row := 0; row < t.Len(); row++ {
			if keyed {
				k[t.data.get(row, 0, 0).Int] = true
			} else {
				k[int64(row)] = true
			}
		}
		keys[t.schema.Name] = k
		return k
	}
	var errs []error
	for _, t := range r.tables {
		if t == r.meta {
			continue
		}
		targets := make([]*Table, len(t.schema.Fields))
		for fi := range t.schema.Fields {
			targets[fi] = r.byName[t.schema.Fields[fi].Table]
		}
		for row := 0; row < t.Len(); row++ {
			for fi, to := range targets {
				if to == nil {
					continue
				}
				f := &t.schema.Fields[fi]
				k := keysOf(to)
				for e := 0; e < f.Elems(); e++ {
					v := t.data.get(row, fi, e).Int
					bad := false
					if f.Flags&Bits != 0 {
						for bit := int64(1); bit != 0; bit <<= 1 {
							if v&bit != 0 && !k[bit] {
								bad = true
							}
						}
					} else {
						bad = v != -1 && !k[v]
					}
					if bad {
						errs = append(errs, &RefError{Table: t.schema.Name, Row: row, Field: fieldLabel(f, e), Value: v, To: to.schema.Name})
						if len(errs) == maxRefErrors {
							return errors.Join(errs...)
						}
					}
				}
			}
		}
	}
	return errors.Join(errs...)
}
