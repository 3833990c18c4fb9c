// Package netsim simulates network conditions on a message transport: added
// latency, jitter that never reorders, a bandwidth cap, stall spikes and packet
// loss as a TCP connection experiences it, each changeable at run time and drawn
// from a seeded generator. It wraps the client's
// connection to the server, and a server may wrap a session's connection with it.
//
// # Design note
//
// A Shaper is the model, a pure function of its state and the time it is given:
// Deliver(now, size) returns when a message of size bytes sent at now arrives.
// The link serializes messages at Bandwidth bytes per second, holds them while a
// stall lasts, adds Latency plus a uniform draw in [0, Jitter], and never lets a
// message arrive before the one sent before it (TCP keeps order; so does a
// websocket). Stalls start at exponentially distributed intervals with mean
// StallEvery and last StallFor.
//
// The transport is a websocket, so TCP sits between the simulated network and the
// application, and the application sees loss only as TCP shows it: a lost segment
// is sent again when the sender's retransmission timer fires (RTO, at least
// MinRTO, doubling for each retransmission lost in turn) and every later message
// waits behind it in the receiver's buffer (head-of-line blocking). A message
// of k segments is hit when any of them is lost (1-(1-Loss)^k). Reordering and
// duplication exist on the wire but TCP removes them before the application
// reads: the simulator has no such conditions because a websocket never shows
// them. Wrap puts one Shaper on each direction of a Conn
// and uses timers to deliver on time; tests run it under testing/synctest, so no
// test waits for real time.
package netsim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Conditions describe one direction of a simulated link. The zero value is a
// perfect link.
type Conditions struct {
	Latency    time.Duration // added to every message
	Jitter     time.Duration // extra delay, uniform in [0, Jitter]; order is preserved
	Bandwidth  int           // bytes per second; 0 means unlimited
	StallEvery time.Duration // mean time between stalls; 0 means none
	StallFor   time.Duration // how long a stall holds the link
	// Loss is the fraction of TCP segments lost, in [0, 1): a lost segment arrives
	// one retransmission timeout late and holds back every later message.
	Loss float64
}

// TCP's loss recovery, as the simulator models it.
const (
	// MSS is the TCP segment payload a message is cut into (Ethernet MTU minus
	// the IP and TCP headers).
	MSS = 1460
	// MinRTO is the least retransmission timeout (Linux's TCP_RTO_MIN).
	MinRTO = 200 * time.Millisecond
	// maxRetransmits bounds the back-offs of one message: past it a real
	// connection would soon give up; the simulator delivers instead of looping.
	maxRetransmits = 8
)

// RTO returns the retransmission timeout of a connection with these conditions both
// ways, as RFC 6298 computes it from a steady round trip: the smoothed RTT
// (twice the latency, plus the mean jitter of the two ways) plus four times its
// variation (the jitter), at least MinRTO.
func (c Conditions) RTO() time.Duration {
	rtt := 2*c.Latency + c.Jitter
	return max(rtt+4*c.Jitter, MinRTO)
}

// ErrSyntax is wrapped by ParseConditions' errors.
var ErrSyntax = errors.New("netsim: bad conditions")

// ParseConditions parses the -net flag syntax: comma-separated key=value pairs,
// keys latency, jitter, stall-every and stall-for (Go durations), bandwidth
// (bytes per second, with an optional k or M suffix) and loss (a fraction, or a
// percentage with %), e.g.
// "latency=80ms,jitter=20ms,bandwidth=32k,stall-every=10s,stall-for=500ms,loss=2%".
// An empty string is a perfect link.
func ParseConditions(s string) (Conditions, error) {
	var c Conditions
	if strings.TrimSpace(s) == "" {
		return c, nil
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return c, fmt.Errorf("%w: %q is not key=value", ErrSyntax, kv)
		}
		var err error
		switch k {
		case "latency":
			c.Latency, err = time.ParseDuration(v)
		case "jitter":
			c.Jitter, err = time.ParseDuration(v)
		case "stall-every":
			c.StallEvery, err = time.ParseDuration(v)
		case "stall-for":
			c.StallFor, err = time.ParseDuration(v)
		case "bandwidth":
			c.Bandwidth, err = parseBytes(v)
		case "loss":
			c.Loss, err = parseFraction(v)
		default:
			return c, fmt.Errorf("%w: unknown key %q", ErrSyntax, k)
		}
		if err != nil {
			return c, fmt.Errorf("%w: %s: %v", ErrSyntax, k, err)
		}
	}
	if err := c.Validate(); err != nil {
		return c, err
	}
	return c, nil
}

func parseBytes(v string) (int, error) {
	mul := 1
	switch {
	case strings.HasSuffix(v, "k"):
		mul, v = 1000, strings.TrimSuffix(v, "k")
	case strings.HasSuffix(v, "M"):
		mul, v = 1000_000, strings.TrimSuffix(v, "M")
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, err
	}
	if n < 0 || n > (1<<31-1)/mul {
		return 0, fmt.Errorf("bandwidth %s out of range", v)
	}
	return n * mul, nil
}

// parseFraction parses "0.02" or "2%".
func parseFraction(v string) (float64, error) {
	div := 1.0
	if t, ok := strings.CutSuffix(v, "%"); ok {
		v, div = t, 100
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, err
	}
	return f / div, nil
}

// Validate reports negative values and a loss outside [0, 1) (a link losing
// everything never delivers).
func (c Conditions) Validate() error {
	if c.Latency < 0 || c.Jitter < 0 || c.Bandwidth < 0 || c.StallEvery < 0 || c.StallFor < 0 {
		return fmt.Errorf("%w: negative value in %+v", ErrSyntax, c)
	}
	if !(c.Loss >= 0 && c.Loss < 1) {
		return fmt.Errorf("%w: loss %v outside [0, 1)", ErrSyntax, c.Loss)
	}
	return nil
}

func (c Conditions) String() string {
	return fmt.Sprintf("latency=%v,jitter=%v,bandwidth=%d,stall-every=%v,stall-for=%v,loss=%v%%",
		c.Latency, c.Jitter, c.Bandwidth, c.StallEvery, c.StallFor, c.Loss*100)
}

// Shaper models one direction of a link. It is safe for concurrent use.
type Shaper struct {
	mu        sync.Mutex
	c         Conditions
	rng       *rand.Rand
	linkFree  time.Time // when the link has sent everything accepted so far
	last      time.Time // arrival of the last message
	nextStall time.Time // start of the next stall (zero: not drawn yet)
	stallEnd  time.Time
}

// NewShaper returns a shaper with conditions c and a generator seeded with seed.
func NewShaper(c Conditions, seed uint64) *Shaper {
	return &Shaper{c: c, rng: rand.New(rand.NewPCG(seed, 0x6e657473696d))} // "netsim"
}

// Set changes the conditions from now on; messages already sent keep their times.
func (s *Shaper) Set(c Conditions) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.StallEvery != s.c.StallEvery {
		s.nextStall = time.Time{}
	}
	s.c = c
}

// Conditions returns the current conditions.
func (s *Shaper) Conditions() Conditions {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c
}

// Deliver returns when a message of size bytes sent at now arrives. Calls must come
// with non-decreasing now.
func (s *Shaper) Deliver(now time.Time, size int) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.c
	depart := now
	if c.StallEvery > 0 && c.StallFor > 0 {
		if s.nextStall.IsZero() {
			s.nextStall = now.Add(s.exp(c.StallEvery))
		}
		for !now.Before(s.nextStall) {
			s.stallEnd = s.nextStall.Add(c.StallFor)
			s.nextStall = s.stallEnd.Add(s.exp(c.StallEvery))
		}
		if now.Before(s.stallEnd) {
			depart = s.stallEnd
		}
	}
	if s.linkFree.After(depart) {
		depart = s.linkFree
	}
	if c.Bandwidth > 0 {
		depart = depart.Add(time.Duration(int64(size) * int64(time.Second) / int64(c.Bandwidth)))
	}
	s.linkFree = depart
	at := depart.Add(c.Latency)
	if c.Jitter > 0 {
		at = at.Add(time.Duration(s.rng.Int64N(int64(c.Jitter) + 1)))
	}
	if c.Loss > 0 {
		at = at.Add(s.retransmissions(c, size))
	}
	// In order: a message never overtakes the one before, so one held by a
	// retransmission holds every later one too (head-of-line blocking).
	if at.Before(s.last) {
		at = s.last
	}
	s.last = at
	return at
}

// retransmissions returns how late loss makes a message of size bytes: nothing
// when none of its segments is lost; otherwise one RTO, then twice as long for
// each retransmission lost in turn (exponential back-off).
func (s *Shaper) retransmissions(c Conditions, size int) time.Duration {
	segs := max((size+MSS-1)/MSS, 1)
	if s.rng.Float64() >= 1-math.Pow(1-c.Loss, float64(segs)) {
		return 0
	}
	rto := c.RTO()
	late := rto
	for range maxRetransmits - 1 {
		if s.rng.Float64() >= c.Loss {
			break
		}
		rto *= 2
		late += rto
	}
	return late
}

func (s *Shaper) exp(mean time.Duration) time.Duration {
	return time.Duration(s.rng.ExpFloat64() * float64(mean))
}
