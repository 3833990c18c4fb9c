package schedule_test

import (
	"cmp"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/twinframe/twinframe/shared/sim/schedule"
)

type firing struct {
	frame uint64
	id    int
}

func TestFiresInFrameThenScheduleOrder(t *testing.T) {
	t.Parallel()
	s := schedule.New(10, 0)
	var got []firing
	add := func(at uint64, id int) schedule.Handle {
		return s.At(at, func(now uint64) { got = append(got, firing{now, id}) })
	}
	add(12, 1)
	add(11, 2)
	add(12, 3)
	add(10+schedule.Horizon+5, 4) // overflow
	add(5, 5)                     // in the past: fires in the next frame
	h := add(13, 6)
	add(10+3*schedule.Horizon, 7)
	if !s.Cancel(h) || s.Cancel(h) {
		t.Fatal("Cancel should succeed once")
	}
	if err := s.FireDue(10 + 3*schedule.Horizon); err != nil {
		t.Fatal(err)
	}
	want := []firing{{10, 5}, {11, 2}, {12, 1}, {12, 3}, {10 + schedule.Horizon + 5, 4}, {10 + 3*schedule.Horizon, 7}}
	if !slices.Equal(got, want) {
		t.Fatalf("fired %v, want %v", got, want)
	}
	if s.Pending() != 0 {
		t.Fatalf("%d pending", s.Pending())
	}
}

func TestEventsScheduledWhileFiringRunInSameFrame(t *testing.T) {
	t.Parallel()
	s := schedule.New(0, 0)
	var order []int
	s.At(1, func(now uint64) {
		order = append(order, 1)
		s.At(now, func(uint64) { order = append(order, 3) })
		s.After(1, func(uint64) { order = append(order, 4) }) // next frame
	})
	s.At(1, func(uint64) { order = append(order, 2) })
	if err := s.FireDue(1); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(order, []int{1, 2, 3}) {
		t.Fatalf("frame 1 fired %v", order)
	}
	if err := s.FireDue(2); err != nil || !slices.Equal(order, []int{1, 2, 3, 4}) {
		t.Fatalf("frame 2: %v %v", order, err)
	}
}

func TestEndlessCascadeIsAnError(t *testing.T) {
	t.Parallel()
	s := schedule.New(0, 100)
	var again schedule.Func
	again = func(now uint64) { s.At(now, again) }
	s.At(0, again)
	if err := s.FireDue(0); !errors.Is(err, schedule.ErrCascade) {
		t.Fatalf("got %v", err)
	}
}

func TestCancelAfterFireIsNoOp(t *testing.T) {
	t.Parallel()
	s := schedule.New(0, 0)
	h := s.At(0, func(uint64) {})
	if err := s.FireDue(0); err != nil {
		t.Fatal(err)
	}
	s.At(1, func(uint64) {}) // may reuse the slot
	if s.Cancel(h) {
		t.Fatal("cancelled an event that already fired")
	}
	if s.Pending() != 1 {
		t.Fatalf("pending %d", s.Pending())
	}
}

// Random schedules and cancels, checked against sorting by (frame, sequence).
func TestMatchesSortedModel(t *testing.T) {
	t.Parallel()
	seed := uint64(20261201)
	rng := rand.New(rand.NewPCG(seed, 1))
	s := schedule.New(0, 0)
	type ev struct {
		at        uint64
		seq       int
		cancelled bool
		h         schedule.Handle
	}
	var evs []*ev
	var got []int
	for i := range 2000 {
		e := &ev{at: rng.Uint64N(4 * schedule.Horizon), seq: i}
		e.h = s.At(e.at, func(uint64) { got = append(got, e.seq) })
		evs = append(evs, e)
		if rng.IntN(5) == 0 {
			c := evs[rng.IntN(len(evs))]
			if !c.cancelled {
				c.cancelled = s.Cancel(c.h)
			}
		}
	}
	if err := s.FireDue(4 * schedule.Horizon); err != nil {
		t.Fatal(err)
	}
	var want []int
	live := slices.DeleteFunc(slices.Clone(evs), func(e *ev) bool { return e.cancelled })
	slices.SortStableFunc(live, func(a, b *ev) int { return cmp.Compare(a.at, b.at) })
	for _, e := range live {
		want = append(want, e.seq)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("seed %d: fired order differs from the model", seed)
	}
}

func BenchmarkScheduleAndFire(b *testing.B) {
	s := schedule.New(0, 0)
	fn := func(uint64) {}
	frame := uint64(0)
	b.ReportAllocs()
	for b.Loop() {
		for i := range 100 {
			s.After(uint64(i%40), fn)
		}
		frame++
		if err := s.FireDue(frame); err != nil {
			b.Fatal(err)
		}
	}
}
