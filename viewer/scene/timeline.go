package scene

import (
	"fmt"
	"slices"
	"sync"

	"github.com/twinframe/twinframe/shared/sim"
)

// Kinds of timeline rows.
const (
	KindCollide      = "collide"       // A ran into B (0: a wall) at Point with Normal
	KindOverlapBegin = "overlap-begin" // A and B began to overlap
	KindOverlapEnd   = "overlap-end"   // A and B stopped overlapping
	KindPower        = "power"         // A's bolt hit B (0: a wall) at Point; Value: damage
	KindCorrection   = "correction"    // the prediction of A was rewound; Value: how far off
	KindRegion       = "region"        // A travelled; Value: "from → to"
	KindRepeat       = "repeat"        // A and B have collided for Repeat frames (repeatRule)
)

// Origins of timeline rows.
const (
	OriginLocal  = "local"  // the sandbox's own simulation
	OriginServer = "server" // the server's simulation, over the deity stream
	OriginClient = "client" // the networked client (its prediction, its region changes)
)

// TimelineRow is one event of the timeline. Rows are numbered in the order they were
// added; a row's Index stays its own while the timeline drops older rows.
type TimelineRow struct {
	Index  int        `json:"index"`
	Frame  uint64     `json:"frame"`
	Kind   string     `json:"kind"`
	A      uint64     `json:"a"`
	B      uint64     `json:"b"`
	Point  [2]float32 `json:"point"`
	Normal [2]float32 `json:"normal"`
	Value  string     `json:"value"`
	Origin string     `json:"origin"`
	// Repeat is, on a collide or repeat row, the length in frames of the pair's contact
	// streak when it is at least repeatMinFrames (flagged), else 0.
	Repeat int `json:"repeat"`
	// contact is, on a collide row of the server's, the server's explanation of its
	// mover's contact, streamed with the event; why says why there is none.
	contact *sim.Contact
	why     string
}

// Has reports whether entity id is one of the row's entities.
func (r *TimelineRow) Has(id uint64) bool { return id != 0 && (r.A == id || r.B == id) }

// TimelineFilter selects rows: with entity Entity (0: any) and of one of Kinds (none:
// any).
type TimelineFilter struct {
	Entity uint64
	Kinds  []string
}

func (f *TimelineFilter) match(r *TimelineRow) bool {
	return (f.Entity == 0 || r.Has(f.Entity)) && (len(f.Kinds) == 0 || slices.Contains(f.Kinds, r.Kind))
}

// timelineSize is how many rows a timeline keeps; when full it drops its older half.
const timelineSize = 8000

// timeline is a source's event timeline. A source appends on the viewer's goroutine;
// the page reads it through View from its own callbacks, hence the lock.
type timeline struct {
	mu     sync.Mutex
	rows   []TimelineRow
	next   int    // the Index of the next row
	until  uint64 // the last frame recorded: a replay of earlier frames adds nothing
	repeat repeatRule
}

// covered reports whether frame was recorded already (a replay after a seek steps
// through frames the timeline has).
func (t *timeline) covered(frame uint64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return frame <= t.until
}

// add appends r (Index and, for collisions, Repeat set here) at r.Frame, and a repeat
// row when the collision makes its pair's streak reach the threshold.
func (t *timeline) add(r TimelineRow) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.addLocked(r)
}

func (t *timeline) addLocked(r TimelineRow) {
	t.until = max(t.until, r.Frame)
	if r.Kind == KindCollide && r.B != 0 {
		n, crossed := t.repeat.observe(r.Frame, r.A, r.B)
		if n >= repeatMinFrames {
			r.Repeat = n
		}
		if crossed {
			a, b := min(r.A, r.B), max(r.A, r.B)
			t.push(TimelineRow{Frame: r.Frame, Kind: KindRepeat, A: a, B: b, Origin: r.Origin, Repeat: n,
				Point: r.Point, Normal: r.Normal,
				Value: fmt.Sprintf("%d and %d have collided in %d frames in a row", a, b, n)})
		}
	}
	t.push(r)
}

func (t *timeline) push(r TimelineRow) {
	if len(t.rows) >= timelineSize {
		k := copy(t.rows, t.rows[len(t.rows)-timelineSize/2:])
		t.rows = t.rows[:k]
	}
	r.Index = t.next
	t.next++
	t.rows = append(t.rows, r)
}

// truncate drops the rows after frame: the recording's future was discarded.
func (t *timeline) truncate(frame uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	i := len(t.rows)
	for i > 0 && t.rows[i-1].Frame > frame {
		i--
	}
	t.rows = t.rows[:i]
	t.until = min(t.until, frame)
	t.repeat.forgetAfter(frame)
}

// rowsMatching returns a copy of the rows f selects, oldest first, at most limit of
// the newest (limit ≤ 0: all).
func (t *timeline) rowsMatching(f TimelineFilter, limit int) []TimelineRow {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := []TimelineRow{}
	for i := len(t.rows) - 1; i >= 0 && (limit <= 0 || len(out) < limit); i-- {
		if f.match(&t.rows[i]) {
			out = append(out, t.rows[i])
		}
	}
	slices.Reverse(out)
	return out
}

// row returns the row numbered index.
func (t *timeline) row(index int) (TimelineRow, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	i, ok := slices.BinarySearchFunc(t.rows, index, func(r TimelineRow, k int) int { return r.Index - k })
	if !ok {
		return TimelineRow{}, false
	}
	return t.rows[i], true
}

// simEvents adds a step's events and power results (origin says whose simulation).
// Hotspot events stay in the log only.
func (t *timeline) simEvents(frame uint64, evs []sim.Event, results []sim.PowerResult, origin string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, ev := range evs {
		r := TimelineRow{Frame: frame, A: uint64(ev.A), B: uint64(ev.B), Origin: origin}
		switch ev.Kind {
		case sim.OnCollide:
			r.Kind = KindCollide
			r.Point, r.Normal = [2]float32{ev.Point[0], ev.Point[1]}, [2]float32{ev.Normal[0], ev.Normal[1]}
		case sim.OnOverlapBegin:
			r.Kind = KindOverlapBegin
		case sim.OnOverlapEnd:
			r.Kind = KindOverlapEnd
		default:
			continue
		}
		t.addLocked(r)
	}
	for _, p := range results {
		t.addLocked(TimelineRow{Frame: frame, Kind: KindPower, A: uint64(p.Source), B: uint64(p.Target), Origin: origin,
			Point: [2]float32{p.Point[0], p.Point[1]}, Normal: [2]float32{p.Normal[0], p.Normal[1]},
			Value: fmt.Sprintf("bolt %d, damage %d", p.Projectile, p.Damage)})
	}
	t.until = max(t.until, frame)
}

// Repeated contacts: a pair of entities that collide (either one running into the
// other) in frames at most repeatGapFrames apart is in one contact streak; a streak
// of repeatMinFrames frames is flagged. A blocked mover gives up after
// sim.StuckFrames frames of no progress, so two movers whose paths cross touch for a
// few frames, and a jam that the stuck rule resolves lasts about StuckFrames; a pair
// still in contact after twice that is pushing each other without end.
const (
	repeatGapFrames = 3
	repeatMinFrames = 2 * sim.StuckFrames
)

// repeatRule tracks the contact streak of every pair.
type repeatRule struct {
	pairs map[[2]uint64]*streak
	swept uint64 // the frame stale streaks were last dropped at
}

type streak struct {
	first, last uint64 // the streak's first and last frame with a contact
	frames      int    // frames with a contact in the streak
}

// observe records a collision of a and b at frame (frames never decrease) and returns
// the pair's streak in frames and whether this collision made it reach
// repeatMinFrames.
func (r *repeatRule) observe(frame uint64, a, b uint64) (int, bool) {
	if r.pairs == nil {
		r.pairs = map[[2]uint64]*streak{}
	}
	if frame >= r.swept+100 { // drop ended streaks now and then, so the map stays small
		r.swept = frame
		for k, s := range r.pairs {
			if s.last+repeatGapFrames < frame {
				delete(r.pairs, k)
			}
		}
	}
	k := [2]uint64{min(a, b), max(a, b)}
	s := r.pairs[k]
	switch {
	case s == nil || s.last+repeatGapFrames < frame:
		s = &streak{first: frame, last: frame, frames: 1}
		r.pairs[k] = s
	case s.last == frame:
		return s.frames, false // the other way round in the same frame
	default:
		s.last = frame
		s.frames++
	}
	return s.frames, s.frames == repeatMinFrames
}

// forgetAfter drops what the rule learnt after frame (the timeline was truncated);
// streaks that reach past it start again.
func (r *repeatRule) forgetAfter(frame uint64) {
	for k, s := range r.pairs {
		if s.last > frame {
			delete(r.pairs, k)
		}
	}
}
