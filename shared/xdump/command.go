package xdump

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ErrCommand is wrapped by every error about an xdump command line.
var ErrCommand = errors.New("xdump: bad command")

// Usage is the command synopsis, as an error message prints it.
const Usage = `xdump ["meta"] TABLE [RECORDS] [?COND&COND...]`

// Limits on a command line, checked before allocating.
const (
	maxCommandLen = 4096
	maxRanges     = 256
	maxConds      = 32
)

// Command is a parsed xdump command: `xdump [meta] TABLE [RECORDS] [?COND&COND...]`.
type Command struct {
	Meta  bool
	Table string // name, unique prefix or uid, as given
	// Records selects rows by key (the leftmost field of a KeyIndex or KeyID table, else
	// the row index): nil means all (`*` or nothing given).
	Records []IDRange
	Conds   []Cond
}

// IDRange is an inclusive range of record ids; a single id has Lo == Hi.
type IDRange struct{ Lo, Hi int64 }

// Cond is one condition: Field Op Value, Op one of '<', '=', '>', '#' (not equal).
type Cond struct {
	Field string // field name or unique prefix; name(i) for element i of an array
	Op    byte
	Value string // a number, a "quoted string", or a symbol name
}

// ParseCommand parses an xdump command line. The leading word "xdump" is optional.
// RECORDS is `*` or ids separated by '/' or ',', each N or N-M; conditions follow a
// '?', separated by '&', and may be attached to RECORDS or stand alone.
func ParseCommand(line string) (*Command, error) {
	if len(line) > maxCommandLen {
		return nil, fmt.Errorf("%w: longer than %d bytes", ErrCommand, maxCommandLen)
	}
	words := strings.Fields(line)
	if len(words) > 0 && words[0] == "xdump" {
		words = words[1:]
	}
	c := &Command{}
	var cond string
	// Split a condition off wherever it starts.
	for i, w := range words {
		if j := strings.IndexByte(w, '?'); j >= 0 {
			cond = strings.Join(append([]string{w[j+1:]}, words[i+1:]...), "")
			words = append(words[:i:i], w[:j])
			if w[:j] == "" {
				words = words[:i]
			}
			break
		}
	}
	if len(words) > 0 && words[0] == "meta" && len(words) > 1 {
		c.Meta = true
		words = words[1:]
	}
	if len(words) == 0 || len(words) > 2 || words[0] == "meta" && !c.Meta {
		return nil, fmt.Errorf("%w: usage: %s", ErrCommand, Usage)
	}
	c.Table = words[0]
	if len(words) == 2 && words[1] != "*" {
		rs, err := parseRecords(words[1])
		if err != nil {
			return nil, err
		}
		c.Records = rs
	}
	if cond != "" || strings.Contains(line, "?") {
		cs, err := parseConds(cond)
		if err != nil {
			return nil, err
		}
		c.Conds = cs
	}
	return c, nil
}

func parseRecords(s string) ([]IDRange, error) {
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == '/' || r == ',' })
	if len(parts) == 0 || len(parts) > maxRanges {
		return nil, fmt.Errorf("%w: bad records %q", ErrCommand, s)
	}
	out := make([]IDRange, 0, len(parts))
	for _, p := range parts {
		lo, hi, isRange := strings.Cut(p, "-")
		a, err := strconv.ParseInt(lo, 10, 64)
		if err != nil || a < 0 {
			return nil, fmt.Errorf("%w: bad record id %q", ErrCommand, p)
		}
		b := a
		if isRange {
			b, err = strconv.ParseInt(hi, 10, 64)
			if err != nil || b < a {
				return nil, fmt.Errorf("%w: bad record range %q", ErrCommand, p)
			}
		}
		out = append(out, IDRange{a, b})
	}
	return out, nil
}

func parseConds(s string) ([]Cond, error) {
	var parts []string
	inQuote, start := false, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			inQuote = !inQuote
		case '&':
			if !inQuote {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
		if len(parts) > maxConds {
			break
		}
	}
	parts = append(parts, s[start:])
	if len(parts) > maxConds {
		return nil, fmt.Errorf("%w: more than %d conditions", ErrCommand, maxConds)
	}
	out := make([]Cond, 0, len(parts))
	for _, p := range parts {
		i := strings.IndexAny(p, "<=>#")
		if i <= 0 || i == len(p)-1 {
			return nil, fmt.Errorf("%w: bad condition %q", ErrCommand, p)
		}
		out = append(out, Cond{Field: p[:i], Op: p[i], Value: p[i+1:]})
	}
	return out, nil
}

// String formats the command in canonical form.
func (c *Command) String() string {
	var b strings.Builder
	b.WriteString("xdump ")
	if c.Meta {
		b.WriteString("meta ")
	}
	b.WriteString(c.Table)
	if c.Records == nil {
		b.WriteString(" *")
	} else {
		for i, r := range c.Records {
			b.WriteByte(" /"[min(i, 1)])
			b.WriteString(strconv.FormatInt(r.Lo, 10))
			if r.Hi != r.Lo {
				b.WriteByte('-')
				b.WriteString(strconv.FormatInt(r.Hi, 10))
			}
		}
	}
	for i, cd := range c.Conds {
		b.WriteByte("?&"[min(i, 1)])
		b.WriteString(cd.Field)
		b.WriteByte(cd.Op)
		b.WriteString(cd.Value)
	}
	return b.String()
}

// Exec parses and runs an xdump command for viewer v, writing the dump to w.
func (r *Registry) Exec(w io.Writer, line string, v Viewer, timestamp int64) error {
	c, err := ParseCommand(line)
	if err != nil {
		return err
	}
	return r.Run(w, c, v, timestamp)
}

// Run runs a parsed command for viewer v, writing the dump to w. Nothing is written
// when the command is wrong.
func (r *Registry) Run(w io.Writer, c *Command, v Viewer, timestamp int64) error {
	t, err := r.Lookup(c.Table)
	if err != nil {
		return commandError{err}
	}
	sel := t
	if c.Meta {
		sel = r.MetaOf(t, v)
	}
	keep, err := r.selector(sel, c, v)
	if err != nil {
		return err
	}
	return r.WriteTable(w, t, Options{Viewer: v, Meta: c.Meta, Timestamp: timestamp, Keep: keep})
}

// commandError is a lookup error that is also an ErrCommand.
type commandError struct{ err error }

func (e commandError) Error() string   { return e.err.Error() }
func (e commandError) Unwrap() []error { return []error{ErrCommand, e.err} }

type compiledCond struct {
	field, elem int
	op          byte
	val         Value
}

// selector compiles the records and conditions of c against table t.
func (r *Registry) selector(t *Table, c *Command, v Viewer) (func(int) bool, error) {
	conds := make([]compiledCond, 0, len(c.Conds))
	for _, cd := range c.Conds {
		name, elem := cd.Field, 0
		if i := strings.IndexByte(name, '('); i > 0 && strings.HasSuffix(name, ")") {
			n, err := strconv.Atoi(name[i+1 : len(name)-1])
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%w: bad index in %q", ErrCommand, name)
			}
			name, elem = name[:i], n
		}
		fi, err := findField(t, name, v)
		if err != nil {
			return nil, err
		}
		f := &t.schema.Fields[fi]
		if elem >= f.Elems() {
			return nil, fmt.Errorf("%w: field %s has no element %d", ErrCommand, f.Name, elem)
		}
		val, err := r.condValue(f, cd.Value)
		if err != nil {
			return nil, err
		}
		conds = append(conds, compiledCond{fi, elem, cd.Op, val})
	}
	if c.Records == nil && len(conds) == 0 {
		return nil, nil
	}
	keyed := t.schema.Key == KeyIndex || t.schema.Key == KeyID
	return func(row int) bool {
		if c.Records != nil {
			id := int64(row)
			if keyed {
				id = t.data.get(row, 0, 0).Int
			}
			in := false
			for _, rg := range c.Records {
				if rg.Lo <= id && id <= rg.Hi {
					in = true
					break
				}
			}
			if !in {
				return false
			}
		}
		for _, cd := range conds {
			f := &t.schema.Fields[cd.field]
			x := t.data.get(row, cd.field, cd.elem)
			if !v.Deity && f.Flags&Hidden != 0 {
				x = Value{Int: -1, Float: -1}
			}
			if !compare(f.Type, x, cd.op, cd.val) {
				return false
			}
		}
		return true
	}, nil
}

// findField finds a field v may see by exact name or unique prefix.
func findField(t *Table, name string, v Viewer) (int, error) {
	found := -1
	for i := range t.schema.Fields {
		f := &t.schema.Fields[i]
		if f.Dump == DumpNone || !v.Deity && f.Flags&Deity != 0 || !strings.HasPrefix(f.Name, name) {
			continue
		}
		if f.Name == name {
			return i, nil
		}
		if found >= 0 {
			return -1, fmt.Errorf("%w: ambiguous field %q in table %s", ErrCommand, name, t.schema.Name)
		}
		found = i
	}
	if found < 0 {
		return -1, fmt.Errorf("%w: no field %q in table %s", ErrCommand, name, t.schema.Name)
	}
	return found, nil
}

// condValue converts a condition's value for field f: a number, a quoted string, or
// (for a field referring to a table) a symbol name.
func (r *Registry) condValue(f *Field, s string) (Value, error) {
	switch f.Type {
	case TypeInt:
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return Value{Int: i}, nil
		}
		if f.Table != "" {
			if rt := r.byName[f.Table]; rt != nil {
				if val, st := lookupSymbol(rt, s); st == symOK {
					return Value{Int: val}, nil
				}
			}
		}
	case TypeFloat:
		if x, err := strconv.ParseFloat(s, 64); err == nil {
			return Value{Float: x}, nil
		}
	default:
		if s == "nil" && f.Type == TypeString {
			return Value{Nil: true}, nil
		}
		if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
			if str, ok := unquote(s[1 : len(s)-1]); ok {
				return Value{Str: str}, nil
			}
		} else {
			return Value{Str: s}, nil
		}
	}
	return Value{}, fmt.Errorf("%w: bad value %q for field %s", ErrCommand, s, f.Name)
}

func compare(t Type, x Value, op byte, y Value) bool {
	c := 0
	switch t {
	case TypeInt:
		c = cmpOrd(x.Int, y.Int)
	case TypeFloat:
		c = cmpOrd(x.Float, y.Float)
	default:
		switch {
		case x.Nil != y.Nil:
			c = 1
			if x.Nil {
				c = -1
			}
		default:
			c = strings.Compare(x.Str, y.Str)
		}
	}
	switch op {
	case '<':
		return c < 0
	case '>':
		return c > 0
	case '=':
		return c == 0
	}
	return c != 0
}

// cmpOrd is not cmp.Compare: that orders NaN below every number, whereas here a NaN
// is neither below nor above anything, as the < and > operators have it.
func cmpOrd[T int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// unquote decodes the body of an xdump string (octal escapes).
func unquote(s string) (string, bool) {
	if strings.IndexByte(s, '\\') < 0 {
		return s, true
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b = append(b, s[i])
			continue
		}
		if i+3 >= len(s) || !isOctal(s[i+1]) || !isOctal(s[i+2]) || !isOctal(s[i+3]) || s[i+1] > '3' {
			return "", false
		}
		b = append(b, (s[i+1]-'0')<<6|(s[i+2]-'0')<<3|(s[i+3]-'0'))
		i += 3
	}
	return string(b), true
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }
