package xdump

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unsafe"
)

// ErrInput is wrapped by every ParseError: the input is not valid xdump for the metadata.
var ErrInput = errors.New("xdump: bad input")

// ParseError is an error in xdump input. Line and Col are 1-based (Col counts bytes;
// 0 when the error is about a whole line). errors.As finds it; errors.Is(err,
// ErrInput) holds, and Err, when set, is a loader's refusal that it wraps as well.
type ParseError struct {
	File string
	Line int
	Col  int
	Msg  string
	Err  error
}

func (e *ParseError) Error() string {
	if e.Col > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// Unwrap returns ErrInput and the loader's error, if any.
func (e *ParseError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrInput, e.Err}
	}
	return []error{ErrInput}
}

// Limits on input, checked before allocating.
const (
	MaxInput   = 64 << 20 // bytes of one input; what it parses into is at most ~40 times larger
	maxRows    = 1 << 20  // rows of one table
	maxSymbols = 64       // symbols in one symbol set
)

// Data is one table read from xdump input.
type Data struct {
	Name      string // the table named in the header
	Table     *Table // the registry's table (its meta table for a meta dump)
	Meta      bool   // `XDUMP meta NAME`: rows are NAME's field metadata
	Human     bool   // read from the human-readable dialect (`config NAME`)
	Timestamp int64  // the machine header's timestamp (0 for config)
	// Rows are the records, each flattened: Table.Schema().Fields in order, each
	// Elems() values long. Fields absent from the input are zero Values; floats of a
	// float32 column are rounded as the column stores them.
	Rows  [][]Value
	Given []bool // Given[f]: every element of field f was in the input
	Lines []int  // Lines[i]: the source line of row i (its first part)
}

// Value returns element elem of field f in row i.
func (d *Data) Value(i, f, elem int) Value { return d.Rows[i][d.Table.offs[f]+elem] }

// Parse reads every table in src, in either dialect, against the registry's metadata,
// as viewer v would have received a dump (a player's machine dumps lack Deity
// fields). It does not change the registry. A meta dump's table name need not be
// registered: that is how a client bootstraps from `xdump meta meta`. file names src
// in errors.
func (r *Registry) Parse(file string, src []byte, v Viewer) ([]*Data, error) {
	var out []*Data
	err := r.parse(file, src, v, false, func(d *Data) error {
		out = append(out, d)
		return nil
	})
	return out, err
}

// Load reads every table in src as a deity and, table by table in input order,
// replaces the rows of the registered table with the rows read (keeping values of
// fields not in the input for rows that exist). Loading also checks what only a load
// must satisfy: read-only tables are refused, keys are in order (Schema.Key), row
// counts are within MinRows..MaxRows, integers within Field.Min..Max, DumpConst fields
// unchanged. Machine-readable input for Load has no DumpOnly fields (write it with
// Options.Export); human-readable input may give them, and they are not stored. It
// stops at the first error; tables loaded before it stay loaded.
func (r *Registry) Load(file string, src []byte) error {
	return r.parse(file, src, Viewer{Deity: true}, true, func(d *Data) error {
		return r.apply(file, d)
	})
}

func (r *Registry) apply(file string, d *Data) error {
	t := d.Table
	set := make([]bool, len(t.schema.Fields))
	for f := range set {
		dm := t.schema.Fields[f].Dump
		set[f] = d.Given[f] && (dm == DumpNormal || dm == DumpConst)
	}
	err := t.data.load(d.Rows, set, t.offs)
	if le := (*loadError)(nil); errors.As(err, &le) {
		return &ParseError{File: file, Line: d.Lines[le.row], Err: le.err,
			Msg: fmt.Sprintf("field %s: %v", fieldLabel(&t.schema.Fields[le.field], le.elem), le.err)}
	}
	return err
}

type col struct{ f, e int }

type parser struct {
	r         *Registry
	file      string
	src       []byte
	pos       int
	line      int
	lineStart int
	v         Viewer
	load      bool
	strs      map[string]string // interned short strings: dumps repeat names a lot
	scratch   []byte
}

func (r *Registry) parse(file string, src []byte, v Viewer, load bool, each func(*Data) error) error {
	p := &parser{r: r, file: file, src: src, line: 1, v: v, load: load}
	if len(src) > MaxInput {
		return p.errf("input larger than %d bytes", MaxInput)
	}
	for {
		p.skipBlankLines()
		if p.pos >= len(p.src) {
			return nil
		}
		d, err := p.table()
		if err != nil {
			return err
		}
		if err := each(d); err != nil {
			return err
		}
	}
}

func (p *parser) errf(format string, args ...any) *ParseError {
	return &ParseError{File: p.file, Line: p.line, Col: p.pos - p.lineStart + 1, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) lineErr(line int, format string, args ...any) *ParseError {
	return &ParseError{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) skipSpace() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\r':
			p.pos++
		default:
			return
		}
	}
}

// atEOL reports whether the rest of the line is empty or a comment.
func (p *parser) atEOL() bool {
	return p.pos >= len(p.src) || p.src[p.pos] == '\n' || p.src[p.pos] == '#'
}

// endLine consumes an optional comment and the newline; false if anything else is there.
func (p *parser) endLine() bool {
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == '#' {
		for p.pos < len(p.src) && p.src[p.pos] != '\n' {
			p.pos++
		}
	}
	if p.pos >= len(p.src) {
		return true
	}
	if p.src[p.pos] != '\n' {
		return false
	}
	p.pos++
	p.line++
	p.lineStart = p.pos
	return true
}

func (p *parser) skipBlankLines() {
	for {
		save := p.pos
		p.skipSpace()
		if p.pos >= len(p.src) || !p.atEOL() {
			p.pos = save
			p.skipSpace()
			return
		}
		p.endLine()
	}
}

// word returns the run of bytes up to white space, '#' or a newline.
func (p *parser) word() string {
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '#' {
			break
		}
		p.pos++
	}
	return string(p.src[start:p.pos])
}

type header struct {
	human bool
	meta  bool
	name  string
	ts    int64
	line  int
}

func (p *parser) header() (header, error) {
	h := header{line: p.line}
	switch p.word() {
	case "XDUMP":
		var ws []string
		for len(ws) < 4 {
			p.skipSpace()
			if p.atEOL() {
				break
			}
			ws = append(ws, p.word())
		}
		switch {
		case len(ws) == 3 && ws[0] == "meta":
			h.meta = true
			ws = ws[1:]
		case len(ws) > 2:
			return h, p.lineErr(h.line, "junk after xdump header")
		case len(ws) < 2:
			return h, p.lineErr(h.line, "malformed xdump header")
		}
		ts, err := strconv.ParseInt(ws[1], 10, 64)
		if err != nil {
			return h, p.lineErr(h.line, "malformed timestamp in xdump header")
		}
		h.name, h.ts = ws[0], ts
	case "config":
		h.human = true
		p.skipSpace()
		h.name = p.word()
		if h.name == "" {
			return h, p.lineErr(h.line, "table name expected after config")
		}
	default:
		return h, p.lineErr(h.line, "expected xdump header")
	}
	if !validName(h.name) {
		return h, p.lineErr(h.line, "malformed table name %q", h.name)
	}
	if !p.endLine() {
		return h, p.lineErr(h.line, "junk after xdump header")
	}
	return h, nil
}

// tstate is a table being read, across the parts of a split table.
type tstate struct {
	t       *Table
	d       *Data
	given   []bool // per flattened element: given by a finished part
	nrows   int    // rows of the first part
	part    int
	keyCols []int // flattened indices of the key fields
}

func (p *parser) table() (*Data, error) {
	h, err := p.header()
	if err != nil {
		return nil, err
	}
	var t *Table
	if h.meta {
		t = p.r.meta
	} else if t = p.r.byName[h.name]; t == nil {
		return nil, p.lineErr(h.line, "unknown table '%s'", h.name)
	}
	if p.load && t.schema.ReadOnly {
		return nil, p.lineErr(h.line, "table '%s' is not permitted here", h.name)
	}
	st := &tstate{t: t, given: make([]bool, t.width),
		d: &Data{Name: h.name, Table: t, Meta: h.meta, Human: h.human, Timestamp: h.ts}}
	switch t.schema.Key {
	case KeyIndex, KeyID:
		st.keyCols = []int{0}
	case KeyOrdered:
		for _, n := range t.schema.Order {
			st.keyCols = append(st.keyCols, t.offs[t.FieldIndex(n)])
		}
	}
	if !h.human {
		var cols []col
		for _, fi := range visibleFields(t, p.v, p.load) {
			for e := 0; e < t.schema.Fields[fi].Elems(); e++ {
				cols = append(cols, col{fi, e})
			}
		}
		if err := p.records(st, cols, false); err != nil {
			return nil, err
		}
	} else {
		for {
			cols, more, err := p.colhdr(st)
			if err != nil {
				return nil, err
			}
			if err := p.records(st, cols, true); err != nil {
				return nil, err
			}
			if !more {
				break
			}
			st.part++
			p.skipBlankLines()
			if p.pos >= len(p.src) {
				return nil, p.errf("unexpected EOF")
			}
			h2, err := p.header()
			if err != nil {
				return nil, err
			}
			if !h2.human || h2.name != h.name {
				return nil, p.lineErr(h2.line, "expected table '%s', not '%s'", h.name, h2.name)
			}
		}
	}
	d := st.d
	d.Given = make([]bool, len(t.schema.Fields))
	for f := range d.Given {
		d.Given[f] = true
		for e := 0; e < t.schema.Fields[f].Elems(); e++ {
			d.Given[f] = d.Given[f] && st.given[t.offs[f]+e]
		}
	}
	return d, nil
}

func fieldLabel(f *Field, e int) string {
	if f.Elems() > 1 || f.Len > 0 && f.Type != TypeChars {
		return fmt.Sprintf("%s(%d)", f.Name, e)
	}
	return f.Name
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isIdent(c byte) bool  { return isLetter(c) || isDigit(c) || c == '-' }

func (p *parser) sepOK() bool {
	if p.pos >= len(p.src) {
		return true
	}
	switch p.src[p.pos] {
	case ' ', '\t', '\r', '\n', '#':
		return true
	}
	return false
}

// colhdr reads a human-readable column header; more is true when it ends in "...".
func (p *parser) colhdr(st *tstate) (cols []col, more bool, err error) {
	p.skipBlankLines()
	if p.pos >= len(p.src) {
		return nil, false, p.errf("unexpected EOF")
	}
	t := st.t
	line := p.line
	inPart := make([]int, len(t.schema.Fields)) // last element index given in this part + 1
	for n := 1; ; n++ {
		p.skipSpace()
		if p.atEOL() {
			break
		}
		c := p.src[p.pos]
		if c == '.' {
			if p.word() != "..." {
				return nil, false, p.errf("junk in header field %d", n)
			}
			p.skipSpace()
			if !p.atEOL() {
				return nil, false, p.errf("junk after ...")
			}
			more = true
			break
		}
		if !isLetter(c) {
			return nil, false, p.errf("junk in header field %d", n)
		}
		start := p.pos
		for p.pos < len(p.src) && isIdent(p.src[p.pos]) {
			p.pos++
		}
		name := string(p.src[start:p.pos])
		idx := -1
		if p.pos < len(p.src) && p.src[p.pos] == '(' {
			p.pos++
			p.skipSpace()
			switch {
			case p.pos < len(p.src) && (isDigit(p.src[p.pos]) || p.src[p.pos] == '-'):
				s := p.pos
				p.pos++
				for p.pos < len(p.src) && isDigit(p.src[p.pos]) {
					p.pos++
				}
				i, err := strconv.Atoi(string(p.src[s:p.pos]))
				if err != nil {
					return nil, false, p.errf("malformed number in index of header field %d", n)
				}
				p.skipSpace()
				if p.pos >= len(p.src) || p.src[p.pos] != ')' {
					return nil, false, p.errf("malformed index in header field %d", n)
				}
				p.pos++
				if i < 0 {
					return nil, false, p.errf("index must not be negative in header field %d", n)
				}
				idx = i
			case p.pos < len(p.src) && isLetter(p.src[p.pos]):
				return nil, false, p.errf("symbolic index in header field %d not yet implemented", n)
			default:
				return nil, false, p.errf("malformed index in header field %d", n)
			}
		}
		if !p.sepOK() {
			return nil, false, p.errf("bad field separator after field %d", n)
		}
		fi, err := p.headerField(t, name, n)
		if err != nil {
			return nil, false, err
		}
		f := &t.schema.Fields[fi]
		isArray := f.Len > 0 && f.Type != TypeChars
		switch {
		case !isArray && idx >= 0:
			return nil, false, p.errf("header '%s' doesn't take an index in field %d", f.Name, n)
		case !isArray:
			if inPart[fi] > 0 {
				return nil, false, p.errf("duplicate header '%s' in field %d", f.Name, n)
			}
			idx = 0
		case idx < 0:
			return nil, false, p.errf("header '%s' requires an index in field %d", f.Name, n)
		default:
			want := inPart[fi]
			if want == 0 && idx != 0 {
				// A part may continue an array where earlier parts stopped.
				for want < f.Len && st.given[t.offs[fi]+want] {
					want++
				}
				if idx != want {
					want = 0
				}
			}
			if idx != want {
				if want < f.Len {
					return nil, false, p.errf("expected header '%s(%d)' in field %d", f.Name, want, n)
				}
				return nil, false, p.errf("unexpected header '%s(%d)' in field %d", f.Name, idx, n)
			}
		}
		inPart[fi] = idx + 1
		cols = append(cols, col{fi, idx})
	}
	if len(cols) == 0 {
		return nil, false, p.lineErr(line, "header fields expected")
	}
	p.endLine()
	if !more {
		inPart := make([]bool, t.width)
		for _, c := range cols {
			inPart[t.offs[c.f]+c.e] = true
		}
		given := func(k int) bool { return st.given[k] || inPart[k] }
		for fi := range t.schema.Fields {
			f := &t.schema.Fields[fi]
			if f.Dump == DumpOnly || f.Dump == DumpNone || !p.v.Deity && f.Flags&Deity != 0 {
				continue
			}
			for e := 0; e < f.Elems(); e++ {
				if given(t.offs[fi] + e) {
					continue
				}
				e2 := e
				for e2+1 < f.Elems() && !given(t.offs[fi]+e2+1) {
					e2++
				}
				if e2 > e {
					return nil, false, p.lineErr(line, "header '%s' ... '%s' missing", fieldLabel(f, e), fieldLabel(f, e2))
				}
				return nil, false, p.lineErr(line, "header '%s' missing", fieldLabel(f, e))
			}
		}
	}
	return cols, more, nil
}

// headerField finds the field a column header names: exact name or unique prefix.
func (p *parser) headerField(t *Table, name string, n int) (int, error) {
	found, count := -1, 0
	for i := range t.schema.Fields {
		f := &t.schema.Fields[i]
		if !strings.HasPrefix(f.Name, name) {
			continue
		}
		hidden := f.Dump == DumpNone || !p.v.Deity && f.Flags&Deity != 0
		if f.Name == name {
			if hidden {
				return -1, p.errf("extraneous header '%s' in field %d", name, n)
			}
			return i, nil
		}
		if !hidden {
			found = i
			count++
		}
	}
	switch {
	case count == 0:
		return -1, p.errf("unknown header '%s' in field %d", name, n)
	case count > 1:
		return -1, p.errf("ambiguous header '%s' in field %d", name, n)
	}
	return found, nil
}

// records reads records up to and including the footer.
func (p *parser) records(st *tstate, cols []col, human bool) error {
	t, d := st.t, st.d
	row, footerLine := 0, 0
	var chunk []Value
	for {
		if len(cols) > 0 || human {
			p.skipBlankLines()
		} else {
			p.skipSpace()
		}
		if p.pos >= len(p.src) {
			return p.errf("unexpected EOF")
		}
		line := p.line
		if p.src[p.pos] == '/' {
			if err := p.footer(human, row); err != nil {
				return err
			}
			footerLine = line
			break
		}
		if st.part == 0 {
			if row >= maxRows || p.load && t.schema.MaxRows > 0 && row >= t.schema.MaxRows {
				return p.lineErr(line, "too many rows")
			}
			if len(chunk) < t.width {
				// Allocate rows in chunks of at most 16k values (and at least one row).
				chunk = make([]Value, t.width*min(64, max(1, 16384/max(t.width, 1))))
			}
			d.Rows = append(d.Rows, chunk[:t.width:t.width])
			chunk = chunk[t.width:]
			d.Lines = append(d.Lines, line)
		} else if row >= st.nrows {
			return p.lineErr(line, "table's first part doesn't have this row")
		}
		if err := p.record(st, cols, row); err != nil {
			return err
		}
		row++
	}
	if st.part == 0 {
		st.nrows = row
		if p.load && row < t.schema.MinRows {
			return p.lineErr(footerLine, "expected %d more rows", t.schema.MinRows-row)
		}
	} else if row < st.nrows {
		return p.lineErr(footerLine, "table's first part has more rows")
	}
	for _, c := range cols {
		st.given[t.offs[c.f]+c.e] = true
	}
	return nil
}

func (p *parser) footer(human bool, rows int) error {
	line := p.line
	p.pos++
	if human {
		w := p.word()
		switch {
		case w == "config":
		case strings.HasPrefix(w, "config"):
			return p.lineErr(line, "junk after table footer")
		default:
			return p.lineErr(line, "malformed table footer")
		}
	} else {
		s := p.pos
		for p.pos < len(p.src) && isDigit(p.src[p.pos]) {
			p.pos++
		}
		if s == p.pos {
			return p.lineErr(line, "malformed table footer")
		}
		if !p.sepOK() {
			return p.lineErr(line, "junk after table footer")
		}
		n, err := strconv.Atoi(string(p.src[s:p.pos]))
		if err != nil || n != rows {
			return p.lineErr(line, "expected footer /%d", rows)
		}
	}
	if !p.endLine() {
		return p.lineErr(line, "junk after table footer")
	}
	return nil
}

// record reads one record of cols into row.
func (p *parser) record(st *tstate, cols []col, row int) error {
	t := st.t
	vals := st.d.Rows[row]
	for i, c := range cols {
		n := i + 1
		f := &t.schema.Fields[c.f]
		p.skipSpace()
		if p.atEOL() {
			return p.errf("field '%s' missing", fieldLabel(f, c.e))
		}
		start := p.pos
		v, err := p.value(f, n)
		if err != nil {
			if pe, ok := err.(*ParseError); ok {
				pe.Col = start - p.lineStart + 1 // point at the field
			}
			return err
		}
		if !p.sepOK() {
			return p.errf("bad field separator after field %d", n)
		}
		k := t.offs[c.f] + c.e
		if st.given[k] {
			if !v.equal(vals[k], f.Type) {
				p.pos = start
				return p.errf("value for field %d must be %s", n, formatValue(f, vals[k]))
			}
			continue
		}
		if p.load {
			if f.Type == TypeInt && f.Min < f.Max && (v.Int < f.Min || v.Int > f.Max) {
				p.pos = start
				return p.errf("field %d must be between %d and %d", n, f.Min, f.Max)
			}
			if f.Dump == DumpConst && row < t.Len() {
				if old := t.data.get(row, c.f, c.e); !v.equal(old, f.Type) {
					p.pos = start
					return p.errf("value for field %d must be %s", n, formatValue(f, old))
				}
			}
		}
		vals[k] = v
	}
	p.skipSpace()
	if !p.atEOL() {
		return p.errf("too many fields, expected only %d", len(cols))
	}
	if p.load {
		if err := p.checkKey(st, cols, row); err != nil {
			return err
		}
	}
	p.endLine()
	return nil
}

// checkKey checks a row's key in the first part that gives all key fields.
func (p *parser) checkKey(st *tstate, cols []col, row int) error {
	if len(st.keyCols) == 0 {
		return nil
	}
	t := st.t
	have := 0
	for _, c := range cols {
		for _, k := range st.keyCols {
			if t.offs[c.f]+c.e == k && !st.given[k] {
				have++
			}
		}
	}
	if have < len(st.keyCols) {
		return nil
	}
	vals := st.d.Rows[row]
	line := p.line
	switch t.schema.Key {
	case KeyIndex:
		if vals[0].Int != int64(row) {
			return p.lineErr(line, "expected %d in field %s", row, t.schema.Fields[0].Name)
		}
	case KeyID:
		k := vals[0].Int
		prev := int64(-1)
		if row > 0 {
			prev = st.d.Rows[row-1][0].Int
		}
		if k <= prev {
			return p.lineErr(line, "field %s must be > %d", t.schema.Fields[0].Name, prev)
		}
		if t.schema.MaxRows > 0 && k >= int64(t.schema.MaxRows) {
			return p.lineErr(line, "field %s must be <= %d", t.schema.Fields[0].Name, t.schema.MaxRows-1)
		}
	case KeyOrdered:
		if row > 0 {
			prev := st.d.Rows[row-1]
			c := 0
			for _, k := range st.keyCols {
				if c = cmpOrd(vals[k].Int, prev[k].Int); c != 0 {
					break
				}
			}
			if c <= 0 {
				parts := make([]string, len(st.keyCols))
				for i, k := range st.keyCols {
					parts[i] = strconv.FormatInt(prev[k].Int, 10)
				}
				return p.lineErr(line, "key fields %s must be > (%s)", strings.Join(t.schema.Order, ","), strings.Join(parts, ","))
			}
		}
	}
	return nil
}

func formatValue(f *Field, v Value) string {
	return string(appendValue(nil, f, v))
}

// value reads one field value for f (field number n in the line).
func (p *parser) value(f *Field, n int) (Value, error) {
	c := p.src[p.pos]
	switch {
	case c == '"':
		s, err := p.quoted(n)
		if err != nil {
			return Value{}, err
		}
		switch f.Type {
		case TypeString:
		case TypeChars:
			if len(s) > f.Len {
				return Value{}, p.errf("field %d takes at most %d characters", n, f.Len)
			}
		default:
			return Value{}, p.errf("field %d doesn't take strings", n)
		}
		return Value{Str: s}, nil
	case c == '(':
		return p.symset(f, n)
	case isLetter(c):
		start := p.pos
		for p.pos < len(p.src) && isIdent(p.src[p.pos]) {
			p.pos++
		}
		w := unsafeString(p.src[start:p.pos])
		switch {
		case w == "nil":
			if f.Type == TypeString {
				return Value{Nil: true}, nil
			}
			return Value{}, p.errf("field %d doesn't take nil", n)
		case f.Type == TypeFloat && (strings.EqualFold(w, "inf") || strings.EqualFold(w, "nan")):
			x, _ := strconv.ParseFloat(w, 64)
			return Value{Float: x}, nil
		case f.Type == TypeInt && f.Table != "":
			val, err := p.symbol(f, w, n)
			return Value{Int: val}, err
		}
		return Value{}, p.errf("field %d doesn't take symbols", n)
	case isDigit(c) || c == '-' || c == '+' || c == '.':
		start := p.pos
		for p.pos < len(p.src) && (isIdent(p.src[p.pos]) || p.src[p.pos] == '.' || p.src[p.pos] == '+') {
			p.pos++
		}
		return p.number(f, p.src[start:p.pos], n)
	}
	return Value{}, p.errf("junk in field %d", n)
}

func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

func (p *parser) number(f *Field, tok []byte, n int) (Value, error) {
	if f.Type == TypeString || f.Type == TypeChars {
		return Value{}, p.errf("field %d doesn't take numbers", n)
	}
	if f.Type == TypeInt {
		if i, ok := parseInt(tok); ok {
			return Value{Int: i}, nil
		}
	}
	x, err := strconv.ParseFloat(unsafeString(tok), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return Value{}, p.errf("malformed number in field %d", n)
	}
	if f.Type == TypeFloat {
		if f.f32 && !math.IsInf(x, 0) {
			y := float32(x) // read as the column stores it
			if math.IsInf(float64(y), 0) {
				err = strconv.ErrRange
			}
			x = float64(y)
		}
		if err != nil {
			return Value{}, p.errf("field %d can't hold this value", n)
		}
		return Value{Float: x}, nil
	}
	if x != math.Trunc(x) || x < math.MinInt64 || x >= math.MaxInt64 {
		return Value{}, p.errf("field %d can't hold this value", n)
	}
	return Value{Int: int64(x)}, nil
}

// parseInt parses [+-]digits without allocating; false if tok is not that or overflows.
func parseInt(tok []byte) (int64, bool) {
	neg := false
	i := 0
	if len(tok) > 0 && (tok[0] == '-' || tok[0] == '+') {
		neg = tok[0] == '-'
		i = 1
	}
	if i == len(tok) || len(tok)-i > 18 {
		if len(tok)-i > 18 {
			v, err := strconv.ParseInt(unsafeString(tok), 10, 64)
			return v, err == nil
		}
		return 0, false
	}
	var v int64
	for ; i < len(tok); i++ {
		c := tok[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

func (p *parser) quoted(n int) (string, error) {
	p.pos++ // opening quote
	start := p.pos
	esc := false
	for {
		if p.pos >= len(p.src) {
			return "", p.errf("malformed string in field %d", n)
		}
		c := p.src[p.pos]
		if c == '"' {
			break
		}
		if c < 32 || c > 126 {
			return "", p.errf("malformed string in field %d", n)
		}
		if c == '\\' {
			if p.pos+3 >= len(p.src) || !isOctal(p.src[p.pos+1]) || !isOctal(p.src[p.pos+2]) || !isOctal(p.src[p.pos+3]) || p.src[p.pos+1] > '3' {
				return "", p.errf("invalid escape sequence in field %d", n)
			}
			esc = true
			p.pos += 3
		}
		p.pos++
	}
	body := p.src[start:p.pos]
	p.pos++ // closing quote
	if !esc {
		return p.intern(body), nil
	}
	b := p.scratch[:0]
	for i := 0; i < len(body); i++ {
		if body[i] == '\\' {
			b = append(b, (body[i+1]-'0')<<6|(body[i+2]-'0')<<3|(body[i+3]-'0'))
			i += 3
			continue
		}
		b = append(b, body[i])
	}
	p.scratch = b
	return p.intern(b), nil
}

func (p *parser) intern(b []byte) string {
	if s, ok := p.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(s) <= 64 && len(p.strs) < 4096 {
		if p.strs == nil {
			p.strs = map[string]string{}
		}
		p.strs[s] = s
	}
	return s
}

func (p *parser) symbol(f *Field, name string, n int) (int64, error) {
	t := p.r.byName[f.Table]
	st := symUnknown
	var v int64
	if t != nil {
		v, st = lookupSymbol(t, name)
	}
	switch st {
	case symUnknown:
		return 0, p.errf("unknown %s symbol '%s' in field %d", f.Name, name, n)
	case symAmbiguous:
		return 0, p.errf("ambiguous %s symbol '%s' in field %d", f.Name, name, n)
	}
	return v, nil
}

func (p *parser) symset(f *Field, n int) (Value, error) {
	if f.Flags&Bits == 0 {
		return Value{}, p.errf("field %d doesn't take symbol sets", n)
	}
	p.pos++
	var bits int64
	for k := 0; ; k++ {
		p.skipSpace()
		if p.pos < len(p.src) && p.src[p.pos] == ')' {
			p.pos++
			return Value{Int: bits}, nil
		}
		if p.atEOL() {
			return Value{}, p.errf("unmatched '(' in field %d", n)
		}
		if !isLetter(p.src[p.pos]) || k >= maxSymbols {
			return Value{}, p.errf("junk in field %d", n)
		}
		start := p.pos
		for p.pos < len(p.src) && isIdent(p.src[p.pos]) {
			p.pos++
		}
		v, err := p.symbol(f, unsafeString(p.src[start:p.pos]), n)
		if err != nil {
			return Value{}, err
		}
		bits |= v
	}
}
