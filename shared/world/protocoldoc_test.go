package world

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/twinframe/twinframe/shared/xdump"
)

const protocolDoc = "../../docs/PROTOCOL.md"

// tablesSection returns §14 of docs/PROTOCOL.md, the configuration tables.
func tablesSection(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(protocolDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i := strings.Index(doc, "\n## 14. Configuration tables (xdump text)\n")
	if i < 0 {
		t.Fatalf("%s has no section 14, Configuration tables (xdump text)", protocolDoc)
	}
	doc = doc[i+1:]
	if j := strings.Index(doc[3:], "\n## "); j >= 0 {
		doc = doc[:j+4]
	}
	return doc
}

// docType is how §14.4 writes a field's type: the meta type, [len] for an array,
// then its flags.
func docType(f *xdump.Field) string {
	s := f.Type.String()
	if f.Elems() > 1 {
		s += fmt.Sprintf("[%d]", f.Len)
	}
	for _, fl := range []struct {
		flag xdump.Flags
		name string
	}{{xdump.Bits, "bits"}, {xdump.Hidden, "hidden"}, {xdump.Deity, "deity"}} {
		if f.Flags&fl.flag != 0 {
			s += " " + fl.name
		}
	}
	return s
}

// docKey is how a §14.4 heading names a table's key.
func docKey(s *xdump.Schema) string {
	switch s.Key {
	case xdump.KeyID:
		return "key id"
	case xdump.KeyIndex:
		return "key index"
	case xdump.KeyOrdered:
		return "key (" + strings.Join(s.Order, ", ") + ")"
	}
	return "no key"
}

// TestProtocolDocTables keeps §14 of docs/PROTOCOL.md equal to the code: every
// table of the registry but the meta and symbol tables has a heading in §14.4
// with its uid, key and row limit, and a field table listing its fields in dump
// order with their types, flags and the tables they refer to; every table of
// the default world's files (what a region change carries) is among them; the
// symbol tables of §14.3 list each symbol table's values and names; and each
// worked example is what the default world dumps or holds.
func TestProtocolDocTables(t *testing.T) {
	t.Parallel()
	doc := tablesSection(t)
	reg := New().Registry()

	// #### `region` (uid 20, key id, at most 256 rows)
	heads := regexp.MustCompile("(?m)^#### `([^`]+)` \\(uid (\\d+), (key \\([^)]*\\)|key \\w+|no key)(?:, at most (\\d+) rows)?[^)]*\\)\n").FindAllStringSubmatchIndex(doc, -1)
	documented := map[string]bool{}
	for k, h := range heads {
		name, uid, key, rows := doc[h[2]:h[3]], doc[h[4]:h[5]], doc[h[6]:h[7]], ""
		if h[8] >= 0 {
			rows = doc[h[8]:h[9]]
		}
		end := len(doc)
		if k+1 < len(heads) {
			end = heads[k+1][0]
		}
		documented[name] = true
		tab := reg.Table(name)
		if tab == nil {
			t.Errorf("§14.4 documents table %q, which the registry does not have", name)
			continue
		}
		s := tab.Schema()
		want := []string{strconv.Itoa(s.UID), docKey(s), ""}
		if s.MaxRows > 0 {
			want[2] = strconv.Itoa(s.MaxRows)
		}
		if got := []string{uid, key, rows}; !slices.Equal(got, want) {
			t.Errorf("§14.4 table %s: uid, key, row limit %q, want %q", name, got, want)
		}
		// | `id` | d | `region` | meaning |
		rowsRE := regexp.MustCompile("(?m)^\\| `([^`]+)` \\| ([^|]+?) \\| (`[^`]+`|—) \\|")
		var got []string
		for _, m := range rowsRE.FindAllStringSubmatch(doc[h[1]:end], -1) {
			got = append(got, strings.Join(m[1:], " "))
		}
		var fields []string
		for i := range s.Fields {
			f := &s.Fields[i]
			if f.Dump == xdump.DumpNone {
				continue
			}
			ref := "—"
			if f.Table != "" {
				ref = "`" + f.Table + "`"
			}
			fields = append(fields, strings.Join([]string{f.Name, docType(f), ref}, " "))
		}
		if !slices.Equal(got, fields) {
			t.Errorf("§14.4 table %s lists fields (name, type, refers to)\n\t%q\nthe code has\n\t%q", name, got, fields)
		}
	}
	for _, tab := range reg.Tables() {
		if s := tab.Schema(); !s.ReadOnly && !documented[s.Name] {
			t.Errorf("§14.4 does not document table %s", s.Name)
		}
	}

	// Every table of a region change's files: the default world's.
	w := loadDefault(t)
	inFiles := w.rows()
	if len(inFiles) == 0 {
		t.Fatal("the default world's files hold no tables")
	}
	for _, name := range slices.Sorted(maps.Keys(inFiles)) {
		if !documented[name] {
			t.Errorf("the default world's files hold table %s, which §14.4 does not document", name)
		}
	}

	// | `polygon-kind` | 10 | 1 `walkable`, 2 `obstacle`, ... |
	symRows := regexp.MustCompile("(?m)^\\| `([^`]+)` \\| (\\d+) \\| (.+) \\|$").FindAllStringSubmatch(doc, -1)
	symDoc := map[string]string{}
	for _, m := range symRows {
		var syms []string
		for _, s := range regexp.MustCompile("(\\d+) `([^`]+)`").FindAllStringSubmatch(m[3], -1) {
			syms = append(syms, s[1]+" "+s[2])
		}
		symDoc[m[1]] = m[2] + ": " + strings.Join(syms, ", ")
	}
	for _, tab := range reg.Tables() {
		s := tab.Schema()
		if !s.ReadOnly || len(s.Fields) != 2 || s.Fields[0].Name != "value" || s.Fields[1].Name != "name" {
			continue // not a symbol table
		}
		var syms []string
		for row := range tab.Len() {
			syms = append(syms, fmt.Sprintf("%d %s", tab.Value(row, 0, 0).Int, tab.Value(row, 1, 0).Str))
		}
		want := fmt.Sprintf("%d: %s", s.UID, strings.Join(syms, ", "))
		if got, ok := symDoc[s.Name]; !ok {
			t.Errorf("§14.3 does not list symbol table %s", s.Name)
		} else if got != want {
			t.Errorf("§14.3 symbol table %s: %q, want %q", s.Name, got, want)
		}
	}

	// Example (`xdump region`, the default world): ```...```
	examples := regexp.MustCompile("Example \\(`([^`]+)`, the default world\\)[^`]*```\n([^`]*)```").FindAllStringSubmatch(doc, -1)
	if len(examples) < 3 {
		t.Errorf("§14 has %d worked examples, want one of a config file and two of dumps at least", len(examples))
	}
	for _, e := range examples {
		what, text := e[1], e[2]
		if strings.HasSuffix(what, ".config") {
			b, err := fs.ReadFile(DefaultFiles(), what)
			if err != nil || !bytes.Contains(b, []byte(text)) {
				t.Errorf("§14: the example of %s is not in the default world's file (%v):\n%s", what, err, text)
			}
			continue
		}
		var out bytes.Buffer
		if err := w.Xdump(&out, what, deity); err != nil {
			t.Errorf("§14 example %s: %v", what, err)
		} else if out.String() != text {
			t.Errorf("§14 example %s:\n%s\nthe default world dumps:\n%s", what, text, out.String())
		}
	}
}
