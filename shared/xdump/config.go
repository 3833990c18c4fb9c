package xdump

import (
	"io"
	"strings"
)

// WriteConfig writes t in the human-readable dialect, the form of a config file that
// Load reads back: `config NAME`, a column header, one aligned line per row, and
// `/config`. It writes the fields a load stores (no DumpOnly or DumpNone fields),
// values of fields referring to a read-only (symbol) table by symbol name, symbol sets
// as (a b), and strings with octal escapes only where the human dialect needs them.
func (r *Registry) WriteConfig(w io.Writer, t *Table) error {
	var cols []int
	var head []string
	for fi := range t.schema.Fields {
		f := &t.schema.Fields[fi]
		if f.Dump == DumpOnly || f.Dump == DumpNone {
			continue
		}
		for e := 0; e < f.Elems(); e++ {
			cols = append(cols, fi)
			head = append(head, fieldLabel(f, e))
		}
	}
	cells := [][]string{head}
	vals := make([]Value, t.width)
	for row := 0; row < t.Len(); row++ {
		t.data.values(row, vals)
		line := make([]string, 0, len(cols))
		prev, e := -1, 0
		for _, fi := range cols {
			if fi == prev {
				e++
			} else {
				prev, e = fi, 0
			}
			f := &t.schema.Fields[fi]
			line = append(line, r.configValue(f, vals[t.offs[fi]+e]))
		}
		cells = append(cells, line)
	}
	width := make([]int, len(cols))
	for _, line := range cells {
		for i, c := range line {
			width[i] = max(width[i], len(c))
		}
	}
	var b strings.Builder
	b.WriteString("config ")
	b.WriteString(t.schema.Name)
	b.WriteByte('\n')
	for _, line := range cells {
		var l strings.Builder
		for i, c := range line {
			if i > 0 {
				l.WriteByte(' ')
			}
			l.WriteString(c)
			l.WriteString(strings.Repeat(" ", width[i]-len(c)))
		}
		b.WriteString(strings.TrimRight(l.String(), " "))
		b.WriteByte('\n')
	}
	b.WriteString("/config\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// configValue formats one value for a config file.
func (r *Registry) configValue(f *Field, v Value) string {
	if f.Type == TypeInt && f.Table != "" {
		if st := r.byName[f.Table]; st != nil && st.schema.ReadOnly {
			if f.Flags&Bits != 0 {
				if s, ok := symbolSet(st, v.Int); ok {
					return s
				}
			} else if name, ok := symbolName(st, v.Int); ok {
				return name
			}
		}
	}
	if f.Type == TypeString || f.Type == TypeChars {
		if v.Nil && f.Type == TypeString {
			return "nil"
		}
		b := []byte{'"'}
		for i := 0; i < len(v.Str); i++ {
			c := v.Str[i]
			if c < 32 || c > 126 || c == '"' || c == '\\' {
				b = append(b, '\\', '0'+c>>6, '0'+c>>3&7, '0'+c&7)
				continue
			}
			b = append(b, c)
		}
		return string(append(b, '"'))
	}
	return string(appendValue(nil, f, v))
}

// symbolName returns the name that reads back as value in table t, if there is one.
func symbolName(t *Table, value int64) (string, bool) {
	sf := t.FieldIndex(t.symbolField())
	if sf < 0 || len(t.schema.Fields) == 0 || t.schema.Fields[0].Type != TypeInt {
		return "", false
	}
	for row := 0; row < t.Len(); row++ {
		if t.data.get(row, 0, 0).Int != value {
			continue
		}
		name := t.data.get(row, sf, 0).Str
		if !isSymbolName(name) {
			return "", false
		}
		if v, st := lookupSymbol(t, name); st == symOK && v == value {
			return name, true
		}
		return "", false
	}
	return "", false
}

// symbolSet writes bits as (a b ...) if every bit has a name.
func symbolSet(t *Table, bits int64) (string, bool) {
	var names []string
	for bit := int64(1); bit != 0 && bits != 0; bit <<= 1 {
		if bits&bit == 0 {
			continue
		}
		name, ok := symbolName(t, bit)
		if !ok {
			return "", false
		}
		names = append(names, name)
		bits &^= bit
	}
	return "(" + strings.Join(names, " ") + ")", true
}

func isSymbolName(s string) bool {
	if s == "" || !isLetter(s[0]) || s == "nil" || strings.EqualFold(s, "inf") || strings.EqualFold(s, "nan") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIdent(s[i]) {
			return false
		}
	}
	return true
}

func (t *Table) symbolField() string {
	if t.schema.SymbolField != "" {
		return t.schema.SymbolField
	}
	return "name"
}
