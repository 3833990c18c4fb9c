package client

import (
	"time"

	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
)

// FrameStat is the timing of one frame of the server's loop.
type FrameStat struct {
	Frame    uint64        // loop frame (real-time ticks: it runs on while the region is paused)
	Duration time.Duration // how long the frame took
	Lateness time.Duration // how late it started
}

// FrameStatsKept is how many loop frames of server timings a client keeps at least (30 s).
const FrameStatsKept = 600

// ServerFrameStats appends the server's loop frame timings of frames from on that
// the client still keeps to dst, oldest first, and returns the frames the server
// has dropped so far.
func (c *Client) ServerFrameStats(dst []FrameStat, from uint64) ([]FrameStat, uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range c.frames.log {
		if f.Frame >= from {
			dst = append(dst, f)
		}
	}
	return dst, c.frames.dropped
}

// RegionFrameStat is one region's share of a server loop frame: how long its
// game's step and replication took, and how late past the frame's budget it ended.
type RegionFrameStat struct {
	Region int32
	FrameStat
}

// ServerRegionStats appends the per-region timings of the server's loop frames
// from on that the client still keeps to dst, by frame, then in the order the
// server sent the regions (the world's).
func (c *Client) ServerRegionStats(dst []RegionFrameStat, from uint64) []RegionFrameStat {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range c.frames.regions {
		if f.Frame >= from {
			dst = append(dst, f)
		}
	}
	return dst
}

// frameStatsLog is the rolling log of the server's frame timings.
type frameStatsLog struct {
	log     []FrameStat
	regions []RegionFrameStat // ascending frames
	dropped uint64
}

func (l *frameStatsLog) add(m *pb.NetMessageServerFrameStats) {
	n := min(len(m.DurationMicros), len(m.LatenessMicros), protocol.MaxFrameStats)
	for i := range n {
		f := m.FirstLoopFrame + uint64(i)
		if k := len(l.log); k > 0 && f <= l.log[k-1].Frame {
			continue // a repeat: keep the log ascending
		}
		l.log = append(l.log, FrameStat{Frame: f, Duration: time.Duration(m.DurationMicros[i]) * time.Microsecond,
			Lateness: time.Duration(m.LatenessMicros[i]) * time.Microsecond})
	}
	if len(l.log) > 2*FrameStatsKept {
		l.log = l.log[:copy(l.log, l.log[len(l.log)-FrameStatsKept:])]
	}
	l.addRegions(m)
	l.dropped = m.DroppedFrames
}

func (l *frameStatsLog) addRegions(m *pb.NetMessageServerFrameStats) {
	rs := m.GetRegions()[:min(len(m.GetRegions()), protocol.MaxRegionTimings)]
	last, seen := uint64(0), len(l.regions) > 0
	if seen {
		last = l.regions[len(l.regions)-1].Frame
	}
	n := min(len(m.DurationMicros), protocol.MaxFrameStats)
	for i := range n {
		f := m.FirstLoopFrame + uint64(i)
		if seen && f <= last {
			continue // a repeat
		}
		for _, r := range rs {
			if i >= len(r.DurationMicros) || i >= len(r.LatenessMicros) {
				continue
			}
			l.regions = append(l.regions, RegionFrameStat{Region: r.GetRegionId(), FrameStat: FrameStat{Frame: f,
				Duration: time.Duration(r.DurationMicros[i]) * time.Microsecond, Lateness: time.Duration(r.LatenessMicros[i]) * time.Microsecond}})
		}
	}
	if keep := FrameStatsKept * max(len(rs), 1); len(l.regions) > 2*keep {
		l.regions = l.regions[:copy(l.regions, l.regions[len(l.regions)-keep:])]
	}
}
