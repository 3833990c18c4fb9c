package xdump

import "strings"

// Results of lookupSymbol.
const (
	symOK = iota
	symUnknown
	symAmbiguous
)

// lookupSymbol finds the row of t that name names: the row whose symbol field
// (Schema.SymbolField, default "name") equals name, else the only one it prefixes. The
// value is the row's leftmost field if that is an integer (a symbol table's value, a
// table's key), else the row index.
func lookupSymbol(t *Table, name string) (int64, int) {
	fi := t.FieldIndex(t.symbolField())
	if fi < 0 || t.schema.Fields[fi].Type != TypeString && t.schema.Fields[fi].Type != TypeChars {
		return 0, symUnknown
	}
	found, n := -1, 0
	for row := 0; row < t.Len(); row++ {
		v := t.data.get(row, fi, 0)
		if v.Nil || !strings.HasPrefix(v.Str, name) {
			continue
		}
		if len(v.Str) == len(name) {
			found, n = row, 1
			break
		}
		found = row
		n++
	}
	switch {
	case n == 0:
		return 0, symUnknown
	case n > 1:
		return 0, symAmbiguous
	}
	if len(t.schema.Fields) > 0 && t.schema.Fields[0].Type == TypeInt && t.schema.Fields[0].Len == 0 {
		return t.data.get(found, 0, 0).Int, symOK
	}
	return int64(found), symOK
}
