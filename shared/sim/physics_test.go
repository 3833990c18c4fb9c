package sim

import (
	"io/fs"
	"math"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/navi"
	"github.com/twinframe/twinframe/shared/world"

	"github.com/twinframe/twinframe/shared/geom"
)

func TestHeadOnCollision(t *testing.T) {
	g := quiet(t)
	a := spawn(t, g, protoDummy, mgl32.Vec2{58, 64})
	b := spawn(t, g, protoDummy, mgl32.Vec2{70, 64})
	must(t, g.MoveTo(a, mgl32.Vec2{75, 64}))
	must(t, g.MoveTo(b, mgl32.Vec2{53, 64}))
	hits := 0
	for range 200 {
		run(t, g, 1) // invariants: never interpenetrating
		for _, ev := range g.Events() {
			if ev.Kind == OnCollide && ev.B != 0 {
				hits++
				if ev.A == ev.B || (ev.A != a && ev.A != b) {
					t.Fatalf("bad event %+v", ev)
				}
			}
		}
	}
	if hits == 0 {
		t.Error("no collision between two entities walking into each other")
	}
}

func TestOverlapEvents(t *testing.T) {
	g := quiet(t)
	dummy := spawn(t, g, protoDummy, mgl32.Vec2{64, 64})
	ghost := spawn(t, g, protoGhost, mgl32.Vec2{58, 64})
	must(t, g.MoveTo(ghost, mgl32.Vec2{70, 64}))
	var kinds []EventKind
	reached := false
	for range 120 {
		run(t, g, 1)
		reached = reached || geom.Dist(g.Entity(ghost).Pos(), mgl32.Vec2{70, 64}) < 0.01
		for _, ev := range g.Events() {
			if ev.Kind == OnOverlapBegin || ev.Kind == OnOverlapEnd {
				if ev.A != dummy || ev.B != ghost {
					t.Fatalf("pair %d, %d: want %d, %d", ev.A, ev.B, dummy, ghost)
				}
				kinds = append(kinds, ev.Kind)
			}
		}
		if g.Overlapping(ghost, dummy) != (len(kinds) == 1) {
			t.Fatalf("frame %d: Overlapping disagrees with the events %v", g.Frame(), kinds)
		}
	}
	if len(kinds) != 2 || kinds[0] != OnOverlapBegin || kinds[1] != OnOverlapEnd {
		t.Fatalf("events %v, want begin then end", kinds)
	}
	if !reached {
		t.Errorf("the ghost never reached its goal: overlapping entities must pass through")
	}
}

func TestEventOrder(t *testing.T) {
	// Many ghosts crossing many dummies: the events of every frame are sorted as
	// documented (collisions by mover, overlaps by pair).
	g := quiet(t)
	for i := range 8 {
		spawn(t, g, protoDummy, mgl32.Vec2{60 + float32(i), 64})
		id := spawn(t, g, protoGhost, mgl32.Vec2{60 + float32(i), 58})
		must(t, g.MoveTo(id, mgl32.Vec2{60 + float32(i), 70}))
	}
	n := 0
	for range 100 {
		run(t, g, 1)
		var last Event
		for _, ev := range g.Events() {
			if ev.Kind == OnOverlapBegin || ev.Kind == OnOverlapEnd {
				if last.Kind != 0 && cmpPair(pair{last.A, last.B}, pair{ev.A, ev.B}) >= 0 {
					t.Fatalf("frame %d: overlap events out of order: %+v then %+v", g.Frame(), last, ev)
				}
				last = ev
				n++
			}
		}
	}
	if n < 16 {
		t.Errorf("only %d overlap events", n)
	}
}

func TestProjectile(t *testing.T) {
	g := quiet(t)
	av := spawn(t, g, protoAvatar, mgl32.Vec2{64, 64})
	target := spawn(t, g, protoDummy, mgl32.Vec2{72, 64})
	bolt, err := g.Fire(av, mgl32.Vec2{72, 64})
	if err != nil {
		t.Fatal(err)
	}
	if p := g.Entity(bolt).Policy(); p != 0x80 {
		t.Errorf("projectile policy %#x, want ClientIndependent", p)
	}
	var res []PowerResult
	for range 10 {
		run(t, g, 1)
		res = append(res, g.PowerResults()...)
	}
	if len(res) != 1 || res[0].Target != target || res[0].Source != av || res[0].Projectile != bolt {
		t.Fatalf("results %+v", res)
	}
	if g.Entity(bolt) != nil {
		t.Error("projectile survived its hit")
	}
	// At a wall: Target 0, the hit point on the hall's east face (x = 30).
	must(t, g.Teleport(av, mgl32.Vec2{33, 34}))
	bolt, err = g.Fire(av, mgl32.Vec2{20, 34})
	if err != nil {
		t.Fatal(err)
	}
	res = res[:0]
	for range 40 {
		run(t, g, 1)
		res = append(res, g.PowerResults()...)
	}
	if len(res) != 1 || res[0].Target != 0 || res[0].Projectile != bolt || abs32(res[0].Point[0]-30) > 1e-3 || res[0].Normal != (mgl32.Vec2{1, 0}) {
		t.Fatalf("wall results %+v", res)
	}
}

func TestFastMoverDoesNotTunnel(t *testing.T) {
	// At MaxSpeed (5 m per frame, 10 diameters) an avatar still stops at a dummy.
	g := quiet(t)
	av := spawn(t, g, protoAvatar, mgl32.Vec2{40, 64})
	wall := spawn(t, g, protoDummy, mgl32.Vec2{60, 64})
	must(t, g.SetSpeed(av, MaxSpeed))
	must(t, g.MoveTo(av, mgl32.Vec2{80, 64}))
	run(t, g, 20)
	if x := g.Entity(av).Pos()[0]; x > g.Entity(wall).Pos()[0] {
		t.Errorf("avatar passed through the dummy: x = %v", x)
	}
}

// hotspotRules are the rules of TestHotspotRules as a configuration file.
const hotspotRules = `config hotspot-rule
id hotspot prototype on    action          spawn zone
 0 15      avatar    enter toggle-blackout -1    5
 1 15      -1        leave spawn           dummy -1
 2 14      -1        enter despawn         -1    -1
/config
`

// TestHotspotRules: hotspot 15 (park, (100, 146), r 4) toggles blackout marker 5
// (around spawn (100, 160)) when the avatar enters and spawns a dummy when anyone
// leaves; hotspot 14 despawns whoever enters. The rules come from the Go API or from
// the world's hotspot-rule table.
func TestHotspotRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		game func(t *testing.T) *Game
	}{
		{"AddRule", func(t *testing.T) *Game {
			g := quiet(t)
			must(t, g.AddRule(Rule{Hotspot: 15, Prototype: protoAvatar, On: Enter, Action: ActionToggleBlackout, Arg: 5}))
			must(t, g.AddRule(Rule{Hotspot: 15, Prototype: -1, On: Leave, Action: ActionSpawn, Arg: protoDummy}))
			must(t, g.AddRule(Rule{Hotspot: 14, Prototype: -1, On: Enter, Action: ActionDespawn, Arg: -1}))
			return g
		}},
		{"configuration", func(t *testing.T) *Game {
			fsys := fstest.MapFS{"60-hotspot-rule.config": {Data: []byte(hotspotRules)}}
			def := world.DefaultFiles()
			names, err := fs.Glob(def, "*.config")
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range names {
				b, err := fs.ReadFile(def, n)
				if err != nil {
					t.Fatal(err)
				}
				fsys[n] = &fstest.MapFile{Data: b}
			}
			w, err := world.Load(fsys)
			if err != nil {
				t.Fatal(err)
			}
			g, err := New(w, &Options{Seed: 7, NoPopulation: true})
			if err != nil {
				t.Fatal(err)
			}
			want := []Rule{{15, protoAvatar, Enter, ActionToggleBlackout, 5}, {15, -1, Leave, ActionSpawn, protoDummy},
				{14, -1, Enter, ActionDespawn, -1}}
			if !slices.Equal(g.Rules(), want) {
				t.Fatalf("rules %+v, want %+v", g.Rules(), want)
			}
			return g
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			testHotspotRules(t, tc.game(t))
		})
	}
}

func testHotspotRules(t *testing.T, g *Game) {
	av := spawn(t, g, protoAvatar, mgl32.Vec2{100, 128})
	if !g.BlackoutOn(5) {
		t.Fatal("zone 5 should start on")
	}
	mesh := g.Region(0).Mesh()
	if !mesh.InBlackOutZone(mgl32.Vec2{100, 160}, 0) {
		t.Fatal("mesh has no zone at marker 5")
	}
	if _, err := g.MoveAlongPath(av, mgl32.Vec2{100, 146}); err != nil {
		t.Fatal(err)
	}
	var enter, leave int
	for f := 0; f < 400 && g.Entity(av).Mode() != Idle; f++ {
		run(t, g, 1)
		for _, ev := range g.Events() {
			if ev.Kind == OnHotspotEnter && ev.Marker == 15 {
				enter++
			}
		}
	}
	if enter != 1 || g.BlackoutOn(5) || mesh.InBlackOutZone(mgl32.Vec2{100, 160}, 0) {
		t.Fatalf("enter events %d, zone on %v", enter, g.BlackoutOn(5))
	}
	before := len(g.Entities())
	if _, err := g.MoveAlongPath(av, mgl32.Vec2{66, 172}); err != nil {
		t.Fatal(err)
	}
	for range 600 {
		run(t, g, 1)
		for _, ev := range g.Events() {
			if ev.Kind == OnHotspotLeave && ev.Marker == 15 {
				leave++
			}
		}
		if g.Entity(av) == nil {
			break
		}
	}
	if leave != 1 || len(g.Entities()) != before {
		t.Errorf("leave events %d, entities %d (want %d: one spawned, the avatar despawned)", leave, len(g.Entities()), before)
	}
	if g.Entity(av) != nil {
		t.Error("the avatar entered hotspot 14 and was not despawned")
	}
}

func TestPopulation(t *testing.T) {
	g, err := New(defaultWorld(t), &Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	run(t, g, 1)
	r := g.Region(0)
	for _, a := range r.areas {
		for _, p := range a.pops {
			want := g.PopulationTarget(r, a.id, p.ID)
			have := 0
			for _, e := range g.Entities() {
				if e.population == p.ID {
					have++
					if r.mesh.InBlackOutZone(e.Pos(), e.Radius()) {
						t.Errorf("entity %d spawned in a blackout zone at %v", e.ID(), e.Pos())
					}
					if e.Prototype() != p.Prototype {
						t.Errorf("population %d spawned prototype %d", p.ID, e.Prototype())
					}
				}
			}
			if have != want || want == 0 {
				t.Errorf("population %d in %s: %d entities, want %d", p.ID, a.name, have, want)
			}
		}
	}
	// Destroyed entities are replaced at the next top-up.
	n := len(g.Entities())
	for _, e := range g.Entities() {
		if e.population >= 0 {
			must(t, g.Destroy(e.ID()))
			break
		}
	}
	run(t, g, PopulationPeriod)
	if len(g.Entities()) != n {
		t.Errorf("after top-up: %d entities, want %d", len(g.Entities()), n)
	}
	// Props come from the world's prop markers of the game's region, one per marker.
	props, want := 0, 0
	for _, e := range g.Entities() {
		if e.Flags()&world.FlagProp != 0 {
			props++
		}
	}
	for _, e := range g.World().Entities {
		if e.Region == g.Home().ID() {
			want++
		}
	}
	if props != want {
		t.Errorf("%d props, want %d", props, want)
	}
}

func TestSpawnPointsAreSeeded(t *testing.T) {
	positions := func(seed uint64) []mgl32.Vec2 {
		g, err := New(defaultWorld(t), &Options{Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		must(t, g.Step())
		var ps []mgl32.Vec2
		for _, e := range g.Entities() {
			ps = append(ps, e.Pos())
		}
		return ps
	}
	a, b, c := positions(1), positions(1), positions(2)
	if len(a) != len(b) {
		t.Fatal("same seed, different populations")
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed, entity %d at %v and %v", i, a[i], b[i])
		}
	}
	same := 0
	for i := range min(len(a), len(c)) {
		if a[i] == c[i] {
			same++
		}
	}
	if same == len(a) {
		t.Error("different seeds gave the same spawn points")
	}
}

func TestWallsMatchMesh(t *testing.T) {
	// Every wall segment has walkable ground on exactly one side.
	g := quiet(t)
	r := g.Region(0)
	for _, s := range r.walls.segs {
		mid := mgl32.Vec2{(s.A[0] + s.B[0]) / 2, (s.A[1] + s.B[1]) / 2}
		d, l := geom.Unit(geom.Sub(s.B, s.A))
		if l == 0 {
			t.Fatal("degenerate wall")
		}
		n := mgl32.Vec2{-d[1], d[0]}
		left := r.mesh.FlagsAt(geom.Axpy(mid, n, 1e-3))&navi.Walk != 0
		right := r.mesh.FlagsAt(geom.Axpy(mid, n, -1e-3))&navi.Walk != 0
		if left == right && r.mesh.Bounds().Min[0] < mid[0] && mid[0] < r.mesh.Bounds().Max[0] &&
			r.mesh.Bounds().Min[1] < mid[1] && mid[1] < r.mesh.Bounds().Max[1] {
			t.Errorf("wall %v: walkable on both or neither side", s)
		}
	}
}

// TestCellSpawnableArea: the spawnable area is kept per cell; the cells add up to the
// region's, and switching a blackout zone off changes only its cell, by at least the
// zone's disc (the mesh flags whole triangles, so often more).
func TestCellSpawnableArea(t *testing.T) {
	t.Parallel()
	g := quiet(t)
	r := g.Region(0)
	cellArea := func() []float32 {
		var out []float32
		for _, c := range g.World().Cells {
			if c.Region != r.ID() {
				continue
			}
			sa, ok := r.CellSpawnableArea(c.ID)
			if !ok {
				t.Fatalf("no cell %d", c.ID)
			}
			out = append(out, sa)
		}
		return out
	}
	before := cellArea()
	var sum float64
	for _, sa := range before {
		sum += float64(sa)
	}
	whole := float64(r.Mesh().SpawnableArea(geom.AABB{Min: mgl32.Vec2{0, 0}, Max: mgl32.Vec2{192, 192}}))
	if math.Abs(sum-whole) > 1e-4*whole {
		t.Fatalf("cells add up to %.2f m², the region has %.2f", sum, whole)
	}
	if _, ok := r.CellSpawnableArea(99); ok {
		t.Error("cell 99 reported")
	}
	// Marker 5: a zone of radius 6 around (100, 160), in cell 7 ([64, 128] × [128, 192]).
	if !r.setZone(5, false) {
		t.Fatal("no zone 5")
	}
	after := cellArea()
	for i, c := range g.World().Cells[:len(after)] { // the hub's cells come first
		d := float64(after[i] - before[i])
		switch {
		case c.ID == 7 && (d < 0.99*math.Pi*36 || d > 64*64):
			t.Errorf("cell 7 gained %.2f m² when zone 5 went off, want at least %.2f", d, math.Pi*36)
		case c.ID != 7 && d != 0:
			t.Errorf("cell %d changed by %.2f m²", c.ID, d)
		}
	}
}
