package client

import (
	"slices"
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
		m := &pb.NetMessageServerFrameStats{FirstLoopFrame: first, DroppedFrames: first / 100}
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

// Per-region timings are kept by frame, in the order the server sent the regions;
// repeated frames are ignored, and a region whose lists are short gives only the
// frames it has.
func TestRegionStatsLog(t *testing.T) {
	t.Parallel()
	c := &Client{}
	msg := func(first uint64, n int, short int32) *pb.NetMessageServerFrameStats {
		m := &pb.NetMessageServerFrameStats{FirstLoopFrame: first}
		for range n {
			m.DurationMicros = append(m.DurationMicros, 1)
			m.LatenessMicros = append(m.LatenessMicros, 0)
		}
		for _, id := range []int32{2, 0, 1} {
			r := &pb.NetStructRegionTiming{RegionId: id}
			for i := range n {
				if id == short && i >= n/2 {
					break
				}
				r.DurationMicros = append(r.DurationMicros, uint32(id)*1000+uint32(first)+uint32(i))
				r.LatenessMicros = append(r.LatenessMicros, uint32(id))
			}
			m.Regions = append(m.Regions, r)
		}
		return m
	}
	c.frames.add(msg(0, 4, -1))
	c.frames.add(msg(2, 4, 1)) // frames 2, 3 again; region 1 only for 2, 3
	got := c.ServerRegionStats(nil, 3)
	want := []RegionFrameStat{
		{2, FrameStat{3, 2003 * time.Microsecond, 2 * time.Microsecond}},
		{0, FrameStat{3, 3 * time.Microsecond, 0}},
		{1, FrameStat{3, 1003 * time.Microsecond, time.Microsecond}},
		{2, FrameStat{4, 2004 * time.Microsecond, 2 * time.Microsecond}},
		{0, FrameStat{4, 4 * time.Microsecond, 0}},
		{2, FrameStat{5, 2005 * time.Microsecond, 2 * time.Microsecond}},
		{0, FrameStat{5, 5 * time.Microsecond, 0}},
	}
	if !slices.Equal(got, want) {
		t.Errorf("region stats from frame 3:\n got %v\nwant %v", got, want)
	}
}
