package headless

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/twinframe/twinframe/server/internal/gameserver"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
)

// The simulation invariants are checked on the server's own game every frame,
// through the gameserver's OnFrame hook (on the frame loop, after the step and
// the replication), and once more on the final state's xdump, which also checks
// that the dump the report writes rebuilds a valid game.

// frameChecker is the OnFrame hook: it runs sim CheckInvariants on the live game.
// The frame loop calls it; the driver takes its findings between frames.
type frameChecker struct {
	mu     sync.Mutex
	checks int
	spent  time.Duration // wall time in the hook since the last hookTime
	bad    []headlessViolation
	closed bool // the run is over: the loop, running free to shut down, is not checked
}

func (c *frameChecker) onFrame(v gameserver.FrameView) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	start := time.Now()
	c.checks++
	for _, g := range v.Games {
		c.bad = append(c.bad, invariantViolations(v.Frame, g.CheckInvariants())...)
	}
	c.spent += time.Since(start)
}

// hookTime returns the wall time spent in the hook since the last call: the
// driver takes it out of the server's frame time, which should not include the
// checks.
func (c *frameChecker) hookTime() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := c.spent
	c.spent = 0
	return d
}

// take returns the checks made and the violations found since the last call.
func (c *frameChecker) take() (int, []headlessViolation) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, bad := c.checks, c.bad
	c.checks, c.bad = 0, nil
	return n, bad
}

func (c *frameChecker) close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
}

// invariantNames name the invariants sim CheckInvariants checks, by a phrase of
// its message (sim reports them as one joined error of ErrInvariant-wrapped
// problems, without a kind).
var invariantNames = []struct{ phrase, name string }{
	{"out of order", "ids"},
	{"has a bad value", "finite"},
	{"in unknown region", "region"},
	{"outside walkable space", "walkable"},
	{"overlap by", "interpenetration"},
	{"outlives its range", "projectileRange"},
}

// invariantName names the invariant a CheckInvariants problem violates.
func invariantName(what string) string {
	for _, n := range invariantNames {
		if strings.Contains(what, n.phrase) {
			return n.name
		}
	}
	return "sim"
}

// invariantViolations turns CheckInvariants' error at frame f into violations,
// one per problem, each named.
func invariantViolations(f uint64, err error) []headlessViolation {
	if err == nil {
		return nil
	}
	var problems []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		problems = j.Unwrap()
	} else {
		problems = []error{err}
	}
	out := make([]headlessViolation, 0, len(problems))
	for _, p := range problems {
		what := p.Error()
		if !errors.Is(p, sim.ErrInvariant) {
			what = "not an invariant error: " + what
		}
		var id uint64
		if _, after, ok := strings.Cut(what, ": entity "); ok {
			fmt.Sscanf(after, "%d", &id)
		}
		out = append(out, headlessViolation{Frame: f, Check: "invariants", Invariant: invariantName(what), Entity: id, What: what})
	}
	return out
}

// checkInvariants runs sim CheckInvariants on the state in a deity's dump of the
// entity table: the default world's configuration with the dumped entities
// (projectiles, which have no prototype to build them from, left out; the check
// skips them anyway), one game per region.
func (h *headlessRun) checkInvariants(text string) {
	f := dumpFrame(text)
	h.rep.InvariantChecks++
	fail := func(what string) {
		h.rep.violate(headlessViolation{Frame: f, Check: "invariants", Invariant: "xdump", What: what})
	}
	w, err := world.LoadDefault()
	if err != nil {
		fail(err.Error())
		return
	}
	// The dump replaces the world's initial state: it lists every region's
	// entities, in id order, which interleaves them differently.
	w.Entities = w.Entities[:0]
	if err := w.Registry().Load("server.xdump", []byte(text)); err != nil {
		fail("the server's dump does not load: " + err.Error())
		return
	}
	n := 0
	for _, e := range w.Entities {
		if e.Prototype != sim.ProtoProjectile {
			w.Entities[n] = e
			n++
		}
	}
	all := w.Entities[:n]
	for _, r := range w.Regions {
		// sim.New takes a region's entities only from its own block of ids: the
		// travellers there (ids of the block they were created in) are spawned
		// into it where they stand, which fails, as the check should, where one
		// could not stand.
		first, last := sim.IDRange(r.ID)
		var own, travellers []world.Entity
		for _, e := range all {
			switch id := sim.EntityID(e.ID); {
			case e.Region != r.ID:
			case id >= first && id <= last:
				own = append(own, e)
			default:
				travellers = append(travellers, e)
			}
		}
		w.Entities = own
		g, err := sim.New(w, &sim.Options{Region: r.ID, NoPopulation: true})
		if err != nil {
			fail(fmt.Sprintf("the server's dump does not build region %s: %v", r.Name, err))
			return
		}
		for _, e := range travellers {
			if _, err := g.Spawn(e.Prototype, r.ID, e.Pos, e.Yaw); err != nil {
				h.rep.violate(headlessViolation{Frame: f, Check: "invariants", Invariant: "xdump", Entity: uint64(e.ID),
					What: fmt.Sprintf("the traveller does not stand where the dump has it in region %s: %v", r.Name, err)})
			}
		}
		for _, v := range invariantViolations(f, g.CheckInvariants()) {
			h.rep.violate(v)
		}
	}
}
