package headless

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/client"
	"github.com/twinframe/twinframe/client/bot"
	"github.com/twinframe/twinframe/server/internal/gameserver"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
)

// Travel in the headless run. A bot's goal choices are the bot package's (a
// random point of its region); the driver adds its own, seeded per bot: about as
// often as the bot chooses a goal, with chance -travel, the bot walks to the
// centre of a portal of the region it is in (the world's transition table) and
// plays nothing else until it is in another region or gives up (travelGiveUp).
// The server hands it off when it enters the portal (gameserver regions.go).
//
// Every frame the OnFrame hook (regionWatch) records each region's entity ids and
// each player's avatar, and checks that no id is in two games, that no player has
// avatars in two, and that an avatar that changed region kept its saved fields;
// the driver checks that every bot's avatar is in exactly one game, and that what
// a client holds is of its own region (the AOI across region changes).

// travelEvery is the mean number of frames between a bot's travel decisions: the
// bot package's default MoveEvery, so that a decision comes about once per goal.
const travelEvery = 40

// travelGiveUp is how many frames a bot walks towards a portal before it goes back
// to its random goals (a portal it cannot reach, a path pushed off by a crowd).
const travelGiveUp = 600

// portalGoal is where a bot walks to take a portal.
type portalGoal struct {
	name string
	at   mgl32.Vec2 // the disc's centre or the polygon's centroid
}

// portalGoals returns the portals of each region of w, by region id, in the
// transition table's order.
func portalGoals(w *world.World) map[int32][]portalGoal {
	out := map[int32][]portalGoal{}
	for i := range w.Transitions {
		t := &w.Transitions[i]
		from := int32(-1)
		for _, a := range w.Areas {
			if a.ID == t.Area {
				from = a.Region
			}
		}
		at := t.Pos
		if ring := w.PortalRing(t); len(ring) > 0 {
			at = mgl32.Vec2{}
			for _, p := range ring {
				at = at.Add(p)
			}
			at = at.Mul(1 / float32(len(ring)))
		}
		out[from] = append(out[from], portalGoal{name: t.Name, at: at})
	}
	return out
}

// traveller is the driver's part of a bot's play: its travel decisions.
type traveller struct {
	rng     *rand.Rand
	frame   int // frames played
	next    int // frame of the next decision
	heading bool
	from    int32 // the region it set out from
	until   int   // frame it gives up
}

func newTraveller(seed uint64) traveller {
	t := traveller{rng: rand.New(rand.NewPCG(seed, 0x74726176))} // "trav"
	t.next = 1 + t.rng.IntN(travelEvery)
	return t
}

// clientRegion returns the region the client's replica is in, once it is ready.
func clientRegion(c *client.Client) (region int32, ok bool) {
	c.With(func(r *replica.Replica) { region, ok = r.RegionID(), r.Ready() && r.Game() != nil })
	return region, ok
}

// play runs one frame of bot b: its bot's Step, or, while it heads for a portal,
// only the client's Update; then, when a decision is due, perhaps a walk to a
// portal.
func (h *headlessRun) play(b *headlessBot) error {
	walked, err := b.trv.play(b.c, b.b, h.cfg.travel, h.portals)
	if walked {
		h.rep.Travel.Walks++
	}
	return err
}

// play runs one frame of a bot's play (headlessRun.play): walked says it set out
// for a portal in this frame. The lockstep run and the cluster run share it.
func (t *traveller) play(c *client.Client, b *bot.Bot, travel float64, portals map[int32][]portalGoal) (walked bool, err error) {
	t.frame++
	region, ok := clientRegion(c)
	if t.heading && (!ok || region != t.from || t.frame >= t.until) {
		t.heading = false
	}
	if travel <= 0 || t.frame < t.next || t.heading || !ok {
		if t.heading {
			return false, c.Update()
		}
		return false, b.Step()
	}
	t.next = t.frame + 1 + t.rng.IntN(2*travelEvery)
	goals := portals[region]
	if t.rng.Float64() >= travel || len(goals) == 0 {
		return false, b.Step()
	}
	g := goals[t.rng.IntN(len(goals))]
	t.heading, t.from, t.until = true, region, t.frame+travelGiveUp
	if err := c.Update(); err != nil {
		return false, err
	}
	return true, c.MoveTo(g.at)
}

// snapFrames is how many frames of region snapshots the watch keeps: a client
// with latency is this many frames behind at most before its check is skipped.
const snapFrames = 64

// regionSnap is what the hook saw of the games in one frame.
type regionSnap struct {
	frame   uint64
	regions []int32          // each game's region
	ids     [][]sim.EntityID // each game's live entity ids, ascending
}

// regionOf returns the region of the game holding id, and how many games do.
func (s *regionSnap) regionOf(id sim.EntityID) (region int32, n int) {
	for i, ids := range s.ids {
		if _, ok := slices.BinarySearch(ids, id); ok {
			region = s.regions[i]
			n++
		}
	}
	return region, n
}

// watchedAvatar is a player's avatar as the hook saw it in the last frame.
type watchedAvatar struct {
	region int32
	saved  savedAvatar
}

// regionWatch is the OnFrame hook of the travel checks.
type regionWatch struct {
	mu       sync.Mutex
	ring     [snapFrames]regionSnap
	avatars  map[sim.EntityID]watchedAvatar
	idChecks int // frames checked for ids in two games
	handoffs int // avatars seen in another region than in the frame before, their saves compared
	bad      []headlessViolation
	closed   bool
}

func (w *regionWatch) onFrame(v gameserver.FrameView) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	s := &w.ring[v.Frame%snapFrames]
	s.frame = v.Frame
	s.regions = s.regions[:0]
	for i, g := range v.Games {
		if i == len(s.ids) {
			s.ids = append(s.ids, nil)
		}
		ids := s.ids[i][:0]
		for _, e := range g.Entities() {
			ids = append(ids, e.ID())
		}
		s.ids[i] = ids
		s.regions = append(s.regions, g.Home().ID())
	}
	s.ids = s.ids[:len(v.Games)]
	w.bad = append(w.bad, duplicateIDs(v.Frame, s)...)
	w.idChecks++
	now := make(map[sim.EntityID]watchedAvatar, len(w.avatars))
	owners := map[int32]int32{} // owner → the region of its first avatar
	for _, g := range v.Games {
		for _, e := range g.Entities() {
			if e.Prototype() != gameserver.AvatarPrototype || e.Owner() < 0 {
				continue
			}
			region := g.Home().ID()
			if r, ok := owners[e.Owner()]; ok {
				w.bad = append(w.bad, headlessViolation{Frame: v.Frame, Check: "region", Entity: uint64(e.ID()),
					What: fmt.Sprintf("player %d has an avatar in region %d and another in region %d", e.Owner(), r, region)})
			}
			owners[e.Owner()] = region
			saved, err := readSaved(e)
			if err != nil {
				w.bad = append(w.bad, headlessViolation{Frame: v.Frame, Check: "handoff", Entity: uint64(e.ID()), What: err.Error()})
				continue
			}
			now[e.ID()] = watchedAvatar{region: region, saved: saved}
			if was, ok := w.avatars[e.ID()]; ok && was.region != region {
				w.bad = append(w.bad, w.handedOff(v, e.ID(), was, watchedAvatar{region, saved})...)
			}
		}
	}
	w.avatars = now
}

// handedOff checks an avatar seen in another region than in the last frame: it
// must have travelled by a handoff of this frame, and kept what its source game
// packed when it left, bit for bit.
func (w *regionWatch) handedOff(v gameserver.FrameView, id sim.EntityID, was, now watchedAvatar) []headlessViolation {
	i := slices.IndexFunc(v.Handoffs, func(h gameserver.Handoff) bool { return h.Entity == id })
	if i < 0 {
		return []headlessViolation{{Frame: v.Frame, Check: "handoff", Entity: uint64(id),
			What: fmt.Sprintf("moved from region %d to %d without a handoff", was.region, now.region)}}
	}
	h := v.Handoffs[i]
	w.handoffs++
	return arrivalViolations(v.Frame, id, h.From, h.Emigrated, now)
}

// arrivalViolations compares an avatar that arrived in a region with what its
// source game (region from) packed when it left.
func arrivalViolations(f uint64, id sim.EntityID, from int32, emigrated []byte, now watchedAvatar) []headlessViolation {
	before, err := readEmigrated(emigrated)
	if err != nil {
		return []headlessViolation{{Frame: f, Check: "handoff", Entity: uint64(id), What: err.Error()}}
	}
	return handoffViolations(f, id, watchedAvatar{region: from, saved: before}, now)
}

// duplicateIDs returns a violation for each id held by more than one game.
func duplicateIDs(f uint64, s *regionSnap) []headlessViolation {
	var out []headlessViolation
	for i, ids := range s.ids {
		for _, id := range ids {
			for j := i + 1; j < len(s.ids); j++ {
				if _, ok := slices.BinarySearch(s.ids[j], id); ok {
					out = append(out, headlessViolation{Frame: f, Check: "ids", Entity: uint64(id),
						What: fmt.Sprintf("entity %d is in region %d and in region %d", id, s.regions[i], s.regions[j])})
				}
			}
		}
	}
	return out
}

// handoffViolations compares an avatar's saves before and after it changed region.
func handoffViolations(f uint64, id sim.EntityID, before, after watchedAvatar) []headlessViolation {
	if sameKept(before.saved, after.saved) && after.saved.Region == after.region {
		return nil
	}
	return []headlessViolation{{Frame: f, Check: "handoff", Entity: uint64(id),
		What: fmt.Sprintf("the handoff from region %d to %d changed saved fields it must keep: before %+v, after %+v",
			before.region, after.region, before.saved.kept(), after.saved.kept())}}
}

// take returns the frames checked, the handoffs compared and the violations since
// the last call.
func (w *regionWatch) take() (ids, handoffs int, bad []headlessViolation) {
	w.mu.Lock()
	defer w.mu.Unlock()
	ids, handoffs, bad = w.idChecks, w.handoffs, w.bad
	w.idChecks, w.handoffs, w.bad = 0, 0, nil
	return ids, handoffs, bad
}

func (w *regionWatch) close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
}

// snap returns a copy-free view of the snapshot of frame f, if the ring still has
// it; the caller holds it only while the loop does not run (between frames).
func (w *regionWatch) snap(f uint64) (*regionSnap, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := &w.ring[f%snapFrames]
	return s, s.frame == f && f != 0
}

// playerRegion checks that player is in exactly one game of s and returns its
// region.
func playerRegion(s *regionSnap, bot int, player uint64) (int32, *headlessViolation) {
	region, n := s.regionOf(sim.EntityID(player))
	if n == 1 {
		return region, nil
	}
	return 0, &headlessViolation{Frame: s.frame, Check: "region", Bot: bot, Entity: player,
		What: fmt.Sprintf("the player's avatar is in %d regions (exactly one at every frame)", n)}
}

// foreignHeld returns the entities a client in region holds that are in another
// region's game in s.
func foreignHeld(s *regionSnap, bot int, region int32, held []uint64) []headlessViolation {
	var out []headlessViolation
	for _, id := range held {
		if r, n := s.regionOf(sim.EntityID(id)); n > 0 && r != region {
			out = append(out, headlessViolation{Frame: s.frame, Check: "aoi-region", Bot: bot, Entity: id,
				What: fmt.Sprintf("a client in region %d holds an entity of region %d", region, r)})
		}
	}
	return out
}

// checkRegions runs the driver's travel checks of every bot at server frame f:
// its avatar in exactly one region at f, and, at the newest frame its client
// has, the client in its avatar's region holding nothing of another.
func (h *headlessRun) checkRegions(f uint64) {
	tr := &h.rep.Travel
	ids, handoffs, bad := h.regions.take()
	tr.IDChecks += ids
	tr.Handoffs += handoffs
	for _, v := range bad {
		h.rep.violate(v)
	}
	s, ok := h.regions.snap(f)
	if !ok {
		return
	}
	for _, b := range h.bots {
		player := b.b.Report().Player
		region, bad := playerRegion(s, b.n, player)
		tr.RegionChecks++
		if bad != nil {
			h.rep.violate(*bad)
			continue
		}
		h.regionFrames[region]++
		// At the newest frame the client has (with latency, behind f), ready or
		// not: a client that failed to follow a region change still holds what it
		// held.
		var held []uint64
		var cr int32
		var cf uint64
		b.c.With(func(r *replica.Replica) { held, cr, cf = r.IDs(nil), r.RegionID(), r.ServerFrame() })
		cs, ok := h.regions.snap(cf)
		if !ok {
			continue
		}
		tr.AOIChecks++
		if pr, bad := playerRegion(cs, b.n, player); bad == nil && pr != cr {
			h.rep.violate(headlessViolation{Frame: cf, Check: "aoi-region", Bot: b.n, Entity: player,
				What: fmt.Sprintf("the client is in region %d, its avatar in region %d", cr, pr)})
		}
		for _, v := range foreignHeld(cs, b.n, cr, held) {
			h.rep.violate(v)
		}
	}
}
