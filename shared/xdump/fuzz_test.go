package xdump

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strconv"
	"testing"
)

// writeData writes parsed data back in machine-readable form, as viewer v sees it.
func writeData(d *Data, v Viewer) []byte {
	t := d.Table
	buf := []byte("XDUMP ")
	if d.Meta {
		buf = append(buf, "meta "...)
	}
	buf = append(buf, d.Name...)
	buf = append(buf, " 0\n"...)
	cols := visibleFields(t, v, false)
	for _, row := range d.Rows {
		first := true
		for _, fi := range cols {
			f := &t.schema.Fields[fi]
			for e := 0; e < f.Elems(); e++ {
				if !first {
					buf = append(buf, ' ')
				}
				first = false
				buf = appendValue(buf, f, row[t.offs[fi]+e])
			}
		}
		buf = append(buf, '\n')
	}
	buf = append(buf, '/')
	buf = strconv.AppendInt(buf, int64(len(d.Rows)), 10)
	return append(buf, '\n')
}

func sameRows(a, b *Data) bool {
	if len(a.Rows) != len(b.Rows) || a.Table != b.Table {
		return false
	}
	for i := range a.Rows {
		for k := range a.Rows[i] {
			x, y := a.Rows[i][k], b.Rows[i][k]
			if x.Int != y.Int || x.Str != y.Str || x.Nil != y.Nil ||
				math.Float64bits(x.Float) != math.Float64bits(y.Float) && !(x.Float != x.Float && y.Float != y.Float) {
				return false
			}
		}
	}
	return true
}

// checkInput parses src both ways and checks the invariants: no panic, errors are
// ParseErrors on a line of the input, and what parses writes back and parses again to
// the same values.
func checkInput(t *testing.T, src []byte) {
	lines := bytes.Count(src, []byte("\n")) + 1
	for _, v := range []Viewer{{Deity: true}, {ID: 1}} {
		w := newWorld(t)
		ds, err := w.reg.Parse("fuzz", src, v)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line < 1 || pe.Line > lines || pe.File != "fuzz" {
				t.Fatalf("bad error %v", err)
			}
			continue
		}
		for _, d := range ds {
			if d.Human {
				continue // writeData writes the machine dialect: same values, other columns
			}
			out := writeData(d, v)
			ds2, err := w.reg.Parse("again", out, v)
			if err != nil || len(ds2) != 1 || !sameRows(d, ds2[0]) {
				t.Fatalf("round trip: %v\n%q\n%q", err, src, out)
			}
			if out2 := writeData(ds2[0], v); !bytes.Equal(out, out2) {
				t.Fatalf("unstable:\n%q\n%q", out, out2)
			}
		}
	}
	w := newWorld(t)
	old := append([]ent(nil), w.ents...)
	if err := w.reg.Load("fuzz", src); err != nil {
		if !errors.Is(err, ErrInput) {
			t.Fatalf("load error %v", err)
		}
		if !reflect.DeepEqual(old, w.ents) {
			t.Fatalf("failed load changed the table")
		}
		return
	}
	// What loaded writes as a config file that loads to the same table.
	tab := w.reg.Table("entity")
	export := func() string {
		var b bytes.Buffer
		w.reg.WriteTable(&b, tab, Options{Viewer: Viewer{Deity: true}, Export: true})
		return b.String()
	}
	before := export()
	var cfg bytes.Buffer
	if err := w.reg.WriteConfig(&cfg, tab); err != nil {
		t.Fatal(err)
	}
	w.ents = nil
	if err := w.reg.Load("config", cfg.Bytes()); err != nil {
		t.Fatalf("written config does not load: %v\n%s", err, cfg.String())
	}
	if after := export(); after != before {
		t.Fatalf("config round trip:\n%s\n%s", before, after)
	}
}

func FuzzParseMachine(f *testing.F) {
	w := newWorld(f)
	for _, cmd := range []string{"xdump entity *", "xdump meta entity", "xdump table *", "xdump meta-flags *", "xdump meta meta"} {
		f.Add([]byte(dump(f, w.reg, cmd, Viewer{Deity: true})))
		f.Add([]byte(dump(f, w.reg, cmd, Viewer{ID: 2})))
	}
	f.Add([]byte("XDUMP entity 0\n0 1 1 0 0 0 0 (moving asleep) npc \"a b\" nil \"\" 0 0\n/1\n"))
	f.Add([]byte("XDUMP entity 0\n0 1 1 0x1p-3 -inf nan 1e400 0 0 \"\\377\" nil \"\" 0 0 # c\n/1 # c\n"))
	f.Fuzz(func(t *testing.T, src []byte) { checkInput(t, src) })
}

func FuzzParseHuman(f *testing.F) {
	f.Add([]byte("config entity\nid proto owner pos(0) pos(1) pos(2) speed state kind name tag label secret stealth\n" +
		" 0 1 -1 0.5 1e3 -0 2.5 (moving asleep) npc \"crate one\" nil \"ab\" 1 2\n/config\n"))
	f.Add([]byte("# c\nconfig entity # c\nid proto ...\n0 1\n3 2\n/config\nconfig entity\nid owner pos(0) pos(1) pos(2) speed state kind name tag label secret stealth\n" +
		"0 -1 0 0 0 0 () none \"\" nil \"\" 0 0\n3 -1 0 0 0 0 () none \"\" nil \"\" 0 0\n/config\n"))
	f.Add([]byte("config entity\nid(0) pro x(-\n"))
	f.Add([]byte("config entity\nid ...\n0\n/config\nconfig ent-kind\n"))
	f.Fuzz(func(t *testing.T, src []byte) { checkInput(t, src) })
}

func FuzzCommand(f *testing.F) {
	for _, s := range []string{"xdump entity *", "xdump meta 12", "entity 0/3-7?timestamp>5&name=\"x\"",
		"xdump entity ?state=moving&kind#npc", "xdump meta meta ?type=1", "xdump entity ?tag=nil&speed<1e3"} {
		f.Add(s)
	}
	w := newWorld(f)
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCommand(s)
		if err != nil {
			if !errors.Is(err, ErrCommand) {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		c2, err := ParseCommand(c.String())
		if err != nil || !reflect.DeepEqual(c, c2) {
			t.Fatalf("%q -> %q: %v %+v %+v", s, c.String(), err, c, c2)
		}
		var b bytes.Buffer
		for _, v := range []Viewer{{Deity: true}, {ID: 2}} {
			b.Reset()
			if err := w.reg.Run(&b, c, v, 1); err != nil {
				if !errors.Is(err, ErrCommand) || b.Len() != 0 {
					t.Fatalf("%q: %v", s, err)
				}
				continue
			}
			if _, err := w.reg.Parse("out", b.Bytes(), v); err != nil {
				t.Fatalf("%q: output does not parse: %v\n%s", s, err, b.String())
			}
		}
	})
}
