package netsim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func TestShaperLatencyAndJitterKeepOrder(t *testing.T) {
	s := NewShaper(Conditions{Latency: 80 * time.Millisecond, Jitter: 40 * time.Millisecond}, 1)
	var arr []time.Time
	for i := range 1000 {
		now := t0.Add(time.Duration(i) * time.Millisecond)
		at := s.Deliver(now, 100)
		if d := at.Sub(now); d < 80*time.Millisecond || d > 121*time.Millisecond {
			t.Fatalf("message %d delayed %v", i, d)
		}
		arr = append(arr, at)
	}
	if !slices.IsSortedFunc(arr, func(a, b time.Time) int { return a.Compare(b) }) {
		t.Fatal("jitter reordered messages")
	}
	// Same seed, same times.
	s2 := NewShaper(Conditions{Latency: 80 * time.Millisecond, Jitter: 40 * time.Millisecond}, 1)
	for i := range 1000 {
		if at := s2.Deliver(t0.Add(time.Duration(i)*time.Millisecond), 100); !at.Equal(arr[i]) {
			t.Fatalf("seeded shaper differs at %d", i)
		}
	}
}

func TestShaperBandwidth(t *testing.T) {
	s := NewShaper(Conditions{Bandwidth: 1000}, 1)
	for i := range 10 {
		at := s.Deliver(t0, 100) // ten 100-byte messages at once over 1 kB/s
		if want := t0.Add(time.Duration(i+1) * 100 * time.Millisecond); !at.Equal(want) {
			t.Fatalf("message %d at %v, want %v", i, at.Sub(t0), want.Sub(t0))
		}
	}
	// An idle link sends the next message at once.
	if at := s.Deliver(t0.Add(5*time.Second), 10); !at.Equal(t0.Add(5*time.Second + 10*time.Millisecond)) {
		t.Fatalf("after idle: %v", at.Sub(t0))
	}
}

func TestShaperStalls(t *testing.T) {
	c := Conditions{StallEvery: time.Second, StallFor: 200 * time.Millisecond}
	s := NewShaper(c, 7)
	stalled, n := 0, 6000
	for i := range n {
		now := t0.Add(time.Duration(i) * 10 * time.Millisecond)
		if d := s.Deliver(now, 1).Sub(now); d > 0 {
			stalled++
			if d > 200*time.Millisecond {
				t.Fatalf("held %v, longer than a stall", d)
			}
		}
	}
	// About 200 ms of every 1.2 s is stalled: a sixth of the messages.
	if frac := float64(stalled) / float64(n); frac < 0.1 || frac > 0.25 {
		t.Fatalf("%.2f of messages stalled", frac)
	}
}

func TestShaperChangesAtRunTime(t *testing.T) {
	s := NewShaper(Conditions{Latency: 500 * time.Millisecond}, 1)
	a := s.Deliver(t0, 1)
	s.Set(Conditions{Latency: 10 * time.Millisecond})
	b := s.Deliver(t0.Add(time.Millisecond), 1)
	if !b.Equal(a) {
		t.Fatalf("lower latency overtook an earlier message: %v then %v", a.Sub(t0), b.Sub(t0))
	}
	if c := s.Deliver(t0.Add(time.Second), 1); !c.Equal(t0.Add(time.Second + 10*time.Millisecond)) {
		t.Fatalf("new latency not applied: %v", c.Sub(t0))
	}
	if got := s.Conditions().Latency; got != 10*time.Millisecond {
		t.Fatal(got)
	}
}

func TestParseConditions(t *testing.T) {
	c, err := ParseConditions("latency=80ms, jitter=20ms,bandwidth=32k,stall-every=10s,stall-for=500ms")
	if err != nil {
		t.Fatal(err)
	}
	want := Conditions{Latency: 80 * time.Millisecond, Jitter: 20 * time.Millisecond, Bandwidth: 32000,
		StallEvery: 10 * time.Second, StallFor: 500 * time.Millisecond}
	if c != want {
		t.Fatalf("%+v", c)
	}
	for _, tc := range []struct {
		in   string
		want float64
	}{{"loss=2%", 0.02}, {"loss=0.25", 0.25}, {"loss=0", 0}} {
		c, err := ParseConditions(tc.in)
		if err != nil || c.Loss != tc.want {
			t.Errorf("%q: %v %v, want loss %v", tc.in, c.Loss, err, tc.want)
		}
		if back, err := ParseConditions(c.String()); err != nil || back != c {
			t.Errorf("%q: String %q parses back as %+v, %v", tc.in, c.String(), back, err)
		}
	}
	for _, bad := range []string{"latency", "latency=x", "speed=1", "bandwidth=-1", "jitter=-5ms", "bandwidth=99999999M",
		"loss=1", "loss=100%", "loss=-1%", "loss=x", "loss=NaN"} {
		if _, err := ParseConditions(bad); !errors.Is(err, ErrSyntax) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if c, err := ParseConditions(""); err != nil || c != (Conditions{}) {
		t.Fatal(c, err)
	}
}

// Loss as TCP shows it: a message arrives on time or one RTO late (more after
// lost retransmissions, doubling), never lost, never out of order; a message held by
// a retransmission holds those sent after it (head-of-line); the draws are seeded.
func TestShaperLoss(t *testing.T) {
	c := Conditions{Latency: 40 * time.Millisecond, Loss: 0.05}
	rto := c.RTO()
	if rto != MinRTO {
		t.Fatalf("RTO %v, want the floor %v for an 80 ms round trip", rto, MinRTO)
	}
	if got := (Conditions{Latency: 150 * time.Millisecond, Jitter: 20 * time.Millisecond}).RTO(); got != 400*time.Millisecond {
		t.Fatalf("RTO %v, want 300 ms RTT + 20 ms jitter + 4×20 ms", got)
	}
	run := func(seed uint64, size int) (arr []time.Time, late, held, backedOff int) {
		s := NewShaper(c, seed)
		for i := range 4000 {
			now := t0.Add(time.Duration(i) * 10 * time.Millisecond)
			at := s.Deliver(now, size)
			arr = append(arr, at)
			d := at.Sub(now) - c.Latency
			switch {
			case d == 0:
			case d == rto || d == 3*rto || d == 7*rto:
				late++
				if d > rto {
					backedOff++
				}
			case i > 0 && at.Equal(arr[i-1]):
				held++ // waits for the retransmitted message before it
			default:
				t.Fatalf("message %d: %v late, not a whole retransmission nor behind one", i, d)
			}
		}
		return arr, late, held, backedOff
	}
	arr, late, held, backedOff := run(1, 100)
	if !slices.IsSortedFunc(arr, func(a, b time.Time) int { return a.Compare(b) }) {
		t.Fatal("loss reordered messages")
	}
	// 4000 one-segment messages at 5 %: about 200 retransmitted, some of them twice,
	// and with 10 ms between messages and a 200 ms RTO each holds the next ~19.
	if late < 140 || late > 260 || backedOff == 0 || held < 10*late {
		t.Fatalf("%d retransmitted (%d backed off), %d held behind them", late, backedOff, held)
	}
	if again, _, _, _ := run(1, 100); !slices.Equal(arr, again) {
		t.Fatal("same seed, different arrivals")
	}
	// A message of ten segments is hit when any is: 1-0.95^10 ≈ 40 %.
	if _, big, _, _ := run(1, 10*MSS); big < 4*late {
		t.Fatalf("%d of ten-segment messages retransmitted, against %d of one-segment ones", big, late)
	}
}

// The link delivers on the shaper's schedule in fake time, in order, and its
// goroutines end on Close (synctest fails on leaked goroutines).
func TestLink(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := Pipe()
		up := NewShaper(Conditions{Latency: 100 * time.Millisecond, Jitter: 50 * time.Millisecond}, 3)
		down := NewShaper(Conditions{Latency: 30 * time.Millisecond}, 4)
		l := Wrap(a, up, down, nil)
		ctx := context.Background()
		start := time.Now()
		for i := range 20 {
			if err := l.Write(ctx, []byte{byte(i)}); err != nil {
				t.Fatal(err)
			}
			time.Sleep(10 * time.Millisecond)
		}
		last := time.Duration(0)
		for i := range 20 {
			m, err := b.Read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			d := time.Since(start) - time.Duration(i)*10*time.Millisecond
			if m[0] != byte(i) || d < 100*time.Millisecond || time.Since(start) < last {
				t.Fatalf("message %d (%d) after %v", i, m[0], d)
			}
			last = time.Since(start)
		}
		// The other way: exactly the down latency.
		sent := time.Now()
		if err := b.Write(ctx, []byte("pong")); err != nil {
			t.Fatal(err)
		}
		m, err := l.Read(ctx)
		if err != nil || string(m) != "pong" || time.Since(sent) != 30*time.Millisecond {
			t.Fatalf("%q %v after %v", m, err, time.Since(sent))
		}
		// A Read whose context ends while the message is in flight keeps it.
		b.Write(ctx, []byte("late"))
		short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
		if _, err := l.Read(short); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("short read: %v", err)
		}
		cancel()
		if m, err := l.Read(ctx); err != nil || string(m) != "late" {
			t.Fatalf("%q %v", m, err)
		}
		l.Close()
		if err := l.Write(ctx, nil); !errors.Is(err, ErrClosed) {
			t.Fatalf("write after close: %v", err)
		}
	})
}

func ExampleShaper() {
	s := NewShaper(Conditions{Latency: 80 * time.Millisecond, Bandwidth: 10_000}, 1)
	for i := range 3 {
		at := s.Deliver(t0, 500) // three 500-byte packets sent together
		fmt.Println(i, at.Sub(t0))
	}
	// Output:
	// 0 130ms
	// 1 180ms
	// 2 230ms
}

// ReadStamped tells when the shaper let a message arrive, however late the reader
// comes for it (a page busy drawing a frame).
func TestLinkReadStamped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := Pipe()
		l := Wrap(a, nil, NewShaper(Conditions{Latency: 30 * time.Millisecond}, 4), nil)
		defer l.Close()
		ctx := context.Background()
		sent := time.Now()
		if err := b.Write(ctx, []byte("pong")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond) // the reader is busy
		m, at, err := l.ReadStamped(ctx)
		if err != nil || string(m) != "pong" {
			t.Fatalf("%q %v", m, err)
		}
		if d := at.Sub(sent); d != 30*time.Millisecond {
			t.Fatalf("stamped %v after sending, want the 30 ms latency", d)
		}
	})
}
