package gameserver

import (
	"time"

	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/sim"
)

// StatsEvery is how many loop frames apart every session gets a
// NetMessageServerFrameStats (one second at 20 Hz). The figures are the same as
// /status shows to anyone, so players get them as well as the deity.
const StatsEvery = sim.FrameRate

// frameStats remembers how far the frame timings have been sent.
type frameStats struct {
	sent int // timing reports covered by the messages sent so far
}

// queueFrameStats runs in the loop: once StatsEvery frames have been timed since
// the last message, it queues one with their durations and lateness for every
// session, to go out in the frame's packet.
func (s *Server) queueFrameStats() {
	m := s.timings.statsSince(&s.stats.sent, StatsEvery, s.cfg.Period, s.regionIDs())
	if m == nil {
		return
	}
	for _, c := range s.sessions {
		if !c.closed() {
			c.replies = append(c.replies, m) // marshalled per packet; never modified
		}
	}
}

// statsSince returns the message for the reports after *sent once at least every
// of them are in, and moves *sent past them; nil before. A backlog longer than
// the ring or than protocol.MaxFrameStats sends only its newest reports.
func (t *timingRing) statsSince(sent *int, every int, period time.Duration, regions []int32) *pb.NetMessageServerFrameStats {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n-*sent < every {
		return nil
	}
	from := max(*sent, t.n-protocol.MaxFrameStats, t.n-len(t.r))
	m := &pb.NetMessageServerFrameStats{
		FirstLoopFrame: t.r[from%len(t.r)].Frame,
		DurationMicros: make([]uint32, 0, t.n-from),
		LatenessMicros: make([]uint32, 0, t.n-from),
		DroppedFrames:  t.last.Dropped,
		PeriodMicros:   micros(period),
	}
	for i := from; i < t.n; i++ {
		r := &t.r[i%len(t.r)]
		m.DurationMicros = append(m.DurationMicros, micros(r.Duration))
		m.LatenessMicros = append(m.LatenessMicros, micros(r.Lateness))
	}
	for k, id := range regions[:min(len(regions), protocol.MaxRegionTimings)] {
		rt := &pb.NetStructRegionTiming{RegionId: id, DurationMicros: make([]uint32, 0, t.n-from),
			LatenessMicros: make([]uint32, 0, t.n-from)}
		for i := from; i < t.n; i++ {
			var rs regionSample
			if regs := t.regs[i%len(t.r)]; k < len(regs) {
				rs = regs[k]
			}
			rt.DurationMicros = append(rt.DurationMicros, micros(rs.Duration))
			rt.LatenessMicros = append(rt.LatenessMicros, micros(rs.Lateness))
		}
		m.Regions = append(m.Regions, rt)
	}
	*sent = t.n
	return m
}

// micros converts d to whole microseconds, saturating at the uint32 range.
func micros(d time.Duration) uint32 {
	us := d / time.Microsecond
	if us <= 0 {
		return 0
	}
	return uint32(min(us, 1<<32-1))
}
