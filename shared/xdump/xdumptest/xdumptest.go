// Package xdumptest checks a registry's tables against the xdump language: every
// table dumps, parses back to the same values in both dialects, and every reference
// resolves. Use it in the tests of packages that register tables.
package xdumptest

import (
	"bytes"
	"fmt"
	"math"

	"github.com/twinframe/twinframe/shared/xdump"
)

// TB is the part of testing.TB the checks use.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
}

// CheckRoundTrip dumps every table of r as a deity, in the machine dialect and (for
// loadable tables) as a config file, parses each dump back and reports every value
// that differs from the table's own, and then every reference that Verify rejects.
// It changes nothing.
func CheckRoundTrip(t TB, r *xdump.Registry) {
	t.Helper()
	deity := xdump.Viewer{Deity: true}
	for _, tab := range r.Tables() {
		var b bytes.Buffer
		if err := r.WriteTable(&b, tab, xdump.Options{Viewer: deity}); err != nil {
			t.Errorf("table %s: write: %v", tab.Name(), err)
			continue
		}
		compare(t, r, tab, "machine dump", b.Bytes())
		if tab.Schema().ReadOnly {
			continue
		}
		b.Reset()
		if err := r.WriteConfig(&b, tab); err != nil {
			t.Errorf("table %s: write config: %v", tab.Name(), err)
			continue
		}
		compare(t, r, tab, "config", b.Bytes())
	}
	if err := r.Verify(); err != nil {
		t.Errorf("%v", err)
	}
}

func compare(t TB, r *xdump.Registry, tab *xdump.Table, what string, src []byte) {
	t.Helper()
	ds, err := r.Parse(tab.Name()+" "+what, src, xdump.Viewer{Deity: true})
	if err != nil {
		t.Errorf("table %s: %s does not parse: %v", tab.Name(), what, err)
		return
	}
	if len(ds) != 1 || ds[0].Table != tab && !ds[0].Meta {
		t.Errorf("table %s: %s parses to %d tables", tab.Name(), what, len(ds))
		return
	}
	d := ds[0]
	if d.Meta || d.Table != tab {
		return // the meta table dumps as data of itself; nothing more to compare
	}
	if len(d.Rows) != tab.Len() {
		t.Errorf("table %s: %s has %d rows, table %d", tab.Name(), what, len(d.Rows), tab.Len())
		return
	}
	fields := tab.Schema().Fields
	for i := range d.Rows {
		for f := range fields {
			if !d.Given[f] {
				continue
			}
			for e := 0; e < fields[f].Elems(); e++ {
				got, want := d.Value(i, f, e), tab.Value(i, f, e)
				if !Equal(fields[f].Type, got, want) {
					t.Errorf("table %s: %s row %d field %s: read %s, table has %s",
						tab.Name(), what, i, label(&fields[f], e), show(got), show(want))
				}
			}
		}
	}
}

// Equal compares two values of a field of type typ as the dump does: integers,
// floats bit for bit (any NaN equals any NaN), strings with nil distinct from "".
func Equal(typ xdump.Type, a, b xdump.Value) bool {
	switch typ {
	case xdump.TypeInt:
		return a.Int == b.Int
	case xdump.TypeFloat:
		return math.Float64bits(a.Float) == math.Float64bits(b.Float) || math.IsNaN(a.Float) && math.IsNaN(b.Float)
	case xdump.TypeString:
		return a.Nil == b.Nil && a.Str == b.Str
	}
	return a.Str == b.Str
}

func label(f *xdump.Field, e int) string {
	if f.Type != xdump.TypeChars && f.Len > 0 {
		return fmt.Sprintf("%s(%d)", f.Name, e)
	}
	return f.Name
}

func show(v xdump.Value) string { return fmt.Sprintf("%+v", v) }
