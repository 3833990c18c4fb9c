// Package netsim simulates network conditions on a message transport: added
// latency, jitter that never reorders, a bandwidth cap and stall spikes, each
// changeable at run time and drawn from a seeded generator. It wraps the client's
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
// StallEvery and last StallFor. Wrap puts one Shaper on each direction of a Conn
// and uses timers to deliver on time; tests run it under testing/synctest, so no
// test waits for real time.
package netsim

import (
	"errors"
	"fmt"
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
}

// ErrSyntax is wrapped by ParseConditions' errors.
var ErrSyntax = errors.New("netsim: bad conditions")

// ParseConditions parses the -net flag syntax: comma-separated key=value pairs,
// keys latency, jitter, stall-every and stall-for (Go durations) and bandwidth
// (bytes per second, with an optional k or M suffix), e.g.
// "latency=80ms,jitter=20ms,bandwidth=32k,stall-every=10s,stall-for=500ms".
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

// Validate reports negative values.
func (c Conditions) Validate() error {
	if c.Latency < 0 || c.Jitter < 0 || c.Bandwidth < 0 || c.StallEvery < 0 || c.StallFor < 0 {
		return fmt.Errorf("%w: negative value in %+v", ErrSyntax, c)
	}
	return nil
}

func (c Conditions) String() string {
	return fmt.Sprintf("latency=%v,jitter=%v,bandwidth=%d,stall-every=%v,stall-for=%v",
		c.Latency, c.Jitter, c.Bandwidth, c.StallEvery, c.StallFor)
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
	if at.Before(s.last) {
		at = s.last
	}
	s.last = at
	return at
}

func (s *Shaper) exp(mean time.Duration) time.Duration {
	return time.Duration(s.rng.ExpFloat64() * float64(mean))
}
