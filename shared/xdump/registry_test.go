package xdump

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

type row struct {
	ID int32
	N  string
}

func TestRegisterRejects(t *testing.T) {
	var rows []row
	id := Int("id", func(r *row) *int32 { return &r.ID })
	name := String("name", func(r *row) *string { return &r.N })
	for _, tc := range []struct {
		what string
		t    *Table
	}{
		{"bad name", NewTable(Schema{UID: 20, Name: "a b"}, &rows, id)},
		{"name with ?", NewTable(Schema{UID: 20, Name: "a?"}, &rows, id)},
		{"numeric name", NewTable(Schema{UID: 20, Name: "7up"}, &rows, id)},
		{"dup uid", NewTable(Schema{UID: 0, Name: "x"}, &rows, id)},
		{"dup name", NewTable(Schema{UID: 20, Name: "table"}, &rows, id)},
		{"dup field", NewTable(Schema{UID: 20, Name: "x"}, &rows, id, id)},
		{"bits on string", NewTable(Schema{UID: 20, Name: "x"}, &rows, name.BitsOf("meta-flags"))},
		{"ref on string", NewTable(Schema{UID: 20, Name: "x"}, &rows, name.Ref("x"))},
		{"hidden string", NewTable(Schema{UID: 20, Name: "x"}, &rows, name.With(Hidden))},
		{"key on string", NewTable(Schema{UID: 20, Name: "x", Key: KeyID}, &rows, name)},
		{"order unknown", NewTable(Schema{UID: 20, Name: "x", Key: KeyOrdered, Order: []string{"zz"}}, &rows, id)},
	} {
		r := NewRegistry(DefaultMetaUIDs)
		if err := r.Register(tc.t); !errors.Is(err, ErrRegister) {
			t.Errorf("%s: got %v, want ErrRegister", tc.what, err)
		}
	}
	r := NewRegistry(DefaultMetaUIDs)
	if err := r.Register(NewTable(Schema{UID: 20, Name: "x"}, &rows, id.Ref("nope"))); err != nil {
		t.Fatal(err)
	}
	if err := r.Check(); !errors.Is(err, ErrRegister) {
		t.Errorf("Check: got %v", err)
	}
}

func TestLookup(t *testing.T) {
	r := NewRegistry(MetaUIDs{Table: 29, Meta: 31, Type: 36, Flags: 35})
	for in, want := range map[string]string{"table": "table", "29": "table", "meta": "meta", "meta-t": "meta-type", "36": "meta-type", "t": "table"} {
		got, err := r.Lookup(in)
		if err != nil || got.Name() != want {
			t.Errorf("Lookup(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"meta-", "7", "", "zz"} {
		if _, err := r.Lookup(in); err == nil {
			t.Errorf("Lookup(%q): no error", in)
		}
	}
}

func TestMetaMeta(t *testing.T) {
	r := NewRegistry(MetaUIDs{Table: 29, Meta: 31, Type: 36, Flags: 35})
	var b bytes.Buffer
	if err := r.WriteTable(&b, r.Table("meta"), Options{Viewer: Viewer{Deity: true}, Meta: true}); err != nil {
		t.Fatal(err)
	}
	// As Empire 4.4.1 writes it (conformance/empire/version/032).
	want := "XDUMP meta meta 0\n\"name\" 3 0 0 -1\n\"type\" 1 0 0 36\n\"flags\" 1 8 0 35\n\"len\" 1 0 0 -1\n\"table\" 1 0 0 29\n/5\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestValueEqual(t *testing.T) {
	nan := math.NaN()
	if !FloatValue(nan).equal(FloatValue(nan), TypeFloat) || FloatValue(0).equal(FloatValue(math.Copysign(0, -1)), TypeFloat) {
		t.Error("float equality")
	}
	if NilValue().equal(StringValue(""), TypeString) || !StringValue("a").equal(StringValue("a"), TypeChars) {
		t.Error("string equality")
	}
}
