// Package schedule is the simulation's event scheduler: a timer wheel keyed by game
// frame that fires the events due in a frame in a deterministic order.
//
// # Design note
//
// Time is whole frames. The wheel has one bucket per frame for the next Horizon
// frames; events further out wait in an overflow list and move into the wheel as
// their frame comes within the horizon. Events due in the same frame fire in the
// order they were scheduled (a sequence number breaks ties, never map or pointer
// order). An event may schedule more events for the current frame; they fire in the
// same call, after the ones already due, and a cap on the events fired per frame
// turns an endless cascade into an error instead of a hang. Handles carry a
// generation, so cancelling an event that already fired is a harmless no-op.
package schedule

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
)

// Func is an event's action; now is the frame being processed.
type Func func(now uint64)

// Handle identifies a scheduled event, for Cancel.
type Handle struct {
	slot uint32
	gen  uint32
}

// Scheduler is a timer wheel. The zero value is not usable; call New.
type Scheduler struct {
	buckets  [][]uint32 // slot indices per frame, ring of len Horizon
	overflow []uint32   // slots due beyond the horizon: a min-heap on (frame, seq)
	entries  []entry    // slot storage, reused through free
	free     []uint32
	now      uint64 // frame of the next FireDue
	seq      uint64
	maxFire  int
	pending  int
}

type entry struct {
	at   uint64
	seq  uint64
	fn   Func
	gen  uint32
	live bool
}

// Horizon is how many frames ahead the wheel holds events in buckets.
const Horizon = 256

// ErrCascade is returned when a frame fires more events than the cap allows.
var ErrCascade = errors.New("schedule: too many events in one frame")

// New returns a scheduler whose first frame is start, firing at most maxPerFrame
// events per frame (≤ 0: 1<<16).
func New(start uint64, maxPerFrame int) *Scheduler {
	if maxPerFrame <= 0 {
		maxPerFrame = 1 << 16
	}
	return &Scheduler{buckets: make([][]uint32, Horizon), now: start, maxFire: maxPerFrame}
}

// Now returns the next frame FireDue will process.
func (s *Scheduler) Now() uint64 { return s.now }

// Pending returns the number of scheduled, uncancelled events.
func (s *Scheduler) Pending() int { return s.pending }

// At schedules fn for frame at; a frame already past fires in the next FireDue.
func (s *Scheduler) At(at uint64, fn Func) Handle {
	at = max(at, s.now)
	slot := s.alloc()
	e := &s.entries[slot]
	e.at, e.seq, e.fn, e.live = at, s.seq, fn, true
	s.seq++
	s.pending++
	s.place(slot)
	return Handle{slot: slot, gen: e.gen}
}

// After schedules fn frames after the current frame.
func (s *Scheduler) After(frames uint64, fn Func) Handle { return s.At(s.now+frames, fn) }

// Cancel removes a scheduled event; it reports whether the event was still pending.
func (s *Scheduler) Cancel(h Handle) bool {
	if int(h.slot) >= len(s.entries) {
		return false
	}
	e := &s.entries[h.slot]
	if !e.live || e.gen != h.gen {
		return false
	}
	e.live, e.fn = false, nil
	s.pending--
	return true // the slot is freed when its bucket is reached
}

func (s *Scheduler) alloc() uint32 {
	if n := len(s.free); n > 0 {
		slot := s.free[n-1]
		s.free = s.free[:n-1]
		return slot
	}
	s.entries = append(s.entries, entry{})
	return uint32(len(s.entries) - 1)
}

func (s *Scheduler) release(slot uint32) {
	e := &s.entries[slot]
	e.fn, e.live = nil, false
	e.gen++
	s.free = append(s.free, slot)
}

func (s *Scheduler) place(slot uint32) {
	at := s.entries[slot].at
	if at-s.now >= Horizon {
		s.pushOverflow(slot)
		return
	}
	b := at % Horizon
	s.buckets[b] = append(s.buckets[b], slot)
}

// FireDue fires every event due in frame now (and, after a pause, any frames
// skipped since the last call), in schedule order, then advances to now+1.
func (s *Scheduler) FireDue(now uint64) error {
	for s.now <= now {
		if err := s.fireFrame(); err != nil {
			return err
		}
		s.now++
		s.migrate()
	}
	return nil
}

func (s *Scheduler) fireFrame() error {
	b := s.now % Horizon
	fired := 0
	for len(s.buckets[b]) > 0 {
		batch := s.buckets[b]
		s.buckets[b] = nil
		slices.SortFunc(batch, func(x, y uint32) int {
			return cmp.Compare(s.entries[x].seq, s.entries[y].seq)
		})
		for i, slot := range batch {
			e := s.entries[slot]
			s.release(slot)
			if !e.live {
				continue
			}
			s.pending--
			if fired++; fired > s.maxFire {
				s.requeue(b, batch[i+1:])
				return fmt.Errorf("%w: more than %d in frame %d", ErrCascade, s.maxFire, s.now)
			}
			e.fn(s.now)
		}
		if s.buckets[b] == nil {
			s.buckets[b] = batch[:0] // keep the bucket's storage
		}
	}
	return nil
}

// requeue puts back events that were not fired because of the cascade cap.
func (s *Scheduler) requeue(b uint64, rest []uint32) {
	s.buckets[b] = append(s.buckets[b], rest...)
}

// migrate moves overflow events whose frame is now within the horizon into the
// wheel. The overflow list is a min-heap on (frame, sequence).
func (s *Scheduler) migrate() {
	for len(s.overflow) > 0 {
		slot := s.overflow[0]
		e := &s.entries[slot]
		if e.live && e.at-s.now >= Horizon {
			return
		}
		s.popOverflow()
		if !e.live {
			s.release(slot)
			continue
		}
		b := e.at % Horizon
		s.buckets[b] = append(s.buckets[b], slot)
	}
}

func (s *Scheduler) lessOverflow(i, j int) bool {
	a, b := &s.entries[s.overflow[i]], &s.entries[s.overflow[j]]
	return a.at < b.at || a.at == b.at && a.seq < b.seq
}

func (s *Scheduler) pushOverflow(slot uint32) {
	s.overflow = append(s.overflow, slot)
	for i := len(s.overflow) - 1; i > 0; {
		parent := (i - 1) / 2
		if !s.lessOverflow(i, parent) {
			break
		}
		s.overflow[i], s.overflow[parent] = s.overflow[parent], s.overflow[i]
		i = parent
	}
}

func (s *Scheduler) popOverflow() {
	n := len(s.overflow) - 1
	s.overflow[0] = s.overflow[n]
	s.overflow = s.overflow[:n]
	for i := 0; ; {
		least, l, r := i, 2*i+1, 2*i+2
		if l < n && s.lessOverflow(l, least) {
			least = l
		}
		if r < n && s.lessOverflow(r, least) {
			least = r
		}
		if least == i {
			return
		}
		s.overflow[i], s.overflow[least] = s.overflow[least], s.overflow[i]
		i = least
	}
}
