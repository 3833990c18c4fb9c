package world

import (
	"bytes"
	"errors"
	"io/fs"
	"math"
	"os"
	"path"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/twinframe/twinframe/shared/navi"
	"github.com/twinframe/twinframe/shared/xdump"
)

var deity = xdump.Viewer{Deity: true}

func loadDefault(t testing.TB) *World {
	t.Helper()
	w, err := LoadDefault()
	if err != nil {
		t.Fatalf("LoadDefault: %v", err)
	}
	return w
}

func TestLoadDefault(t *testing.T) {
	t.Parallel()
	w := loadDefault(t)
	counts := []struct {
		table string
		got   int
		want  int
	}{
		{"region", len(w.Regions), 3},
		{"cell", len(w.Cells), 9 + 36 + 2},
		{"area", len(w.Areas), 7},
		{"polygon", len(w.Polygons), 303},
		{"vertex", len(w.Vertices), 2004},
		{"transition", len(w.Transitions), 5},
		{"marker", len(w.Markers), 93},
		{"prototype", len(w.Prototypes), 10},
		{"prop-set", len(w.PropSets), 3},
		{"population", len(w.Populations), 11},
		{"entity", len(w.Entities), 56},
		{"lost", len(w.Lost), 0},
	}
	for _, c := range counts {
		if c.got != c.want {
			t.Errorf("%s: %d rows, want %d", c.table, c.got, c.want)
		}
	}
	// Every spawn point lies in a blackout zone of its region.
	for _, m := range w.Markers {
		if m.Kind != Spawn {
			continue
		}
		in := false
		for _, z := range w.BlackoutZones(w.Areas[m.Area].Region) {
			in = in || m.Pos.Sub(z.Center).Len() < z.Radius
		}
		if !in {
			t.Errorf("spawn marker %d at %v is in no blackout zone", m.ID, m.Pos)
		}
	}
}

// TestDefaultMesh builds every region's navmesh and validates it: the hub's landmarks,
// and in every region its spawn points and hotspots on walkable ground.
func TestDefaultMesh(t *testing.T) {
	t.Parallel()
	w := loadDefault(t)
	landmarks := map[string]int{} // region name: landmarks checked
	for _, r := range w.Regions {
		m, err := w.BuildMesh(r.ID, nil)
		if err != nil {
			t.Fatalf("region %s: %v", r.Name, err)
		}
		if err := navi.Validate(m); err != nil {
			t.Fatalf("region %s: %v", r.Name, err)
		}
		t.Logf("region %s: %d triangles, %d vertices", r.Name, len(m.Triangles()), len(m.Vertices()))
		checks := []struct {
			what string
			p    mgl32.Vec2
			want navi.Flags // flags that must be set (Walk) or, with 0, Walk must be clear
		}{
			{"avenue", mgl32.Vec2{64, 64}, navi.Walk},
			{"inside the bank", mgl32.Vec2{85, 15}, 0},
			{"the hotel slit", mgl32.Vec2{95.55, 15}, navi.Walk},
			{"in the pond", mgl32.Vec2{66, 152}, 0},
			{"a parked car", mgl32.Vec2{8, 55}, 0},
			{"lab door", mgl32.Vec2{128.15, 158}, navi.Walk},
			{"lab wall", mgl32.Vec2{128.15, 140}, 0},
			{"spawn point", mgl32.Vec2{20, 160}, navi.Walk},
		}
		if r.Name != "downtown" {
			checks = nil
		}
		for _, c := range checks {
			landmarks[r.Name]++
			f := m.FlagsAt(c.p)
			if c.want == 0 && f&navi.Walk != 0 || f&c.want != c.want {
				t.Errorf("%s %v: flags %b, want %b", c.what, c.p, f, c.want)
			}
		}
		for _, mk := range w.Markers {
			if w.Areas[mk.Area].Region != r.ID {
				continue
			}
			landmarks[r.Name]++
			if mk.Kind == Spawn && !m.InBlackOutZone(mk.Pos, 0) {
				t.Errorf("spawn marker %d at %v: not in a blackout zone of the mesh", mk.ID, mk.Pos)
			}
			if (mk.Kind == Spawn || mk.Kind == Hotspot) && m.FlagsAt(mk.Pos)&navi.Walk == 0 {
				t.Errorf("%s marker %d at %v: not on walkable ground", markerKindName(mk.Kind), mk.ID, mk.Pos)
			}
		}
	}
	if len(landmarks) != len(w.Regions) || landmarks["downtown"] < 8 {
		t.Errorf("checked %v", landmarks)
	}
}

// overlay returns the small valid world with the files of dir laid over it.
func overlay(t *testing.T, dir string) fs.FS {
	t.Helper()
	m := fstest.MapFS{}
	for _, d := range []string{"testdata/small", dir} {
		if d == "" {
			continue
		}
		es, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			data, err := os.ReadFile(path.Join(d, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			m[e.Name()] = &fstest.MapFile{Data: data}
		}
	}
	return m
}

func TestLoadSmall(t *testing.T) {
	t.Parallel()
	w, err := Load(overlay(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	want := []Entity{{ID: 1, Prototype: 1, Region: 0, Pos: mgl32.Vec2{15, 5}, Yaw: quarterYaw[1], State: StateStatic,
		Goal: mgl32.Vec2{15, 5}, Owner: -1, Seed: w.Entities[0].Seed}}
	if !reflect.DeepEqual(w.Entities, want) {
		t.Errorf("entities %+v, want %+v", w.Entities, want)
	}
	rules := []HotspotRule{{0, 3, 0, Enter, ActionToggleBlackout, -1, 1}, {1, 3, 0, Leave, ActionSpawn, 1, -1}}
	if !reflect.DeepEqual(w.Rules, rules) {
		t.Errorf("rules %+v, want %+v", w.Rules, rules)
	}
	g, err := w.Geometry(0)
	if err != nil {
		t.Fatal(err)
	}
	// ground, wall, and the box turned a quarter: its corner (-0.5,-0.5) goes to (0.5,-0.5).
	if len(g.Polygons) != 3 || g.Polygons[2].Kind != navi.Obstacle || g.Polygons[2].Points[0] != (mgl32.Vec2{15.5, 4.5}) {
		t.Errorf("geometry %+v", g)
	}
	if _, err := w.Geometry(7); !errors.Is(err, ErrNoRegion) {
		t.Errorf("Geometry(7): %v, want ErrNoRegion", err)
	}
	m, err := w.BuildMesh(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := navi.Validate(m); err != nil {
		t.Fatal(err)
	}
}

// TestBadConfigs loads each directory of testdata/bad over the small world; the first
// line of its file says the error wanted: `# want: FILE:LINE: message`.
func TestBadConfigs(t *testing.T) {
	t.Parallel()
	dirs, err := os.ReadDir("testdata/bad")
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 20 {
		t.Fatalf("only %d cases", len(dirs))
	}
	for _, d := range dirs {
		t.Run(d.Name(), func(t *testing.T) {
			t.Parallel()
			dir := path.Join("testdata/bad", d.Name())
			es, err := os.ReadDir(dir)
			if err != nil || len(es) != 1 {
				t.Fatalf("want one file in %s: %v", dir, err)
			}
			data, err := os.ReadFile(path.Join(dir, es[0].Name()))
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(string(data), "\n")
			want, ok := strings.CutPrefix(first, "# want: ")
			if !ok {
				t.Fatalf("%s: first line %q is not `# want: ...`", es[0].Name(), first)
			}
			_, err = Load(overlay(t, dir))
			if err == nil {
				t.Fatalf("loaded; want error %q", want)
			}
			if !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), es[0].Name()+":") {
				t.Errorf("error:\n%v\nwant one starting %q", err, want)
			}
			var pe *xdump.ParseError
			var we *Error
			if !errors.As(err, &pe) && !(errors.As(err, &we) && errors.Is(err, ErrInvalid)) {
				t.Errorf("error %v is neither an xdump.ParseError nor a world.Error wrapping ErrInvalid", err)
			}
		})
	}
}

// smallGo is a valid world built in Go (no files).
func smallGo() *World {
	w := New()
	c := &w.Config
	c.Regions = []Region{{0, "r", mgl32.Vec2{0, 0}, mgl32.Vec2{20, 10}}}
	c.Cells = []Cell{{0, 0, mgl32.Vec2{0, 0}, mgl32.Vec2{20, 10}, 7}}
	c.Areas = []Area{{0, "yard", 0, mgl32.Vec2{0, 0}, mgl32.Vec2{20, 10}}}
	c.Polygons = []Polygon{{0, "ground", 0, Walkable}, {1, "post", 0, Obstacle}}
	c.Vertices = []Vertex{
		{0, 0, mgl32.Vec2{0, 0}}, {0, 1, mgl32.Vec2{20, 0}}, {0, 2, mgl32.Vec2{20, 10}}, {0, 3, mgl32.Vec2{0, 10}},
		{1, 0, mgl32.Vec2{5, 5}}, {1, 1, mgl32.Vec2{6, 5}}, {1, 2, mgl32.Vec2{6, 6}},
	}
	c.Prototypes = []Prototype{{0, "npc", 0.4, 2, Blocking, FlagNPC, -1}, {1, "crate", 0.5, 0, Blocking, FlagProp | FlagStatic, -1}}
	c.PropSets = []PropSet{{0, "crates", [4]int32{1, -1, -1, -1}, [4]int32{1, 0, 0, 0}}}
	c.Markers = []Marker{{0, 0, Spawn, mgl32.Vec2{2, 2}, 0, 0, -1}, {1, 0, Prop, mgl32.Vec2{10, 5}, 0, 2, 0}}
	c.Populations = []Population{{0, 0, 0, 1}}
	return w
}

// TestVerify mutates a world built in Go; errors name table and row (no file).
func TestVerify(t *testing.T) {
	t.Parallel()
	if err := smallGo().Verify(); err != nil {
		t.Fatalf("valid world: %v", err)
	}
	cases := []struct {
		name   string
		mutate func(c *Config)
		want   string
	}{
		{"no region", func(c *Config) { c.Regions = nil }, "region: world: invalid configuration: no region"},
		{"empty bounds", func(c *Config) { c.Regions[0].Max[0] = 0 }, "region row 0: world: invalid configuration: bounds"},
		{"nan bounds", func(c *Config) { c.Regions[0].Max[1] = float32(nan()) }, "region row 0: world: invalid configuration: bounds"},
		{"negative id", func(c *Config) { c.Areas[0].ID = -3 }, "area row 0: world: invalid configuration: id -3 out of range"},
		{"duplicate id", func(c *Config) { c.Polygons[1].ID = 0 }, "polygon row 1: world: invalid configuration: id 0 already used by row 0"},
		{"bad name", func(c *Config) { c.Areas[0].Name = "a b" }, `area row 0: world: invalid configuration: name "a b" is not a symbol`},
		{"numeric name", func(c *Config) { c.Polygons[1].Name = "7up" }, `polygon row 1: world: invalid configuration: name "7up" is not a symbol`},
		{"nil name", func(c *Config) { c.Regions[0].Name = "nil" }, `region row 0: world: invalid configuration: name "nil" is not a symbol`},
		{"empty name", func(c *Config) { c.Prototypes[0].Name = "" }, `prototype row 0: world: invalid configuration: name "" is not a symbol`},
		{"cell id limit", func(c *Config) { c.Cells[0].ID = maxCells }, "cell row 0: world: invalid configuration: id 4096 out of range [0, 4096)"},
		{"too many vertices", func(c *Config) {
			for k := range maxVertices {
				c.Vertices = append(c.Vertices, Vertex{Polygon: 1, Seq: int32(3 + k), Pos: mgl32.Vec2{6, 6}})
			}
		}, "vertex row 516: world: invalid configuration: polygon 1 has more than 512 vertices"},
		{"cell region", func(c *Config) { c.Cells[0].Region = 4 }, "cell row 0: world: invalid configuration: unknown region 4"},
		{"cell size", func(c *Config) { c.Cells[0].Size[1] = 0 }, "cell row 0: world: invalid configuration: size"},
		{"cell outside", func(c *Config) { c.Cells[0].Min[0] = 1 }, "cell row 0: world: invalid configuration: cell [1 0]..[21 10] outside region r"},
		{"area region", func(c *Config) { c.Areas[0].Region = 1 }, "area row 0: world: invalid configuration: unknown region 1"},
		{"area empty bounds", func(c *Config) { c.Areas[0].Min[1] = 10 }, "area row 0: world: invalid configuration: bounds [0 10]..[20 10] empty or not finite"},
		{"area bounds not finite", func(c *Config) { c.Areas[0].Max[0] = float32(math.Inf(1)) }, "area row 0: world: invalid configuration: bounds [0 0]..[+Inf 10] empty or not finite"},
		{"region bounds not finite", func(c *Config) { c.Regions[0].Min[1] = float32(nan()) }, "region row 0: world: invalid configuration: bounds [0 NaN]..[20 10] empty or not finite"},
		{"area outside", func(c *Config) { c.Areas[0].Max[0] = 30 }, "area row 0: world: invalid configuration: bounds [0 0]..[30 10] outside region r"},
		{"areas overlap", func(c *Config) {
			c.Areas = append(c.Areas, Area{1, "shed", 0, mgl32.Vec2{18, 8}, mgl32.Vec2{20, 10}})
		}, "area row 1: world: invalid configuration: overlaps area yard (row 0)"},
		{"polygon kind", func(c *Config) { c.Polygons[1].Kind = 9 }, "polygon row 1: world: invalid configuration: unknown kind 9"},
		{"polygon area", func(c *Config) { c.Polygons[1].Area = 5 }, "polygon row 1: world: invalid configuration: unknown area 5"},
		{"vertex polygon", func(c *Config) { c.Vertices[6].Polygon = 8 }, "vertex row 6: world: invalid configuration: unknown polygon 8"},
		{"vertex order", func(c *Config) { c.Vertices[5], c.Vertices[6] = c.Vertices[6], c.Vertices[5] }, "vertex row 6: world: invalid configuration: (polygon, seq) = (1, 1) after (1, 2)"},
		{"vertex nan", func(c *Config) { c.Vertices[6].Pos[0] = float32(nan()) }, "vertex row 6: world: invalid configuration: position not finite"},
		{"fold back", func(c *Config) { c.Vertices[6].Pos = mgl32.Vec2{5.5, 5} }, "polygon post: zero area"},
		{"footprint not footprint", func(c *Config) { c.Prototypes[1].Footprint = 1 }, "prototype row 1: world: invalid configuration: polygon post is not a footprint"},
		{"footprint unknown", func(c *Config) { c.Prototypes[1].Footprint = 6 }, "prototype row 1: world: invalid configuration: unknown footprint polygon 6"},
		{"collision", func(c *Config) { c.Prototypes[0].Collision = 3 }, "prototype row 0: world: invalid configuration: unknown collision 3"},
		{"flags", func(c *Config) { c.Prototypes[0].Flags |= 1 << 9 }, "prototype row 0: world: invalid configuration: unknown flags 0x200"},
		{"speed", func(c *Config) { c.Prototypes[0].Speed = -1 }, "prototype row 0: world: invalid configuration: speed -1 negative"},
		{"static speed", func(c *Config) { c.Prototypes[1].Speed = 1 }, "prototype row 1: world: invalid configuration: static with speed 1"},
		{"prop-set slot", func(c *Config) { c.PropSets[0].Weights[1] = 2 }, "prop-set row 0: world: invalid configuration: slot 1: prototype -1 with weight 2"},
		{"prop-set proto", func(c *Config) { c.PropSets[0].Protos[0] = 7 }, "prop-set row 0: world: invalid configuration: slot 0: unknown prototype 7"},
		{"prop-set empty", func(c *Config) { c.PropSets[0].Protos[0], c.PropSets[0].Weights[0] = -1, 0 }, "prop-set row 0: world: invalid configuration: no prototype to choose"},
		{"marker area", func(c *Config) { c.Markers[0].Area = 2 }, "marker row 0: world: invalid configuration: unknown area 2"},
		{"marker radius", func(c *Config) { c.Markers[0].Radius = -1 }, "marker row 0: world: invalid configuration: position or radius not finite, or radius negative"},
		{"marker rot", func(c *Config) { c.Markers[1].Rot = 4 }, "marker row 1: world: invalid configuration: rot 4 not in 0..3"},
		{"marker kind", func(c *Config) { c.Markers[0].Kind = 0 }, "marker row 0: world: invalid configuration: unknown kind 0"},
		{"marker prop-set on spawn", func(c *Config) { c.Markers[0].PropSet = 0 }, "marker row 0: world: invalid configuration: prop-set 0 on a marker that is no prop"},
		{"hotspot radius", func(c *Config) { c.Markers[0].Kind = Hotspot }, "marker row 0: world: invalid configuration: a hotspot needs a positive radius"},
		{"population area", func(c *Config) { c.Populations[0].Area = 3 }, "population row 0: world: invalid configuration: unknown area 3"},
		{"population proto", func(c *Config) { c.Populations[0].Prototype = 3 }, "population row 0: world: invalid configuration: unknown prototype 3"},
		{"population density", func(c *Config) { c.Populations[0].Density = -2 }, "population row 0: world: invalid configuration: density -2"},
		{"population density too high", func(c *Config) { c.Populations[0].Density = 1e9 }, "population row 0: world: invalid configuration: density 1e+09 above 100 per 1000 m²"},
		{"radius too large", func(c *Config) { c.Prototypes[0].Radius = MaxRadius + 1 }, "prototype row 0: world: invalid configuration: radius 33 above 32 m"},
		{"speed too high", func(c *Config) { c.Prototypes[0].Speed = MaxSpeed + 1 }, "prototype row 0: world: invalid configuration: speed 101 above 100 m/s"},
		{"marker radius too large", func(c *Config) { c.Markers[0].Radius = MaxMarkerRadius + 1 }, "marker row 0: world: invalid configuration: radius 1025 above 1024 m"},
		{"vertex too far", func(c *Config) { c.Vertices[4].Pos[1] = -MaxCoordinate - 1 }, "vertex row 4: world: invalid configuration: position [5 -4097] beyond ±4096 m"},
		{"region too large", func(c *Config) { c.Regions[0].Max[0] = MaxCoordinate + 1 }, "region row 0: world: invalid configuration: bounds [0 0]..[4097 10] beyond ±4096 m"},
		{"power id", func(c *Config) { c.Powers = []Power{{2, "beam", 5}} }, "power row 0: world: invalid configuration: unknown power 2"},
		{"power cooldown 0", func(c *Config) { c.Powers = []Power{{1, "bolt", 0}} }, "power row 0: world: invalid configuration: cooldown 0 not in 1..200 frames"},
		{"power cooldown too long", func(c *Config) { c.Powers = []Power{{1, "bolt", MaxFireCooldown + 1}} }, "power row 0: world: invalid configuration: cooldown 201 not in 1..200 frames"},
		{"rule trigger", func(c *Config) {
			c.Rules = []HotspotRule{withHotspot(c, HotspotRule{Prototype: -1, Action: ActionDespawn, Spawn: -1, Zone: -1})}
		}, "hotspot-rule row 0: world: invalid configuration: unknown trigger 0"},
		{"rule prototype", func(c *Config) {
			c.Rules = []HotspotRule{withHotspot(c, HotspotRule{Prototype: 9, On: Leave, Action: ActionDespawn, Spawn: -1, Zone: -1})}
		}, "hotspot-rule row 0: world: invalid configuration: unknown prototype 9"},
		{"rule action", func(c *Config) {
			c.Rules = []HotspotRule{withHotspot(c, HotspotRule{Prototype: -1, On: Enter, Action: 4, Spawn: -1, Zone: -1})}
		}, "hotspot-rule row 0: world: invalid configuration: unknown action 4"},
		{"rule spawn", func(c *Config) {
			c.Rules = []HotspotRule{withHotspot(c, HotspotRule{Prototype: -1, On: Enter, Action: ActionSpawn, Spawn: -1, Zone: -1})}
		}, "hotspot-rule row 0: world: invalid configuration: spawn needs a prototype to spawn, not -1"},
		{"rule zone on spawn", func(c *Config) {
			c.Rules = []HotspotRule{withHotspot(c, HotspotRule{Prototype: -1, On: Enter, Action: ActionSpawn, Spawn: 0, Zone: 0})}
		}, "hotspot-rule row 0: world: invalid configuration: zone 0 on an action that toggles no blackout (use -1)"},
		{"rule duplicate id", func(c *Config) {
			r := withHotspot(c, HotspotRule{Prototype: -1, On: Enter, Action: ActionDespawn, Spawn: -1, Zone: -1})
			c.Rules = []HotspotRule{r, r}
		}, "hotspot-rule row 1: world: invalid configuration: id 0 already used by row 0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := smallGo()
			tc.mutate(&w.Config)
			err := w.Verify()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v\nwant an error containing %q", err, tc.want)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("%v does not wrap ErrInvalid", err)
			}
		})
	}
}

// withHotspot adds a hotspot marker to c and returns r on it.
func withHotspot(c *Config, r HotspotRule) HotspotRule {
	c.Markers = append(c.Markers, Marker{ID: 7, Area: 0, Kind: Hotspot, Pos: mgl32.Vec2{12, 3}, Radius: 1, PropSet: -1})
	r.Hotspot = 7
	return r
}

func nan() float64 { z := 0.0; return z / z }

func TestVerifyCapsErrors(t *testing.T) {
	t.Parallel()
	w := smallGo()
	for i := range 30 {
		w.Markers = append(w.Markers, Marker{ID: int32(10 + i), Area: 9, PropSet: -1})
	}
	err := w.Verify()
	var list interface{ Unwrap() []error }
	if !errors.As(err, &list) || len(list.Unwrap()) != maxErrors+1 || !strings.Contains(err.Error(), "and 10 more problems") {
		t.Errorf("got %v", err)
	}
}

// TestRoundTrip: config → tables → machine dump → parse → the same tables.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	w := loadDefault(t)
	w.Lost = []Lost{{ID: 99, Region: 0, Timestamp: 12}}
	w.Rules = sampleRules()
	w.Entities[0].Vel = mgl32.Vec2{0.1, -1e-7}
	w.Entities[0].Goal = mgl32.Vec2{1.0 / 3, 2}
	var dump bytes.Buffer
	for _, tb := range w.Registry().Tables() {
		if tb.Schema().ReadOnly {
			continue
		}
		if err := w.Registry().WriteTable(&dump, tb, xdump.Options{Viewer: deity, Export: true, Timestamp: 5}); err != nil {
			t.Fatal(err)
		}
	}
	w2 := New()
	if err := w2.Registry().Load("dump", dump.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := w2.Verify(); err != nil {
		t.Fatal(err)
	}
	a, b := reflect.ValueOf(w.Config), reflect.ValueOf(w2.Config)
	for i := range a.NumField() {
		if !reflect.DeepEqual(a.Field(i).Interface(), b.Field(i).Interface()) {
			t.Errorf("%s differs after the round trip", a.Type().Field(i).Name)
		}
	}
	if !reflect.DeepEqual(w.State, w2.State) {
		t.Errorf("state differs after the round trip:\n%+v\n%+v", w.State, w2.State)
	}
}

// TestConfigRoundTrip: the default world written back as .config text (xdump's
// WriteConfig) loads into the same tables.
// sampleRules are hotspot rules for the default world (which ships none).
func sampleRules() []HotspotRule {
	return []HotspotRule{
		{ID: 0, Hotspot: 8, Prototype: -1, On: Enter, Action: ActionToggleBlackout, Spawn: -1, Zone: 1},
		{ID: 1, Hotspot: 9, Prototype: 0, On: Leave, Action: ActionSpawn, Spawn: 3, Zone: -1},
		{ID: 2, Hotspot: 16, Prototype: 2, On: Enter, Action: ActionDespawn, Spawn: -1, Zone: -1},
	}
}

func TestConfigRoundTrip(t *testing.T) {
	t.Parallel()
	w := loadDefault(t)
	w.Rules = sampleRules()
	var text bytes.Buffer
	for _, tb := range w.Registry().Tables() {
		if uid := tb.Schema().UID; uid < UIDRegion || uid > UIDTransition {
			continue
		}
		if err := w.Registry().WriteConfig(&text, tb); err != nil {
			t.Fatal(err)
		}
	}
	w2, err := Load(fstest.MapFS{"world.config": {Data: text.Bytes()}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(w.Config, w2.Config) || !reflect.DeepEqual(w.State, w2.State) {
		t.Errorf("the world differs after a round trip through\n%s", text.String())
	}
}

// TestVisibility: a player's dump omits the deity field seed and masks the hidden goal.
func TestVisibility(t *testing.T) {
	t.Parallel()
	w := loadDefault(t)
	cases := []struct {
		command string
		v       xdump.Viewer
		want    string
	}{
		{"xdump entity 47", deity, "XDUMP entity 0\n47 6 0 146 170 1.5707964 0 0 16 146 170 -1 897949975 0\n/1\n"},
		{"xdump entity 47", xdump.Viewer{ID: 3}, "XDUMP entity 0\n47 6 0 146 170 1.5707964 0 0 16 -1 -1 -1 0\n/1\n"},
		{"xdump meta entity ?name=seed", deity, "XDUMP meta entity 0\n\"seed\" 1 1 0 -1\n/1\n"},
		{"xdump meta entity ?name=seed", xdump.Viewer{ID: 3}, "XDUMP meta entity 0\n/0\n"},
		{"xdump meta entity ?name=goal", xdump.Viewer{ID: 3}, "XDUMP meta entity 0\n\"goal\" 2 16 2 -1\n/1\n"},
		{"xdump entity ?timestamp>0", deity, "XDUMP entity 0\n/0\n"},
	}
	for _, tc := range cases {
		var out bytes.Buffer
		if err := w.Xdump(&out, tc.command, tc.v); err != nil {
			t.Errorf("%s: %v", tc.command, err)
			continue
		}
		if out.String() != tc.want {
			t.Errorf("%s as %+v:\n%s\nwant\n%s", tc.command, tc.v, out.String(), tc.want)
		}
	}
}

// TestTables fixes the uids and names clients see.
func TestTables(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := New().Xdump(&out, "xdump table *", deity); err != nil {
		t.Fatal(err)
	}
	want := `XDUMP table 0
0 "table"
1 "meta"
2 "meta-type"
3 "meta-flags"
10 "polygon-kind"
11 "marker-kind"
12 "collision"
13 "proto-flags"
14 "entity-state"
15 "trigger"
16 "action"
20 "region"
21 "cell"
22 "area"
23 "polygon"
24 "vertex"
25 "marker"
26 "prototype"
27 "prop-set"
28 "population"
29 "hotspot-rule"
30 "power"
31 "transition"
40 "entity"
41 "lost"
/25
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

// TestProps pins the props of the default world: which prototype every prop marker
// places is a function of the cell seeds only, the same on every platform.
func TestProps(t *testing.T) {
	t.Parallel()
	w := loadDefault(t)
	letter := map[string]string{"sedan": "s", "van": "v", "crate": "c", "crate-large": "C", "puddle": "p", "leaves": "l"}
	var b strings.Builder
	for _, e := range w.Entities {
		b.WriteString(letter[w.Prototypes[e.Prototype].Name])
	}
	const want = "sssvvssvvsssssvsssssssvsssvssCCcccCcclplpppcCccpllcccccc"
	if got := b.String(); got != want {
		t.Errorf("props %s, want %s", got, want)
	}
}

func TestTurn(t *testing.T) {
	t.Parallel()
	q := mgl32.Vec2{2, 1}
	want := []mgl32.Vec2{{2, 1}, {-1, 2}, {-2, -1}, {1, -2}}
	for rot, w := range want {
		if got := turn(q, int32(rot)); got != w {
			t.Errorf("turn(%v, %d) = %v, want %v", q, rot, got, w)
		}
	}
}

// TestBuildMeshError: a polygon navi refuses (its points merge) is reported at the
// file and line of its row.
func TestBuildMeshError(t *testing.T) {
	t.Parallel()
	m := overlay(t, "").(fstest.MapFS)
	m["20-polygon.config"].Data = bytes.Replace(m["20-polygon.config"].Data,
		[]byte("wall    2   11      8\nwall    3    9      8"), []byte("wall    2    9.0004 2.0004"), 1)
	w, err := Load(m)
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.BuildMesh(0, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "20-polygon.config:5: polygon row 2: polygon wall: navi:") {
		t.Errorf("got %v", err)
	}
	if !errors.Is(err, navi.ErrTooFewPoints) && !errors.Is(err, navi.ErrZeroArea) {
		t.Errorf("%v does not wrap the navi error", err)
	}
}

// TestBuildMeshRegionError: a refusal that is no polygon's fault names the region's
// row, with its file and line.
func TestBuildMeshRegionError(t *testing.T) {
	t.Parallel()
	w, err := Load(overlay(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	w.Regions[0].Max = w.Regions[0].Min // navi refuses empty bounds
	_, err = w.BuildMesh(0, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "10-world.config:4: region row 0: region r: navi:") {
		t.Errorf("got %v", err)
	}
	if !errors.Is(err, navi.ErrBounds) {
		t.Errorf("%v does not wrap navi.ErrBounds", err)
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	if _, err := Load(fstest.MapFS{"README": {Data: []byte("hi")}}); !errors.Is(err, ErrNoConfig) {
		t.Errorf("no config: %v", err)
	}
	big := fstest.MapFS{"a.config": {Data: make([]byte, maxFileSize+1)}}
	if _, err := Load(big); !errors.Is(err, ErrInvalid) || !strings.HasPrefix(err.Error(), "a.config:1: ") {
		t.Errorf("big file: %v", err)
	}
}

func BenchmarkLoadDefault(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := LoadDefault(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseDefaultFloor is LoadDefault's baseline: the xdump parser loading the
// same files into a fresh world, without verification or the initial state.
func BenchmarkParseDefaultFloor(b *testing.B) {
	fsys := DefaultFiles()
	names, err := fs.Glob(fsys, "*.config")
	if err != nil {
		b.Fatal(err)
	}
	files := make([][]byte, len(names))
	for i, n := range names {
		if files[i], err = fs.ReadFile(fsys, n); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		w := New()
		for i, data := range files {
			if err := w.Registry().Load(names[i], data); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkBuildMeshDefault(b *testing.B) {
	w := loadDefault(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := w.BuildMesh(0, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPortalsWorld: the small world with a second region and portals both ways (the
// base of the transition cases of testdata/bad) loads, and InPortal tells a disc and
// a polygon portal's inside, margin and outside apart.
func TestPortalsWorld(t *testing.T) {
	t.Parallel()
	w, err := Load(overlay(t, "testdata/portals"))
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Transitions) != 2 || w.AvatarRadius() != 0.5 {
		t.Fatalf("%d transitions, avatar radius %g", len(w.Transitions), w.AvatarRadius())
	}
	door, back := &w.Transitions[0], &w.Transitions[1]
	ring := w.PortalRing(back)
	if len(ring) != 4 || w.PortalRing(door) != nil {
		t.Fatalf("rings %v, %v", ring, w.PortalRing(door))
	}
	for _, c := range []struct {
		t      *Transition
		p      mgl32.Vec2
		margin float32
		want   bool
	}{
		{door, mgl32.Vec2{18, 2}, 0, true},
		{door, mgl32.Vec2{18, 3.2}, 0, false},
		{door, mgl32.Vec2{18, 3.2}, 0.5, true},
		{back, mgl32.Vec2{38.5, 8.5}, 0, true},
		{back, mgl32.Vec2{37.7, 8.5}, 0, false},
		{back, mgl32.Vec2{37.7, 8.5}, 0.5, true},
		{back, mgl32.Vec2{39.6, 9.6}, 0.5, false}, // beyond the corner by 0.85
	} {
		if got := InPortal(c.t, w.PortalRing(c.t), c.p, c.margin); got != c.want {
			t.Errorf("InPortal(%s, %v, %g) = %v", c.t.Name, c.p, c.margin, got)
		}
	}
}
