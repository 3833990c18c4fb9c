package client

import (
	"testing"
	"time"

	"github.com/twinframe/twinframe/shared/protocol/pb"
)

// The client keeps the server's frame timings as a rolling log: ascending loop
// frames, repeats ignored, the oldest dropped past twice FrameStatsKept.
func TestFrameStatsLog(t *testing.T) {
	t.Parallel()
	c := &Client{}
	msg := func(first uint64, n int) *pb.NetMessageServerFrameStats {
		m := &pb.NetMessageServerFrameStats{Frame: first, DroppedFrames: first / 100}
		for i := range n {
			m.DurationMicros = append(m.DurationMicros, uint32(first)+uint32(i))
			m.LatenessMicros = append(m.LatenessMicros, 7)
		}
		return m
	}
	c.frames.add(msg(0, 20))
	c.frames.add(msg(10, 20)) // overlaps frames 10..19
	got, dropped := c.ServerFrameStats(nil, 5)
	if len(got) != 25 || got[0].Frame != 5 || got[24].Frame != 29 || dropped != 0 {
		t.Fatalf("%d samples %v…, dropped %d", len(got), got[:min(len(got), 2)], dropped)
	}
	if got[20] != (FrameStat{Frame: 25, Duration: 25 * time.Microsecond, Lateness: 7 * time.Microsecond}) {
		t.Errorf("frame 25: %+v", got[20])
	}
	for f := uint64(30); f < 3000; f += 20 {
		c.frames.add(msg(f, 20))
	}
	got, dropped = c.ServerFrameStats(got[:0], 0)
	if n := len(got); n < FrameStatsKept || n > 2*FrameStatsKept || got[n-1].Frame != 3009 || dropped != 29 {
		t.Errorf("after 3000 frames: %d kept, last %d, dropped %d", n, got[n-1].Frame, dropped)
	}
}
