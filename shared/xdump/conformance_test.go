package xdump

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/twinframe/twinframe/internal/testenv"
)

// The Empire conformance data is read in place, never copied into the repository
// (it is GPL). It lives in shared/conformance/empire beside the repository (from
// shared/xdump, ../../.. is the directory holding the repository), or wherever
// TWINFRAME_CONFORMANCE points (the folder holding empire/).
var empireDir = conformanceDir()

func conformanceDir() string {
	if d := os.Getenv("TWINFRAME_CONFORMANCE"); d != "" {
		return filepath.Join(d, "empire")
	}
	return filepath.Join("..", "..", "..", "shared", "conformance", "empire")
}

// requireEmpire skips the test when the conformance data is not beside the
// repository, saying where it looked.
func requireEmpire(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(empireDir); err != nil {
		testenv.Missing(t, "conformance data absent (%s; set TWINFRAME_CONFORMANCE): %v", empireDir, err)
	}
}

func empireFiles(t *testing.T, sub string) []string {
	t.Helper()
	requireEmpire(t)
	ents, err := os.ReadDir(filepath.Join(empireDir, sub))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, filepath.Join(empireDir, sub, e.Name()))
	}
	return out
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rec is a row of an Empire table in the fixture: one Value per dump field.
type rec struct{ v []Value }

// empire is a registry rebuilt from Empire's own dumps: its meta dumps say how to read
// its data dumps.
type empire struct {
	reg     *Registry
	rows    map[string]*[]rec
	names   map[int]string // uid -> table name
	tweaked map[string]bool
}

var empireUIDs = MetaUIDs{Table: 29, Meta: 31, Type: 36, Flags: 35}

// What Empire's meta dumps do not say and its loader knows (the tables' own rules in
// Twinframe terms). Used for the error inputs and loads only.
var (
	empireIndexKey = map[string]bool{"item": true, "product": true, "sect-chr": true}
	empireFixed    = map[string]int{"item": 14, "sect-chr": 34, "infrastructure": 3}
	empireSymField = map[string]string{"item": "mnem", "product": "sname"}
)

func (e *empire) tweak(s *Schema) {
	for i := range s.Fields {
		f := &s.Fields[i]
		if f.Table == s.Name && i == 0 && s.Key == KeyNone {
			s.Key = KeyID
			if empireIndexKey[s.Name] {
				s.Key = KeyIndex
			}
		}
		if strings.HasSuffix(f.Name, "_build") && f.Name != "l_build" && f.Name != "h_build" &&
			!(s.Name == "nuke-chr" && (f.Name == "o_build" || f.Name == "r_build")) {
			f.Dump = DumpOnly // optional in config files
		}
	}
	if n, ok := empireFixed[s.Name]; ok {
		s.MinRows, s.MaxRows = n, n
	}
	s.SymbolField = empireSymField[s.Name]
	if len(s.Fields) == 2 && s.Fields[0].Name == "value" && s.Fields[1].Name == "name" {
		s.ReadOnly = true
	}
	set := func(name string, fn func(f *Field)) {
		for i := range s.Fields {
			if s.Fields[i].Name == name {
				fn(&s.Fields[i])
				e.tweaked[s.Name] = true
			}
		}
	}
	switch s.Name {
	case "nat":
		s.MaxRows = 99
	case "sect":
		s.Key, s.Order = KeyOrdered, []string{"xloc", "yloc"}
		set("xloc", func(f *Field) { f.Min, f.Max = -32, 31 })
		set("yloc", func(f *Field) { f.Min, f.Max = -16, 15 })
	case "realm":
		s.Key, s.Order = KeyOrdered, []string{"cnum", "realm"}
		set("cnum", func(f *Field) { f.Min, f.Max = 0, 98 })
		set("realm", func(f *Field) { f.Min, f.Max = 0, 49 })
	case "infrastructure":
		set("name", func(f *Field) { f.Dump = DumpConst })
	case "land":
		set("rpath", func(f *Field) { f.Type, f.Len = TypeChars, 9 })
	}
}

func (e *empire) register(t *testing.T, uid int, name string, fields []Field) {
	t.Helper()
	s := Schema{UID: uid, Name: name}
	rows := &[]rec{}
	e.rows[name] = rows
	var cols []Column[rec]
	off, width := 0, 0
	for _, f := range fields {
		o := off
		cols = append(cols, Func(f,
			func(r *rec, i int) Value { return r.v[o+i] },
			func(r *rec, i int, v Value) error {
				r.v = slices.Clone(r.v) // rows are copied by value: never share
				if r.v == nil {
					r.v = make([]Value, width) // a new row
				}
				r.v[o+i] = v
				return nil
			}).Dumped(f.Dump))
		off += f.Elems()
	}
	width = off
	tab := NewTable(s, rows, cols...)
	e.tweak(&tab.schema)
	// Recompute offsets after a tweak changed a type (c arrays take one field).
	tab2 := newTable(tab.schema, tab.data)
	if err := e.reg.Register(tab2); err != nil {
		t.Fatal(err)
	}
	if w := tab2.width; w != off {
		t.Fatalf("%s: width changed by fixture tweak", name)
	}
}

// snapshot copies every fixture table's rows; restore puts them back, so that each
// load starts from the same state without rebuilding the fixture.
func (e *empire) snapshot() map[string][]rec {
	s := map[string][]rec{}
	for name, rows := range e.rows {
		s[name] = slices.Clone(*rows)
	}
	return s
}

func (e *empire) restore(s map[string][]rec) {
	for name, rows := range s {
		*e.rows[name] = slices.Clone(rows)
	}
}

func parseOne(t *testing.T, r *Registry, name string, v Viewer) *Data {
	t.Helper()
	ds, err := r.Parse(name, readFile(t, name), v)
	if err != nil {
		t.Fatalf("%v", err)
	}
	if len(ds) != 1 {
		t.Fatalf("%s: %d tables", name, len(ds))
	}
	return ds[0]
}

var isDump = []byte("XDUMP ")

// newEmpire bootstraps from `xdump meta meta` and `xdump table *`, then registers
// every table from its meta dump and loads the deity's data dumps.
func newEmpire(t *testing.T) *empire {
	t.Helper()
	e := &empire{reg: NewRegistry(empireUIDs), rows: map[string]*[]rec{}, names: map[int]string{}, tweaked: map[string]bool{}}
	requireEmpire(t)
	dir := filepath.Join(empireDir, "version")
	// The built-in meta table must read Empire's meta-meta dump.
	mm := parseOne(t, e.reg, filepath.Join(dir, "032_Play0_xdump_meta_31.txt"), Viewer{Deity: true})
	if !mm.Meta || mm.Name != "meta" || len(mm.Rows) != 5 {
		t.Fatalf("meta meta: %+v", mm)
	}
	tt := parseOne(t, e.reg, filepath.Join(dir, "066_Play0_xdump_table_.txt"), Viewer{Deity: true})
	for i := range tt.Rows {
		e.names[int(tt.Value(i, 0, 0).Int)] = tt.Value(i, 1, 0).Str
	}
	files := empireFiles(t, "version")
	for _, name := range files {
		src := readFile(t, name)
		if !bytes.HasPrefix(src, []byte("XDUMP meta ")) || !strings.Contains(name, "Play0") {
			continue
		}
		d := parseOne(t, e.reg, name, Viewer{Deity: true})
		uid := -1
		for u, n := range e.names {
			if n == d.Name {
				uid = u
			}
		}
		if uid < 0 {
			t.Fatalf("%s: table %s not in the table of tables", name, d.Name)
		}
		if e.reg.Table(d.Name) != nil { // a built-in meta table
			continue
		}
		var fields []Field
		for i := range d.Rows {
			f := Field{Name: d.Value(i, 0, 0).Str, Type: Type(d.Value(i, 1, 0).Int),
				Flags: Flags(d.Value(i, 2, 0).Int), Len: int(d.Value(i, 3, 0).Int)}
			if ref := d.Value(i, 4, 0).Int; ref >= 0 {
				f.Table = e.names[int(ref)]
			}
			fields = append(fields, f)
		}
		e.register(t, uid, d.Name, fields)
	}
	if err := e.reg.Check(); err != nil {
		t.Fatal(err)
	}
	// Data: fill the fixture's rows from the deity's dumps.
	for _, sub := range []string{"version", "smoke"} {
		for _, name := range empireFiles(t, sub) {
			src := readFile(t, name)
			if !bytes.HasPrefix(src, isDump) || bytes.HasPrefix(src, []byte("XDUMP meta ")) || !strings.Contains(name, "Play0") {
				continue
			}
			d := parseOne(t, e.reg, name, Viewer{Deity: true})
			rows := e.rows[d.Name]
			if rows == nil {
				continue // a built-in table; compared by TestEmpireVersion
			}
			*rows = (*rows)[:0]
			for _, r := range d.Rows {
				*rows = append(*rows, rec{r})
			}
		}
	}
	return e
}

// TestEmpireVersion reads every dump in version/ and smoke/ with metadata learnt from
// the meta dumps, and writes the same bytes back where Empire's float format (%g with
// six digits) does not differ from ours.
func TestEmpireVersion(t *testing.T) {
	e := newEmpire(t)
	counts := map[string]int{}
	for _, sub := range []string{"version", "smoke"} {
		for _, name := range empireFiles(t, sub) {
			src := readFile(t, name)
			base := filepath.Base(name)
			if !bytes.HasPrefix(src, isDump) {
				// Command output that is not a dump: usage errors, access denied.
				_, err := e.reg.Parse(name, src, Viewer{})
				var pe *ParseError
				if !errors.As(err, &pe) || pe.Line != 1 {
					t.Errorf("%s: not a dump, want error on line 1, got %v", base, err)
				}
				if sub == "version" {
					if err := e.reg.Exec(&bytes.Buffer{}, commandOf(base), Viewer{}, 0); !errors.Is(err, ErrCommand) {
						t.Errorf("%s: %q: want ErrCommand, got %v", base, commandOf(base), err)
					}
				}
				counts[sub+" non-dump"]++
				continue
			}
			v := Viewer{Deity: strings.Contains(base, "Play0")}
			d := parseOne(t, e.reg, name, v)
			counts[sub+" parsed"]++
			var b bytes.Buffer
			tab := d.Table
			if d.Meta {
				tab = e.reg.Table(d.Name)
			}
			if d.Meta && e.tweaked[d.Name] || !d.Meta && hasFloat(tab) || !v.Deity && !d.Meta ||
				d.Name == "meta-type" && !d.Meta {
				continue
			}
			if err := e.reg.WriteTable(&b, tab, Options{Viewer: v, Meta: d.Meta, Timestamp: d.Timestamp}); err != nil {
				t.Fatal(err)
			}
			if b.String() != string(src) {
				t.Errorf("%s: written back differently:\n%s\nwant\n%s", base, b.String(), src)
				continue
			}
			counts[sub+" byte-identical"]++
			// The same through the command, as Empire ran it.
			if sub == "version" {
				b.Reset()
				if err := e.reg.Exec(&b, commandOf(base), v, 0); err != nil || b.String() != string(src) {
					t.Errorf("%s: %q: %v\n%s", base, commandOf(base), err, b.String())
				}
				counts["version command-identical"]++
			}
		}
	}
	// Every reference in Empire's data resolves, but for the resources quirk (see
	// empireRuntime).
	var refs []*RefError
	for _, err := range e.reg.Verify().(interface{ Unwrap() []error }).Unwrap() {
		var re *RefError
		if !errors.As(err, &re) || !empireRuntime[re.Table+"."+re.Field] {
			t.Errorf("verify: %v", err)
		}
		refs = append(refs, re)
	}
	counts["verify known quirks"] = len(refs)
	t.Logf("%v", counts)
	if counts["version parsed"] != 119 || counts["smoke parsed"] != 34 {
		t.Errorf("too few dumps parsed: %v", counts)
	}
}

// commandOf recovers the command from a file name: NNN_PlayK_xdump_ARGS.txt, args
// separated by '_', an empty last one standing for '*'.
func commandOf(base string) string {
	_, args, _ := strings.Cut(strings.TrimSuffix(base, ".txt"), "_xdump_")
	words := strings.Split(args, "_")
	if words[len(words)-1] == "" {
		words[len(words)-1] = "*"
	}
	return "xdump " + strings.Join(words, " ")
}

func hasFloat(t *Table) bool {
	for _, f := range t.schema.Fields {
		if f.Type == TypeFloat {
			return true
		}
	}
	return false
}

// Fields whose dumped value the Empire server changes after reading its config: option
// RAILWAYS disables rail, the test game zeroes product costs, and resources symbols
// dump as 0 while products store the resource's offset.
var empireRuntime = map[string]bool{"infrastructure.enable": true, "product.cost": true, "product.nrndx": true}

// TestEmpireConfig reads every file in config/ given the metadata, then loads each
// into a fresh fixture.
func TestEmpireConfig(t *testing.T) {
	e := newEmpire(t)
	n := 0
	for _, name := range empireFiles(t, "config") {
		ds, err := e.reg.Parse(name, readFile(t, name), Viewer{Deity: true})
		if err != nil {
			t.Errorf("parse: %v", err)
			continue
		}
		if len(ds) == 0 {
			t.Errorf("%s: no tables", name)
		}
		n++
	}
	loaded := 0
	snap := e.snapshot()
	// The built-in tables Empire dumped in version/ came from these very files.
	dumped := map[string]*Data{}
	for _, name := range empireFiles(t, "version") {
		if src := readFile(t, name); strings.Contains(name, "Play0") && bytes.HasPrefix(src, isDump) && !bytes.HasPrefix(src, []byte("XDUMP meta")) {
			d := parseOne(t, e.reg, name, Viewer{Deity: true})
			dumped[d.Name] = d
		}
	}
	compared := 0
	for _, name := range empireFiles(t, "config") {
		e.restore(snap)
		ds, _ := e.reg.Parse(name, readFile(t, name), Viewer{Deity: true})
		for _, d := range ds {
			*e.rows[d.Name] = nil // load into empty tables: every stored value comes from the file
		}
		if err := e.reg.Load(name, readFile(t, name)); err != nil {
			t.Errorf("load: %v", err)
			continue
		}
		loaded++
		for _, d := range ds {
			want := dumped[d.Name]
			tab := e.reg.Table(d.Name)
			if want == nil || tab.Len() != len(want.Rows) {
				t.Errorf("%s: table %s: %d rows loaded, dump has %v", name, d.Name, tab.Len(), want)
				continue
			}
			for i := range want.Rows {
				for f, fd := range tab.schema.Fields {
					if fd.Dump == DumpOnly || empireRuntime[d.Name+"."+fd.Name] {
						continue
					}
					for el := 0; el < fd.Elems(); el++ {
						if got, w := tab.Value(i, f, el), want.Value(i, f, el); !got.equal(w, fd.Type) {
							t.Errorf("%s: %s row %d %s: loaded %v, dumped %v", name, d.Name, i, fieldLabel(&fd, el), got, w)
						}
					}
				}
			}
			compared++
			// And back through the human-readable writer.
			var b bytes.Buffer
			if err := e.reg.WriteConfig(&b, tab); err != nil {
				t.Fatal(err)
			}
			before := slices.Clone(*e.rows[d.Name])
			*e.rows[d.Name] = nil
			if err := e.reg.Load("written.config", b.Bytes()); err != nil {
				t.Errorf("%s: reload: %v\n%s", d.Name, err, b.String())
				continue
			}
			var b2 bytes.Buffer
			e.reg.WriteConfig(&b2, tab)
			if b2.String() != b.String() || len(before) != tab.Len() {
				t.Errorf("%s: config round trip differs", d.Name)
			}
		}
	}
	t.Logf("config: %d tables equal to their version/ dump after loading", compared)
	t.Logf("config: %d parsed, %d loaded", n, loaded)
}

var errLine = regexp.MustCompile(`^tests/empdump/xundump-errors/([^:]+):(\d+): (.*)$`)

// TestEmpireErrors loads each malformed input and wants an error on the line that
// Empire's own parser names.
func TestEmpireErrors(t *testing.T) {
	files := empireFiles(t, "xundump-errors")
	want := map[string]int{}
	msgs := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(readFile(t, filepath.Join(empireDir, "xundump-errors", "errors.err"))))
	for sc.Scan() {
		if m := errLine.FindStringSubmatch(sc.Text()); m != nil {
			if _, dup := want[m[1]]; !dup {
				want[m[1]], _ = strconv.Atoi(m[2])
				msgs[m[1]] = m[3]
			}
		}
	}
	base := newEmpire(t)
	snap := base.snapshot()
	ok, total := 0, 0
	for _, name := range files {
		b := filepath.Base(name)
		if strings.HasPrefix(b, "errors.") {
			continue
		}
		total++
		line, found := want[b]
		if !found {
			t.Errorf("%s: not in errors.err", b)
			continue
		}
		e := base
		e.restore(snap)
		err := e.reg.Load(name, readFile(t, name))
		var pe *ParseError
		switch {
		case !errors.As(err, &pe):
			t.Errorf("%s: want error on line %d (%s), got %v", b, line, msgs[b], err)
		case pe.Line != line:
			t.Errorf("%s: want error on line %d (%s), got %v", b, line, msgs[b], err)
		default:
			ok++
		}
	}
	t.Logf("xundump-errors: %d of %d rejected on the right line", ok, total)
}
