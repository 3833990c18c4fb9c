package headless

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/twinframe/twinframe/server/internal/cluster"
	"github.com/twinframe/twinframe/server/internal/gameserver"
	"github.com/twinframe/twinframe/shared/sim"
)

// clusterWatch holds the cluster run's checks that the nodes' OnFrame hooks make
// (cluster.go lists them) and what they found, until the driver takes it.
type clusterWatch struct {
	obs     *cluster.Node // the checker's member: PlayerOwner
	timeout time.Duration

	mu      sync.Mutex
	nodes   []*nodeWatch
	pending map[sim.EntityID]departure // avatars sent to another node, until they arrive
	entered map[sim.EntityID]time.Time // when each travelling avatar entered its portal
	latency []time.Duration            // portal entry → the client's region change
	holds   []time.Duration            // each rendezvous: first node in → all let go
	round   *meeting                   // the rendezvous under way
	closed  bool
	counts  watchCounts
}

// departure is what a source node packed of an avatar it sent away.
type departure struct {
	node      string
	from      int32
	emigrated []byte
}

// watchCounts are the checks made and the violations found since the last take.
type watchCounts struct {
	ownerChecks, nodeFrames, rendezvous, missed int
	handoffs, crossNode, compared               int
	latency, holds                              []time.Duration
	bad                                         []headlessViolation
}

// meeting is one rendezvous: every node's loop waits in its hook, the games it
// steps in games, until the driver has checked them all.
type meeting struct {
	games   map[string][]liveGame
	arrive  chan struct{}
	release chan struct{}
}

// liveGame is a game a node steps, as its hook saw it.
type liveGame struct {
	region int32
	g      *sim.Game
}

func newClusterWatch(obs *cluster.Node, timeout time.Duration) *clusterWatch {
	return &clusterWatch{obs: obs, timeout: timeout, pending: map[sim.EntityID]departure{}, entered: map[sim.EntityID]time.Time{}}
}

// node returns the watch of the node named name, made on first use.
func (w *clusterWatch) node(name string) *nodeWatch {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, n := range w.nodes {
		if n.name == name {
			return n
		}
	}
	n := &nodeWatch{name: name, w: w, avatars: map[sim.EntityID]watchedAvatar{}}
	w.nodes = append(w.nodes, n)
	return n
}

// arrived ends the latency of avatar's handoff: its client got the region change.
func (w *clusterWatch) arrived(avatar sim.EntityID, now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if t0, ok := w.entered[avatar]; ok {
		delete(w.entered, avatar)
		w.latency = append(w.latency, now.Sub(t0))
	}
}

// take returns the counts since the last call, with every latency so far.
func (w *clusterWatch) take() watchCounts {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.counts
	c.latency, c.holds = slices.Clone(w.latency), slices.Clone(w.holds)
	w.counts = watchCounts{}
	return c
}

// close ends the checks: the loops, running on to shut down, are not checked,
// and a rendezvous under way lets them go.
func (w *clusterWatch) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	if w.round != nil {
		close(w.round.release)
		w.round = nil
	}
}

// rendezvous holds every node's loop in its hook at once and checks the whole
// cluster at that instant: no entity id in two games, no player with two avatars.
// A node that does not come within the timeout makes the round a miss (counted,
// not a violation: a loaded machine may stall a loop).
func (w *clusterWatch) rendezvous() {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	n := len(w.nodes)
	m := &meeting{games: map[string][]liveGame{}, arrive: make(chan struct{}, n), release: make(chan struct{})}
	w.round = m
	w.mu.Unlock()
	deadline := time.NewTimer(w.timeout)
	defer deadline.Stop()
	var first time.Time
	for i := range n {
		select {
		case <-m.arrive:
			if i == 0 {
				first = time.Now()
			}
		case <-deadline.C:
			w.mu.Lock()
			if w.round == m {
				w.round = nil
				close(m.release)
			}
			w.counts.missed++
			w.mu.Unlock()
			return
		}
	}
	w.mu.Lock()
	if w.round != m { // closed meanwhile
		w.mu.Unlock()
		return
	}
	w.round = nil
	nodes := slices.Clone(w.nodes)
	w.mu.Unlock()
	bad := meetingViolations(nodes, m)
	close(m.release)
	w.mu.Lock()
	w.counts.rendezvous++
	w.counts.bad = append(w.counts.bad, bad...)
	w.holds = append(w.holds, time.Since(first))
	w.mu.Unlock()
}

// meetingViolations checks the games of every node, all held at one instant.
func meetingViolations(nodes []*nodeWatch, m *meeting) []headlessViolation {
	type place struct {
		node   string
		region int32
	}
	ids := map[sim.EntityID]place{}
	avatars := map[int32]place{} // player (sim owner) → where its avatar is
	var bad []headlessViolation
	for _, n := range nodes {
		for _, lg := range m.games[n.name] {
			here := place{n.name, lg.region}
			f := lg.g.Frame()
			for _, e := range lg.g.Entities() {
				if p, ok := ids[e.ID()]; ok {
					bad = append(bad, headlessViolation{Frame: f, Check: "ids", Entity: uint64(e.ID()),
						What: fmt.Sprintf("entity %d is in region %d on node %s and in region %d on node %s at the same instant", e.ID(), p.region, p.node, here.region, here.node)})
				}
				ids[e.ID()] = here
				if e.Prototype() != gameserver.AvatarPrototype || e.Owner() < 0 {
					continue
				}
				if p, ok := avatars[e.Owner()]; ok {
					bad = append(bad, headlessViolation{Frame: f, Check: "region", Entity: uint64(e.ID()),
						What: fmt.Sprintf("player %d has an avatar in region %d on node %s and another in region %d on node %s at the same instant", e.Owner(), p.region, p.node, here.region, here.node)})
				}
				avatars[e.Owner()] = here
			}
		}
	}
	return bad
}

// nodeWatch is one node's OnFrame hook.
type nodeWatch struct {
	name string
	w    *clusterWatch

	mu      sync.Mutex
	last    []uint64             // each game's frame at the last hook
	seen    bool                 // the hook ran before
	live    []int32              // the regions stepped at the last hook
	ring    [snapFrames]nodeSnap // the last hooks' snapshots, by hook count
	hooks   uint64
	avatars map[sim.EntityID]watchedAvatar // the avatars in the node's games at the last hook
}

// nodeSnap is what one hook saw of the games a node steps. The games' frames
// are their own: a region a node gained after it started counts from where it
// was gained (or saved), not from the node's first region.
type nodeSnap struct {
	regionSnap
	frames []uint64 // each game's frame, as regions
}

// at returns the snapshot in which region was at frame f, if the ring still has it.
func (n *nodeWatch) at(region int32, f uint64) (*nodeSnap, bool) {
	for i := range n.ring {
		s := &n.ring[i]
		if k := slices.Index(s.regions, region); k >= 0 && s.frames[k] == f {
			return s, true
		}
	}
	return nil, false
}

// steps reports whether the node stepped region at its last frame.
func (n *nodeWatch) steps(region int32) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Contains(n.live, region)
}

// liveGames returns the games v's node steps: those whose frame moved since the
// last hook (at the first, those at the hook's frame). A game the node holds but
// does not step (its region runs on another node) never moves.
func (n *nodeWatch) liveGames(v gameserver.FrameView) []liveGame {
	var out []liveGame
	for i, g := range v.Games {
		if i == len(n.last) {
			n.last = append(n.last, 0)
		}
		moved := g.Frame() != n.last[i] || (!n.seen && g.Frame() == v.Frame)
		n.last[i] = g.Frame()
		if moved {
			out = append(out, liveGame{region: g.Home().ID(), g: g})
		}
	}
	n.seen = true
	return out
}

func (n *nodeWatch) onFrame(v gameserver.FrameView) {
	n.w.mu.Lock()
	closed := n.w.closed
	n.w.mu.Unlock()
	if closed {
		return
	}
	n.mu.Lock()
	games := n.liveGames(v)
	bad := n.record(v.Frame, games)
	for _, lg := range games {
		bad = append(bad, invariantViolations(v.Frame, lg.g.CheckInvariants())...)
	}
	bad = append(bad, n.travel(v, games)...)
	n.mu.Unlock()
	bad = append(bad, n.ownership(v.Frame, games)...)

	w := n.w
	w.mu.Lock()
	w.counts.nodeFrames++
	w.counts.bad = append(w.counts.bad, bad...)
	m := w.round
	joined := m != nil && m.games[n.name] == nil
	if joined {
		m.games[n.name] = games
	}
	w.mu.Unlock()
	if joined {
		m.arrive <- struct{}{}
		select {
		case <-m.release:
		case <-time.After(w.timeout):
		}
	}
}

// record keeps the snapshot of the games the node steps at frame f (n.mu held),
// and returns the ids that are in two of them.
func (n *nodeWatch) record(f uint64, games []liveGame) []headlessViolation {
	n.live = n.live[:0]
	s := &n.ring[n.hooks%snapFrames]
	n.hooks++
	s.frame, s.regions, s.frames = f, s.regions[:0], s.frames[:0]
	s.ids = s.ids[:0]
	for _, lg := range games {
		n.live = append(n.live, lg.region)
		s.regions = append(s.regions, lg.region)
		s.frames = append(s.frames, lg.g.Frame())
		s.ids = append(s.ids, sortedIDs(lg.g, nil))
	}
	bad := duplicateIDs(f, &s.regionSnap)
	for i := range bad {
		bad[i].What = "node " + n.name + ": " + bad[i].What
	}
	return bad
}

// travel records the frame's handoffs and checks the avatars that arrived: from
// another node (a departure the watch holds), or from another region of this node
// (a handoff of this frame), their saved fields against what the source packed.
func (n *nodeWatch) travel(v gameserver.FrameView, games []liveGame) []headlessViolation {
	w := n.w
	now := time.Now()
	w.mu.Lock()
	for _, h := range v.Handoffs {
		w.counts.handoffs++
		w.entered[h.Entity] = now
		if h.Away {
			w.counts.crossNode++
			w.pending[h.Entity] = departure{node: n.name, from: h.From, emigrated: h.Emigrated}
		}
	}
	w.mu.Unlock()
	var bad []headlessViolation
	avatars := make(map[sim.EntityID]watchedAvatar, len(n.avatars))
	for _, lg := range games {
		for _, e := range lg.g.Entities() {
			if e.Prototype() != gameserver.AvatarPrototype || e.Owner() < 0 {
				continue
			}
			saved, err := readSaved(e)
			if err != nil {
				bad = append(bad, headlessViolation{Frame: v.Frame, Check: "handoff", Entity: uint64(e.ID()), What: err.Error()})
				continue
			}
			got := watchedAvatar{region: lg.region, saved: saved}
			avatars[e.ID()] = got
			was, seen := n.avatars[e.ID()]
			switch {
			case seen && was.region != lg.region:
				i := slices.IndexFunc(v.Handoffs, func(h gameserver.Handoff) bool { return h.Entity == e.ID() && !h.Away })
				if i < 0 {
					bad = append(bad, headlessViolation{Frame: v.Frame, Check: "handoff", Entity: uint64(e.ID()),
						What: fmt.Sprintf("node %s: moved from region %d to %d without a handoff", n.name, was.region, lg.region)})
					continue
				}
				bad = append(bad, arrivalViolations(v.Frame, e.ID(), v.Handoffs[i].From, v.Handoffs[i].Emigrated, got)...)
				w.mu.Lock()
				w.counts.compared++
				w.mu.Unlock()
			case !seen:
				w.mu.Lock()
				d, ok := w.pending[e.ID()]
				delete(w.pending, e.ID())
				if ok {
					w.counts.compared++
				}
				w.mu.Unlock()
				if ok {
					bad = append(bad, arrivalViolations(v.Frame, e.ID(), d.from, d.emigrated, got)...)
				}
			}
		}
	}
	n.avatars = avatars
	return bad
}

// ownership checks that the players bucket names this node as the owner of every
// player whose avatar is in a game it steps. The loop is in the hook, so the
// avatar cannot leave meanwhile; a handoff moves the record after the avatar left
// its source and before it enters its target, so no instant excuses a mismatch.
func (n *nodeWatch) ownership(f uint64, games []liveGame) []headlessViolation {
	var bad []headlessViolation
	checks := 0
	for _, lg := range games {
		for _, e := range lg.g.Entities() {
			if e.Prototype() != gameserver.AvatarPrototype || e.Owner() < 0 {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), n.w.timeout)
			owner, _, err := n.w.obs.PlayerOwner(ctx, playerKey(e.Owner()))
			cancel()
			checks++
			if err != nil || owner != n.name {
				what := fmt.Sprintf("player %d's avatar is in region %d on node %s, but the players bucket says %q", e.Owner(), lg.region, n.name, owner)
				if err != nil {
					what += ": " + err.Error()
				}
				bad = append(bad, headlessViolation{Frame: f, Check: "owner", Entity: uint64(e.ID()), What: what})
			}
		}
	}
	n.w.mu.Lock()
	n.w.counts.ownerChecks += checks
	n.w.mu.Unlock()
	return bad
}

// checkClient checks a bot's client at the newest frame it has (of its region's
// game), against this node's games when that game was at that frame: its avatar
// is in the client's region, and the client holds no entity of another region
// the node steps. It reports whether the node still had the frame to check; a
// region the node does not step has none.
func (n *nodeWatch) checkClient(b int, avatar uint64, region int32, frame uint64, held []uint64) (bool, []headlessViolation) {
	n.mu.Lock()
	defer n.mu.Unlock()
	s, ok := n.at(region, frame)
	if !ok || frame == 0 {
		return false, nil
	}
	var bad []headlessViolation
	if r, k := s.regionOf(sim.EntityID(avatar)); k != 1 || r != region {
		bad = append(bad, headlessViolation{Frame: frame, Check: "aoi-region", Bot: b, Entity: avatar,
			What: fmt.Sprintf("the client is in region %d on node %s, its avatar is in %d of the node's regions (region %d)", region, n.name, k, r)})
	}
	bad = append(bad, foreignHeld(&s.regionSnap, b, region, held)...)
	return true, bad
}
