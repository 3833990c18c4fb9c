package replica

import (
	"time"

	"github.com/twinframe/twinframe/shared/sim"
)

// FrameDuration is the length of one server frame.
const FrameDuration = sim.FrameMillis * time.Millisecond

// clockSamples is how many ping/pong samples the clock keeps.
const clockSamples = 16

// Clock estimates the server's frame from ping/pong round trips: the offset between
// the client's clock and the server's frame time from the sample with the lowest
// round trip among the last 16 (the one least delayed by queues), and a smoothed
// round trip (RFC 6298 style, gain 1/8) for how far the client runs ahead. Before
// the first pong it is anchored by the server frames it receives. The zero value
// is usable.
type Clock struct {
	samples [clockSamples]clockSample
	n, next int
	srtt    time.Duration
	offset  time.Duration // server frame time = now + offset
	anchor  bool          // offset set by a received frame, no pong yet
	synced  bool
	lead    float64
}

type clockSample struct {
	rtt    time.Duration
	offset time.Duration
}

// Pong records a pong: the ping was sent at sent (the client time it carried),
// the pong received at now, and the server had stepped serverFrame frames. The
// server's time is taken as the middle of the frame after serverFrame.
func (c *Clock) Pong(sent, now time.Duration, serverFrame uint64) {
	rtt := now - sent
	if rtt < 0 {
		return // a clock from another epoch
	}
	server := time.Duration(serverFrame)*FrameDuration + FrameDuration/2
	s := clockSample{rtt: rtt, offset: server - (sent + rtt/2)}
	if c.synced && c.n > 0 && s.offset < c.offset-rtt/2-2*FrameDuration {
		// The server lost time (a pause we did not see, or a dropped backlog): the
		// older samples describe a clock that no longer exists.
		c.n, c.next = 0, 0
	}
	c.samples[c.next] = s
	c.next = (c.next + 1) % clockSamples
	c.n = min(c.n+1, clockSamples)
	if !c.synced {
		c.srtt = rtt
	} else {
		c.srtt += (rtt - c.srtt) / 8
	}
	c.synced, c.anchor = true, false
	best := c.samples[(c.next+clockSamples-1)%clockSamples]
	for _, s := range c.samples[:c.n] {
		if s.rtt < best.rtt {
			best = s
		}
	}
	c.offset = best.offset
}

// Frame records that the packet of server frame f was received at now. Before any
// pong it anchors the clock; afterwards it only moves the estimate forward, when
// the server is evidently ahead of it (a frame received before the estimate
// reached it). Late packets (a stalled link) never pull it back.
func (c *Clock) Frame(now time.Duration, f uint64) {
	t := time.Duration(f) * FrameDuration
	if !c.synced && !c.anchor {
		c.offset, c.anchor = t-now, true
		return
	}
	if now+c.offset < t {
		c.offset = t - now
	}
}

// Paused records that the server said it is paused at frame f: its clock stands
// still, so the estimate is pinned to f plus the one-way delay and the ping
// samples taken before are dropped.
func (c *Clock) Paused(now time.Duration, f uint64) {
	c.offset = time.Duration(f)*FrameDuration + c.srtt/2 - now
	c.n, c.next = 0, 0
	c.anchor = c.anchor || !c.synced
}

// Rebase moves the estimate to frames counted from another origin, keeping the
// round trip and the samples' spread: the packet of frame f, from a server whose
// frames are not those estimated so far (the region of another node after travel),
// was received at now. Without a rebase the older samples, taken against the old
// origin, would win the next pong and pull the estimate back to a clock that no
// longer exists.
func (c *Clock) Rebase(now time.Duration, f uint64) {
	if !c.Started() {
		c.Frame(now, f)
		return
	}
	want := time.Duration(f)*FrameDuration + c.srtt/2 - now
	d := want - c.offset
	c.offset = want
	for i := range c.samples[:c.n] {
		c.samples[i].offset += d
	}
}

// Synced reports whether at least one pong was recorded.
func (c *Clock) Synced() bool { return c.synced }

// Started reports whether the clock has any reference (a pong or a frame).
func (c *Clock) Started() bool { return c.synced || c.anchor }

// RTT returns the smoothed round-trip time (0 before the first pong).
func (c *Clock) RTT() time.Duration { return c.srtt }

// ServerFrame returns the estimated server frame at now, with its fraction.
func (c *Clock) ServerFrame(now time.Duration) float64 {
	return float64(now+c.offset) / float64(FrameDuration)
}

// TargetFrame returns the frame the client should have predicted up to at now: the
// estimated server frame plus half the round trip plus one frame, so that an input
// made now and stamped with the next frame reaches the server before it steps it.
func (c *Clock) TargetFrame(now time.Duration) float64 {
	return c.ServerFrame(now) + float64(c.srtt/2)/float64(FrameDuration) + 1 + c.lead
}

// SetExtraLead adds frames to the lead (for example, the jitter the client wants
// to absorb). Negative values are treated as 0.
func (c *Clock) SetExtraLead(frames float64) { c.lead = max(frames, 0) }
