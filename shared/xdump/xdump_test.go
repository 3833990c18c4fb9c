package xdump

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

// ent is an entity-like row covering every column kind.
type ent struct {
	ID        int32
	Proto     int16
	Owner     int32
	Pos       [3]float32
	Speed     float64
	State     uint32
	Kind      int8
	Name      string
	Tag       *string
	Label     string
	Secret    int32
	Stealth   int32
	Timestamp int64
}

type world struct {
	reg  *Registry
	ents []ent
}

func newWorld(t testing.TB) *world {
	w := &world{}
	w.reg = NewRegistry(DefaultMetaUIDs)
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.reg.Register(SymbolTable(10, "ent-flags", []Symbol{{1, "moving"}, {2, "blocking"}, {4, "overlapping"}, {8, "asleep"}})))
	must(w.reg.Register(SymbolTable(11, "ent-kind", []Symbol{{0, "none"}, {1, "npc"}, {2, "prop"}, {3, "player"}})))
	must(w.reg.Register(NewTable(Schema{UID: 12, Name: "entity", Key: KeyID,
		Visible: func(v Viewer, row int) bool { return w.ents[row].Owner == int32(v.ID) || w.ents[row].Owner < 0 }},
		&w.ents,
		Int("id", func(e *ent) *int32 { return &e.ID }).Ref("entity"),
		Int("proto", func(e *ent) *int16 { return &e.Proto }),
		Int("owner", func(e *ent) *int32 { return &e.Owner }),
		Floats("pos", 3, func(e *ent) []float32 { return e.Pos[:] }),
		Float("speed", func(e *ent) *float64 { return &e.Speed }),
		Int("state", func(e *ent) *uint32 { return &e.State }).BitsOf("ent-flags"),
		Int("kind", func(e *ent) *int8 { return &e.Kind }).Ref("ent-kind"),
		String("name", func(e *ent) *string { return &e.Name }),
		NullString("tag", func(e *ent) **string { return &e.Tag }),
		Chars("label", 8, func(e *ent) *string { return &e.Label }),
		Int("secret", func(e *ent) *int32 { return &e.Secret }).With(Deity),
		Int("stealth", func(e *ent) *int32 { return &e.Stealth }).With(Hidden),
		Int("timestamp", func(e *ent) *int64 { return &e.Timestamp }).Dumped(DumpOnly),
	)))
	must(w.reg.Check())
	tag := "x y"
	w.ents = []ent{
		{ID: 0, Proto: 1, Owner: 1, Pos: [3]float32{0.1, -2.5, 1e-7}, Speed: 0.1, State: 3, Kind: 1, Name: "a b", Tag: &tag, Label: "lbl", Secret: 9, Stealth: 5, Timestamp: 10},
		{ID: 4, Proto: 2, Owner: 2, Pos: [3]float32{3, 4, 5}, Speed: math.Inf(1), Kind: 2, Name: "q\"\\\x00\xff\t", Label: "", Timestamp: 20},
		{ID: 7, Proto: 2, Owner: -1, Speed: -1e300, State: 8, Kind: 3, Name: "", Label: "12345678", Stealth: -3, Timestamp: 30},
	}
	return w
}

func dump(t testing.TB, r *Registry, cmd string, v Viewer) string {
	t.Helper()
	var b bytes.Buffer
	if err := r.Exec(&b, cmd, v, 99); err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	return b.String()
}

func TestWriteDeity(t *testing.T) {
	w := newWorld(t)
	got := dump(t, w.reg, "xdump entity *", Viewer{Deity: true})
	want := `XDUMP entity 99
0 1 1 0.1 -2.5 1e-07 0.1 3 1 "a\040b" "x\040y" "lbl" 9 5 10
4 2 2 3 4 5 inf 0 2 "q\042\134\000\377\011" nil "" 0 0 20
7 2 -1 0 0 0 -1e+300 8 3 "" nil "12345678" 0 -3 30
/3
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestWritePlayer(t *testing.T) {
	w := newWorld(t)
	p := Viewer{ID: 2}
	got := dump(t, w.reg, "xdump meta entity", p)
	want := `XDUMP meta entity 99
"id" 1 0 0 12
"proto" 1 0 0 -1
"owner" 1 0 0 -1
"pos" 2 0 3 -1
"speed" 2 0 0 -1
"state" 1 8 0 10
"kind" 1 0 0 11
"name" 3 0 0 -1
"tag" 3 0 0 -1
"label" 4 0 8 -1
"stealth" 1 16 0 -1
"timestamp" 1 0 0 -1
/12
`
	if got != want {
		t.Errorf("meta: got\n%s\nwant\n%s", got, want)
	}
	got = dump(t, w.reg, "xdump entity *", p)
	want = `XDUMP entity 99
4 2 2 3 4 5 inf 0 2 "q\042\134\000\377\011" nil "" -1 20
7 2 -1 0 0 0 -1e+300 8 3 "" nil "12345678" -1 30
/2
`
	if got != want {
		t.Errorf("data: got\n%s\nwant\n%s", got, want)
	}
	// A player's dump reads back with the player's view of the metadata.
	ds, err := w.reg.Parse("p", []byte(got), p)
	if err != nil || len(ds) != 1 || len(ds[0].Rows) != 2 || ds[0].Given[10] {
		t.Fatalf("parse player dump: %v %+v", err, ds)
	}
}

func TestMetaTables(t *testing.T) {
	w := newWorld(t)
	deity := Viewer{Deity: true}
	for cmd, want := range map[string]string{
		"xdump table *":      "XDUMP table 99\n0 \"table\"\n1 \"meta\"\n2 \"meta-type\"\n3 \"meta-flags\"\n10 \"ent-flags\"\n11 \"ent-kind\"\n12 \"entity\"\n/7\n",
		"xdump meta-type *":  "XDUMP meta-type 99\n1 \"d\"\n2 \"g\"\n3 \"s\"\n4 \"c\"\n/4\n",
		"xdump meta-flags *": "XDUMP meta-flags 99\n1 \"deity\"\n8 \"bits\"\n16 \"hidden\"\n/3\n",
		"xdump meta 2":       "XDUMP meta meta-type 99\n\"value\" 1 0 0 -1\n\"name\" 3 0 0 -1\n/2\n",
		"xdump meta meta":    "XDUMP meta meta 99\n\"name\" 3 0 0 -1\n\"type\" 1 0 0 2\n\"flags\" 1 8 0 3\n\"len\" 1 0 0 -1\n\"table\" 1 0 0 0\n/5\n",
	} {
		if got := dump(t, w.reg, cmd, deity); got != want {
			t.Errorf("%s: got\n%s\nwant\n%s", cmd, got, want)
		}
	}
}

// TestWalk is what a client does: learn every table from the meta tables alone.
func TestWalk(t *testing.T) {
	w := newWorld(t)
	deity := Viewer{Deity: true}
	client := NewRegistry(DefaultMetaUIDs) // knows only the meta tables
	tables, err := client.Parse("table", []byte(dump(t, w.reg, "xdump table *", deity)), deity)
	if err != nil {
		t.Fatal(err)
	}
	for i := range tables[0].Rows {
		uid := tables[0].Value(i, 0, 0).Int
		meta, err := client.Parse("meta", []byte(dump(t, w.reg, fmt.Sprintf("xdump meta %d", uid), deity)), deity)
		if err != nil {
			t.Fatal(err)
		}
		if want := len(w.reg.ByUID(int(uid)).schema.Fields); len(meta[0].Rows) != want {
			t.Errorf("table %d: %d fields, want %d", uid, len(meta[0].Rows), want)
		}
	}
}

func TestCommandSelect(t *testing.T) {
	w := newWorld(t)
	deity := Viewer{Deity: true}
	rows := func(cmd string) string {
		out := dump(t, w.reg, cmd, deity)
		var ids []string
		for _, l := range strings.Split(out, "\n")[1:] {
			if l != "" && l[0] != '/' {
				ids = append(ids, strings.Fields(l)[0])
			}
		}
		return strings.Join(ids, ",")
	}
	for cmd, want := range map[string]string{
		"xdump entity *":                      "0,4,7",
		"xdump entit 4":                       "4",
		"xdump 12 0/7":                        "0,7",
		"xdump entity 1-5":                    "4",
		"xdump entity ?timestamp>15":          "4,7",
		"xdump entity *?timestamp>15&owner#2": "7",
		"xdump entity * ?timest<20":           "0",
		"xdump entity ?kind=prop":             "4",
		"xdump entity ?state=asleep":          "7",
		"xdump entity ?name=\"a\\040b\"":      "0",
		"xdump entity ?tag=nil":               "4,7",
		"xdump entity ?speed>1":               "4",
		"xdump entity ?label>1":               "0,7",
		"xdump meta entity ?type=g":           "\"pos\",\"speed\"",
		"entity 0,7?id>0":                     "7",
		"xdump entity ?pos(1)<0":              "0",
		"xdump entity ?name#\"&\"&id>0":       "4,7",
		"xdump entity ?pos(2)>4&pos=3":        "4",
	} {
		if got := rows(cmd); got != want {
			t.Errorf("%s: got %s, want %s", cmd, got, want)
		}
	}
	// Hidden values compare as their masked value for players; deity fields are unknown.
	if got := dump(t, w.reg, "xdump entity ?stealth=-1", Viewer{ID: 2}); !strings.HasSuffix(got, "/2\n") {
		t.Errorf("hidden cond: %s", got)
	}
	for _, bad := range []string{"", "xdump", "xdump meta", "xdump x y z", "xdump entity -1", "xdump entity 5-1",
		"xdump nope *", "xdump entity ?zz=1", "xdump entity ?id", "xdump entity ?id=x", "xdump entity ?speed=x",
		"xdump entity ?name=\"\\9\"", "xdump meta-", "xdump entity ?=1", "xdump entity ?secret=1",
		"xdump entity ?pos(3)=1", "xdump entity ?pos(x)=1", "xdump entity ?id(1)=0"} {
		v := deity
		if strings.Contains(bad, "secret") {
			v = Viewer{ID: 1}
		}
		var b bytes.Buffer
		if err := w.reg.Exec(&b, bad, v, 0); !errors.Is(err, ErrCommand) || b.Len() != 0 {
			t.Errorf("%q: got %v, output %q", bad, err, b.String())
		}
	}
}

func TestParseCommandString(t *testing.T) {
	for in, want := range map[string]string{
		"xdump meta meta":             "xdump meta meta *",
		"ship 1/3-5 ?timestamp>7&a=b": "xdump ship 1/3-5?timestamp>7&a=b",
		"xdump ship *?x#1":            "xdump ship *?x#1",
	} {
		c, err := ParseCommand(in)
		if err != nil || c.String() != want {
			t.Errorf("%q: %v %v, want %q", in, c, err, want)
		}
	}
}

// TestRoundTrip: dump, load into an empty table, dump again: same bytes.
func TestRoundTrip(t *testing.T) {
	w := newWorld(t)
	deity := Viewer{Deity: true}
	var b bytes.Buffer
	if err := w.reg.WriteTable(&b, w.reg.Table("entity"), Options{Viewer: deity, Export: true}); err != nil {
		t.Fatal(err)
	}
	saved := w.ents
	w.ents = nil
	if err := w.reg.Load("export", b.Bytes()); err != nil {
		t.Fatal(err)
	}
	for i := range saved {
		saved[i].Timestamp = 0 // DumpOnly: not loaded
	}
	if !reflect.DeepEqual(w.ents, saved) {
		t.Errorf("loaded\n%+v\nwant\n%+v", w.ents, saved)
	}
}

func TestLoadHuman(t *testing.T) {
	w := newWorld(t)
	src := `# entities for a test
config entity
id  proto owner pos(0) pos(1) ...  # first part
 0   1     -1     0.5  1e3
 3   2      2     -0      7
/config
config entity
id pos(2) speed state           kind   name        tag   label ...
 0   1     2.5  (moving asleep)  npc   "crate one"  nil   "ab"
 3   0x1p-2 0    ()              prop  "b"          "t"   ""
/config

config entity
id secret stealth
 0   1      2
 3   0      0
/config
`
	if err := w.reg.Load("world.config", []byte(src)); err != nil {
		t.Fatal(err)
	}
	got := dump(t, w.reg, "xdump entity *", Viewer{Deity: true})
	want := `XDUMP entity 99
0 1 -1 0.5 1000 1 2.5 9 1 "crate\040one" nil "ab" 1 2 10
3 2 2 -0 7 0.25 0 0 2 "b" "t" "" 0 0 20
/2
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct {
		src  string
		line int
		msg  string
	}{
		{"XDUMP entity 0\n0 1 1 0 0 0 0 0 0 \"\" nil \"\" 0 0\n1 1 1 0 0 0 0 0 0 \"\" nil \"\" 0 0\n/1\n", 4, "expected footer /2"},
		{"XDUMP entity 0\n0 1 1 0 0 0 0 0 0 \"\" nil \"123456789\" 0 0\n/1\n", 2, "at most 8"},
		{"XDUMP entity 0\n0 99999 1 0 0 0 0 0 0 \"\" nil \"\" 0 0\n/1\n", 2, "proto"},
		{"XDUMP entity 0\n0 1 1 0 0 1e39 0 0 0 \"\" nil \"\" 0 0\n/1\n", 2, "field 6 can't hold"},
		{"XDUMP entity 0\n0 1 1 0 0 0 0 0 0 nil nil \"\" 0 0\n/1\n", 2, "nil"},
		{"XDUMP entity 0\n0 1 1 0 0 0 0 (moving x) 0 \"\" nil \"\" 0 0\n/1\n", 2, "unknown state symbol 'x'"},
		{"XDUMP entity 0\n0 1 1 0 0 0 0 0 p \"\" nil \"\" 0 0\n/1\n", 2, "ambiguous kind symbol 'p'"},
		{"XDUMP entity 0\n5 1 1 0 0 0 0 0 0 \"\" nil \"\" 0 0\n3 1 1 0 0 0 0 0 0 \"\" nil \"\" 0 0\n/2\n", 3, "must be > 5"},
		{"XDUMP table 0\n/0\n", 1, "not permitted"},
		{"XDUMP meta entity 0\n/0\n", 1, "not permitted"},
		{"config entity\nid ...\n0\n/config\n", 5, "unexpected EOF"},
		{"\n\nconfig entity\nid\n", 4, "header 'proto' missing"},
		{"config entity\nid pos\n", 2, "requires an index"},
		{"config entity\nid pos(0) pos(2)\n", 2, "expected header 'pos(1)'"},
		{"XDUMP entity 0\n", 2, "unexpected EOF"},
		{"XDUMP entity x\n", 1, "timestamp"},
		{"XDUMP entity\n", 1, "malformed"},
		{"XDUMP \"x\" 0\n", 1, "table name"},
	} {
		w := newWorld(t)
		old := append([]ent(nil), w.ents...)
		err := w.reg.Load("in.txt", []byte(tc.src))
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line != tc.line || pe.File != "in.txt" || !strings.Contains(err.Error(), tc.msg) || !errors.Is(err, ErrInput) {
			t.Errorf("%q: got %v, want line %d %q", tc.src, err, tc.line, tc.msg)
		}
		if !reflect.DeepEqual(old, w.ents) {
			t.Errorf("%q: failed load changed the table", tc.src)
		}
	}
}

func TestParseEmptyAndZeroWidth(t *testing.T) {
	r := NewRegistry(DefaultMetaUIDs)
	var rows []struct{}
	if err := r.Register(NewTable(Schema{UID: 9, Name: "empty"}, &rows)); err != nil {
		t.Fatal(err)
	}
	rows = make([]struct{}, 2)
	var b bytes.Buffer
	r.WriteTable(&b, r.Table("empty"), Options{Viewer: Viewer{Deity: true}})
	if b.String() != "XDUMP empty 0\n\n\n/2\n" {
		t.Errorf("%q", b.String())
	}
	ds, err := r.Parse("e", b.Bytes(), Viewer{Deity: true})
	if err != nil || len(ds[0].Rows) != 2 {
		t.Errorf("%v %v", ds, err)
	}
	if ds, err := r.Parse("e", []byte("  \n# nothing\n"), Viewer{}); err != nil || len(ds) != 0 {
		t.Errorf("%v %v", ds, err)
	}
}

func TestWriteConfig(t *testing.T) {
	w := newWorld(t)
	var b bytes.Buffer
	if err := w.reg.WriteConfig(&b, w.reg.Table("entity")); err != nil {
		t.Fatal(err)
	}
	want := `config entity
id proto owner pos(0) pos(1) pos(2) speed   state             kind   name                    tag   label      secret stealth
0  1     1     0.1    -2.5   1e-07  0.1     (moving blocking) npc    "a b"                   "x y" "lbl"      9      5
4  2     2     3      4      5      inf     ()                prop   "q\042\134\000\377\011" nil   ""         0      0
7  2     -1    0      0      0      -1e+300 (asleep)          player ""                      nil   "12345678" 0      -3
/config
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	saved := append([]ent(nil), w.ents...)
	w.ents = nil
	if err := w.reg.Load("entity.config", b.Bytes()); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	for i := range saved {
		saved[i].Timestamp = 0
	}
	if !reflect.DeepEqual(w.ents, saved) {
		t.Errorf("loaded\n%+v\nwant\n%+v\nfrom\n%s", w.ents, saved, b.String())
	}
}

func TestRowLimit(t *testing.T) {
	r := NewRegistry(DefaultMetaUIDs)
	var rows []struct{}
	if err := r.Register(NewTable(Schema{UID: 9, Name: "empty"}, &rows)); err != nil {
		t.Fatal(err)
	}
	src := "XDUMP empty 0\n" + strings.Repeat("\n", maxRows+1) + "/0\n"
	_, err := r.Parse("big", []byte(src), Viewer{Deity: true})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != maxRows+2 || pe.Msg != "too many rows" {
		t.Errorf("got %v", err)
	}
}

func TestVerify(t *testing.T) {
	w := newWorld(t)
	if err := w.reg.Verify(); err != nil {
		t.Fatal(err)
	}
	w.ents[1].Kind = 9
	w.ents[2].State = 16 | 1
	err := w.reg.Verify()
	var re *RefError
	if !errors.Is(err, ErrReference) || !errors.As(err, &re) || re.Row != 1 || re.Field != "kind" || re.To != "ent-kind" {
		t.Errorf("got %v", err)
	}
	if !strings.Contains(err.Error(), "row 2 field state: value 17") {
		t.Errorf("got %v", err)
	}
}
