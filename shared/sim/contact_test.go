package sim_test

import (
	"errors"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/debugdraw/debugdrawtest"
	"github.com/twinframe/twinframe/shared/geom"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
)

// emptyDefaultWorld returns a game of the default world's first region without its
// population.
func emptyDefaultWorld(t *testing.T) *sim.Game {
	t.Helper()
	w, err := world.LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	g, err := sim.New(w, &sim.Options{Seed: 1, NoPopulation: true})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func near2(a, b mgl32.Vec2, tol float32) bool { return geom.Dist(a, b) <= tol }

// checkContact checks what every explained contact must satisfy: it reproduces the
// hit physics recorded, the contact lies on the swept motion before its end, and the
// slide leads from the contact to where the entity ended.
func checkContact(t *testing.T, g *sim.Game, ev sim.Event) sim.Contact {
	t.Helper()
	c, err := g.ExplainContact(ev.A)
	if err != nil {
		t.Fatalf("frame %d: explaining %d → %d: %v", ev.Frame, ev.A, ev.B, err)
	}
	const tol = 1e-3
	if c.B != ev.B || !near2(c.Point, ev.Point, tol) || !near2(c.Normal, ev.Normal, tol) {
		// A mover that hit a wall and then an entity records the entity: the
		// recorded sweep is the last one.
		s, _ := g.Entity(ev.A).LastSweep()
		if ev.B != 0 || s.Other == 0 {
			t.Fatalf("frame %d: explained %d → %d at %v n=%v, physics recorded %d → %d at %v n=%v",
				ev.Frame, c.A, c.B, c.Point, c.Normal, ev.A, ev.B, ev.Point, ev.Normal)
		}
	}
	if c.TOI < 0 || c.TOI > 1 {
		t.Errorf("frame %d: %d: time of impact %v outside [0, 1]", ev.Frame, ev.A, c.TOI)
	}
	if !near2(geom.Add(c.At, c.Slide), c.End, tol) {
		t.Errorf("frame %d: %d: contact %v + slide %v != end %v", ev.Frame, ev.A, c.At, c.Slide, c.End)
	}
	if geom.Dist(c.Start, c.At) > geom.Len(c.Swept)+tol {
		t.Errorf("frame %d: %d: contact %v beyond the swept motion %v from %v", ev.Frame, ev.A, c.At, c.Swept, c.Start)
	}
	if c.B == 0 && (c.Hit < 0 || c.Hit >= len(c.Edges)) {
		t.Errorf("frame %d: %d hit a wall, but no tested edge (%d of %d) is the one hit", ev.Frame, ev.A, c.Hit, len(c.Edges))
	}
	return c
}

// Two dummies walk into each other: the contact is between them, the discs touch at
// the contact (their radii apart, less the skin), and B stood where it started.
func TestExplainContactPair(t *testing.T) {
	t.Parallel()
	g := emptyDefaultWorld(t)
	a, _ := g.Spawn(0, 0, mgl32.Vec2{64, 64}, 0)
	b, _ := g.Spawn(0, 0, mgl32.Vec2{70, 64}, 0)
	if _, err := g.MoveAlongPath(a, mgl32.Vec2{70, 64}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.MoveAlongPath(b, mgl32.Vec2{64, 64}); err != nil {
		t.Fatal(err)
	}
	var got *sim.Contact
	for range 100 {
		_ = g.Step()
		for _, ev := range g.Events() {
			if ev.Kind == sim.OnCollide && ev.A == a && ev.B == b {
				c := checkContact(t, g, ev)
				got = &c
			}
		}
		if got != nil {
			break
		}
	}
	if got == nil {
		t.Fatal("the dummies never collided")
	}
	gap := geom.Dist(got.At, got.BAt) - (got.RadiusA + got.RadiusB)
	if gap < -1e-3 || gap > 5*sim.Skin {
		t.Errorf("at the contact the discs are %v apart (want touching, within the skin)", gap)
	}
	if s, _ := g.Entity(b).LastSweep(); got.BAt != s.Start {
		t.Errorf("b (higher id) stood at %v when a swept, want its sweep's start %v", got.BAt, s.Start)
	}
	var rec debugdrawtest.Recorder
	sim.DebugDrawContact(&rec, got)
	if rec.Count(debugdrawtest.Circle) != 4 {
		t.Errorf("drew %d circles, want 4 (start, contact, end, the other)", rec.Count(debugdrawtest.Circle))
	}
}

// Every collision of the default world's crowd over 20 s is explained as physics
// recorded it: against walls and against other entities.
func TestExplainContactDefaultWorld(t *testing.T) {
	t.Parallel()
	w, err := world.LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	for _, reg := range w.Regions {
		g, err := sim.New(w, &sim.Options{Seed: 7, Region: reg.ID})
		if err != nil {
			t.Fatal(err)
		}
		walls, pairs := 0, 0
		for range 400 {
			_ = g.Step()
			for _, ev := range g.Events() {
				if ev.Kind != sim.OnCollide {
					continue
				}
				checkContact(t, g, ev)
				if ev.B == 0 {
					walls++
				} else {
					pairs++
				}
			}
		}
		t.Logf("%s: %d wall and %d entity contacts explained", reg.Name, walls, pairs)
	}
	g, _ := sim.New(w, &sim.Options{NoPopulation: true})
	if _, err := g.ExplainContact(12345); !errors.Is(err, sim.ErrNoEntity) {
		t.Errorf("explaining a missing entity: %v, want ErrNoEntity", err)
	}
	id, _ := g.Spawn(0, 0, mgl32.Vec2{64, 64}, 0)
	_ = g.Step()
	if _, err := g.ExplainContact(id); !errors.Is(err, sim.ErrNoContact) {
		t.Errorf("explaining an entity standing still: %v, want ErrNoContact", err)
	}
}

// A dummy walks straight at the region's edge: the contact is a wall, one of the
// tested edges is the one hit, and the slide runs along it (perpendicular to the normal).
func TestExplainContactWall(t *testing.T) {
	t.Parallel()
	g := emptyDefaultWorld(t)
	a, _ := g.Spawn(0, 0, mgl32.Vec2{64, 64}, 0)
	if err := g.MoveTo(a, mgl32.Vec2{64, -50}); err != nil {
		t.Fatal(err)
	}
	for range 400 {
		_ = g.Step()
		for _, ev := range g.Events() {
			if ev.Kind == sim.OnCollide && ev.A == a {
				c := checkContact(t, g, ev)
				if c.B != 0 {
					t.Fatalf("hit entity %d, want a wall", c.B)
				}
				if d := geom.Dot(c.Slide, c.Normal); d > 1e-3 || d < -1e-3 {
					t.Errorf("the slide %v is not along the wall (normal %v)", c.Slide, c.Normal)
				}
				e := c.Edges[c.Hit]
				if q, _ := geom.ClosestPointOnSegment(c.Point, e); !near2(q, c.Point, 1e-3) {
					t.Errorf("the hit point %v is not on the edge hit %v", c.Point, e)
				}
				return
			}
		}
	}
	t.Fatal("the dummy never reached a wall")
}
