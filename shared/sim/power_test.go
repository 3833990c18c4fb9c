package sim

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/twinframe/twinframe/shared/archive"
	"math"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/world"
)

// openConfig is a 200 m square of open ground: bolts fired from its centre never meet
// a wall. Prototype 1, a turret, collides with nothing, so that any number of them
// stand on the same spot and no bolt hits one.
const openConfig = `
config region
id name   min(0) min(1) max(0) max(1)
 0 "open" 0      0      200    200
/config
config cell
id region min(0) min(1) size(0) size(1) seed
 0 open   0      0      200     200     1
/config
config area
id name    region min(0) min(1) max(0) max(1)
 0 "field" open   0      0      200    200
/config
config polygon
id name     area  kind
 0 "ground" field walkable
/config
config vertex
polygon seq pos(0) pos(1)
ground  0   0      0
ground  1   200    0
ground  2   200    200
ground  3   0      200
/config
config prototype
id name      radius speed collision flags    footprint
 0 "avatar"  0.5    6     blocking  (player) -1
 1 "turret"  0.3    0     none      (npc)    -1
/config
`

// openGame returns a game of the open world whose bolt has the given cooldown (0: no
// power table, the default).
func openGame(t testing.TB, cooldown int) *Game {
	t.Helper()
	files := fstest.MapFS{"10-open.config": {Data: []byte(openConfig)}}
	if cooldown != 0 {
		files["20-power.config"] = &fstest.MapFile{Data: fmt.Appendf(nil, "config power\nid name cooldown\n1 \"bolt\" %d\n/config\n", cooldown)}
	}
	w, err := world.Load(files)
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(w, &Options{Seed: 1, NoPopulation: true})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func countProjectiles(g *Game) int {
	n := 0
	for _, e := range g.Entities() {
		if e.Prototype() == ProtoProjectile {
			n++
		}
	}
	return n
}

// TestBoltFlightFrames: the frames a bolt flies are a whole number computed from its
// range and speed, at least enough to fly the whole range.
func TestBoltFlightFrames(t *testing.T) {
	t.Parallel()
	if got := BoltFlightFrames; got != 15 {
		t.Errorf("BoltFlightFrames %d, want 15 (30 m at 2 m a frame)", got)
	}
	cases := []struct {
		rng, speed float32
		want       uint64
	}{
		{30, 40, 15}, {30.0001, 40, 16}, {1, 40, 1}, {0.1, 1000, 1}, {10, 3, 67}, {0, 40, 1}, {5, 0, 1},
	}
	for _, c := range cases {
		if got := flightFrames(c.rng, c.speed); got != c.want {
			t.Errorf("flightFrames(%g, %g) = %d, want %d", c.rng, c.speed, got, c.want)
		}
		if c.speed > 0 && c.rng > 0 {
			if flown := float64(c.want) * float64(c.speed) * float64(FrameSeconds); flown < float64(c.rng)*(1-1e-6) {
				t.Errorf("flightFrames(%g, %g): %d frames fly only %g m", c.rng, c.speed, c.want, flown)
			}
		}
	}
}

// TestBoltsThatMissDie fires 360 bolts in a circle on open ground (each from its own
// turret, all on one spot) and checks that every one is gone within range/speed + 1
// frames of the fire, whatever is done to it in flight: stopped, teleported back,
// slowed, sped up or frozen by a locomotion update.
func TestBoltsThatMissDie(t *testing.T) {
	t.Parallel()
	centre := mgl32.Vec2{100, 100}
	cases := []struct {
		name   string
		meddle func(g *Game, bolt EntityID) // at the third frame of flight
	}{
		{"untouched", func(*Game, EntityID) {}},
		{"speed 0", func(g *Game, b EntityID) { _ = g.SetSpeed(b, 0) }},
		{"slowed", func(g *Game, b EntityID) { _ = g.SetSpeed(b, 1) }},
		{"sped up", func(g *Game, b EntityID) { _ = g.SetSpeed(b, MaxSpeed) }},
		{"stopped", func(g *Game, b EntityID) { _ = g.Stop(b) }},
		{"teleported back", func(g *Game, b EntityID) { _ = g.Teleport(b, centre) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := openGame(t, 0)
			const n = 360
			for i := range n {
				tur := spawn(t, g, 1, centre)
				a := float64(i) * 2 * math.Pi / n
				at := centre.Add(mgl32.Vec2{float32(10 * math.Cos(a)), float32(10 * math.Sin(a))})
				must(t, g.Enqueue(Input{Entity: tur, Command: CmdFire, Point: at}))
			}
			fired := g.Frame() + 1
			limit := fired + BoltFlightFrames + 1
			for g.Frame() < limit {
				run(t, g, 1)
				if g.Frame() == fired {
					if rej := g.Rejected(); len(rej) != 0 {
						t.Fatalf("rejected %d fires: %v", len(rej), rej[0].Err)
					}
					if got := countProjectiles(g); got != n {
						t.Fatalf("%d bolts after the fire, want %d", got, n)
					}
				}
				if g.Frame() == fired+2 {
					for _, e := range g.Entities() {
						if e.Prototype() == ProtoProjectile {
							tc.meddle(g, e.ID())
						}
					}
				}
				if len(g.PowerResults()) != 0 {
					t.Fatalf("frame %d: a bolt hit something on open ground: %+v", g.Frame(), g.PowerResults()[0])
				}
			}
			if got := countProjectiles(g); got != 0 {
				t.Errorf("%d of %d bolts alive %d frames after the fire", got, n, g.Frame()-fired+1)
			}
		})
	}
}

// TestBoltFliesItsWholeRange: an undisturbed bolt is alive for exactly its flight
// frames and dies where its range ends.
func TestBoltFliesItsWholeRange(t *testing.T) {
	t.Parallel()
	g := openGame(t, 0)
	av := spawn(t, g, 0, mgl32.Vec2{100, 100})
	bolt, err := g.Fire(av, mgl32.Vec2{150, 100})
	if err != nil {
		t.Fatal(err)
	}
	start := g.Entity(bolt).Pos()
	var last mgl32.Vec2
	frames := uint64(0)
	for g.Entity(bolt) != nil {
		last = g.Entity(bolt).Pos()
		run(t, g, 1)
		frames++
		if frames > 2*BoltFlightFrames {
			t.Fatal("the bolt never died")
		}
	}
	if frames != BoltFlightFrames {
		t.Errorf("the bolt lived %d frames, want %d", frames, BoltFlightFrames)
	}
	// Its last frame starts within one step of the range's end.
	if d := last.Sub(start).Len(); d < BoltRange-BoltSpeed*FrameSeconds-1e-3 || d > BoltRange {
		t.Errorf("the bolt's last frame started %g m from where it was fired", d)
	}
}

// TestFireCooldown: an entity that fires every frame (and twice in some frames) gets
// one bolt per cooldown, exactly cooldown frames apart; the other fires are rejected
// with ErrCooldown through Rejected.
func TestFireCooldown(t *testing.T) {
	t.Parallel()
	cases := []struct {
		cooldown int
		want     uint64
	}{
		{0, world.DefaultFireCooldown}, {1, 1}, {3, 3}, {7, 7}, {world.MaxFireCooldown, world.MaxFireCooldown},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.cooldown), func(t *testing.T) {
			t.Parallel()
			g := openGame(t, tc.cooldown)
			av := spawn(t, g, 0, mgl32.Vec2{100, 100})
			var fired []uint64
			rejected := 0
			frames := 3*tc.want + 1
			for f := range frames {
				n := 1 + int(f%2)
				for range n {
					must(t, g.Enqueue(Input{Entity: av, Command: CmdFire, Point: mgl32.Vec2{100, 150}}))
				}
				if err := g.Step(); err != nil {
					t.Fatal(err)
				}
				for _, r := range g.Rejected() {
					if !errors.Is(r.Err, ErrCooldown) {
						t.Fatalf("frame %d: rejected with %v, want ErrCooldown", g.Frame(), r.Err)
					}
				}
				rejected += len(g.Rejected())
				switch n - len(g.Rejected()) {
				case 0:
				case 1:
					fired = append(fired, g.Frame())
				default:
					t.Fatalf("frame %d: %d fires accepted", g.Frame(), n-len(g.Rejected()))
				}
				if got, want := countProjectiles(g), min(len(fired), int((BoltFlightFrames+tc.want-1)/tc.want)); got > want {
					t.Fatalf("frame %d: %d bolts in the air, want at most %d", g.Frame(), got, want)
				}
			}
			if len(fired) != 4 {
				t.Fatalf("bolts fired at frames %v in %d frames, want 4", fired, frames)
			}
			for i := 1; i < len(fired); i++ {
				if d := fired[i] - fired[i-1]; d != tc.want {
					t.Errorf("bolts at frames %v: %d apart, want %d", fired, d, tc.want)
				}
			}
			inputs := int(frames + frames/2)
			if rejected != inputs-len(fired) {
				t.Errorf("%d fires rejected of %d inputs, %d bolts", rejected, inputs, len(fired))
			}
		})
	}
}

// TestCooldownSurvivesSnapshots: the cooldown is simulation state: a game restored
// from a snapshot taken during it rejects the same fire.
func TestCooldownSurvivesSnapshots(t *testing.T) {
	t.Parallel()
	g := openGame(t, 10)
	av := spawn(t, g, 0, mgl32.Vec2{100, 100})
	must(t, g.Enqueue(Input{Entity: av, Command: CmdFire, Point: mgl32.Vec2{100, 150}}))
	run(t, g, 3)
	snap, err := g.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	h, err := Restore(g.World(), snap, &Options{Seed: 1, NoPopulation: true})
	if err != nil {
		t.Fatal(err)
	}
	if h.StateHash() != g.StateHash() {
		t.Fatal("restored game differs")
	}
	for _, x := range []*Game{g, h} {
		if _, err := x.Fire(av, mgl32.Vec2{150, 100}); !errors.Is(err, ErrCooldown) {
			t.Errorf("fire during the cooldown: %v, want ErrCooldown", err)
		}
	}
}

// TestProjectilesCannotFire: a bolt is no shooter.
func TestProjectilesCannotFire(t *testing.T) {
	t.Parallel()
	g := openGame(t, 0)
	av := spawn(t, g, 0, mgl32.Vec2{100, 100})
	bolt, err := g.Fire(av, mgl32.Vec2{150, 100})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Fire(bolt, mgl32.Vec2{100, 150}); !errors.Is(err, ErrCannotFire) {
		t.Errorf("a bolt fired: %v", err)
	}
}

// migrateAtFrame moves g into a new game of the same world through a Migration
// archive of its state, with the frame counter set to frame (g's frame and frame
// both below 128, one byte each in the archive).
func migrateAtFrame(t *testing.T, g *Game, frame uint64) *Game {
	t.Helper()
	header := func(f uint64) []byte {
		p := archive.NewPacker(archive.Migration, archive.AllChannels)
		p.TransferUint64(&f)
		return p.Bytes()
	}
	p := archive.NewPacker(archive.Migration, archive.AllChannels)
	p.TransferObject(g)
	data, old, now := p.Bytes(), header(g.Frame()), header(frame)
	if !bytes.HasPrefix(data, old) || len(old) != len(now) {
		t.Fatalf("the archive does not start with frame %d as %x", g.Frame(), old)
	}
	data = append(now, data[len(old):]...)
	h, err := New(g.World(), &Options{Seed: 1, NoPopulation: true})
	if err != nil {
		t.Fatal(err)
	}
	u, err := archive.NewUnpacker(archive.Migration, data)
	if err != nil {
		t.Fatal(err)
	}
	u.TransferObject(h)
	if err := u.Done(); err != nil {
		t.Fatal(err)
	}
	return h
}

// TestProjectileRangeInvariant: CheckInvariants reports a bolt alive past the end of
// its flight, or with a flight longer than its range, and nothing for bolts in flight.
func TestProjectileRangeInvariant(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		state func(t *testing.T, g *Game, bolt EntityID) *Game
		bad   bool
	}{
		{"in flight", func(t *testing.T, g *Game, _ EntityID) *Game { return migrateAtFrame(t, g, g.Frame()) }, false},
		// Fired in frame 1, it flies frames 1..BoltFlightFrames.
		{"its last frame ahead", func(t *testing.T, g *Game, _ EntityID) *Game {
			return migrateAtFrame(t, g, BoltFlightFrames-1)
		}, false},
		{"its last frame over", func(t *testing.T, g *Game, _ EntityID) *Game {
			return migrateAtFrame(t, g, BoltFlightFrames)
		}, true},
		{"long past", func(t *testing.T, g *Game, _ EntityID) *Game { return migrateAtFrame(t, g, 100) }, true},
		{"range stretched", func(t *testing.T, g *Game, bolt EntityID) *Game {
			g.Entity(bolt).power.end += 2 // one frame is the slack of a fire between steps
			return g
		}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := openGame(t, 0)
			av := spawn(t, g, 0, mgl32.Vec2{100, 100})
			must(t, g.Enqueue(Input{Entity: av, Command: CmdFire, Point: mgl32.Vec2{150, 100}}))
			run(t, g, 2)
			bolt := g.Entities()[len(g.Entities())-1].ID()
			if g.Entity(bolt).Prototype() != ProtoProjectile {
				t.Fatal("no bolt")
			}
			h := tc.state(t, g, bolt)
			err := h.CheckInvariants()
			if got := err != nil && strings.Contains(err.Error(), fmt.Sprintf("entity %d (projectile created at frame 1) outlives its range", bolt)); got != tc.bad || (err != nil) != tc.bad {
				t.Fatalf("CheckInvariants at frame %d: %v; want a range violation: %v", h.Frame(), err, tc.bad)
			}
			if tc.bad && !errors.Is(err, ErrInvariant) {
				t.Errorf("%v does not wrap ErrInvariant", err)
			}
			// The next step ends a flight that is over.
			if tc.name != "range stretched" {
				must(t, h.Step())
				must(t, h.CheckInvariants())
			}
		})
	}
}
