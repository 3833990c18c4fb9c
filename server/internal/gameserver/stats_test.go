package gameserver

import (
	"testing"
	"time"

	"github.com/twinframe/twinframe/server/internal/frameclock"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
)

// Every session, player or deity, receives the loop's frame timings about once a
// second: consecutive messages cover consecutive loop frames, and the figures are
// the loop's own reports.
func TestSessionsReceiveFrameStats(t *testing.T) {
	checkLeaks(t)
	s := startServer(t, "", func(c *Config) { c.NoPopulation = true })
	token := testToken
	player, deity := dial(t, s.url, dialOpt{}), dial(t, s.url, dialOpt{})
	player.login("player", nil)
	deity.login("deity", &token)
	for _, c := range []*client{player, deity} {
		var got []*pb.NetMessageServerFrameStats
		deadline := time.Now().Add(wait)
		for len(got) < 2 && time.Now().Before(deadline) {
			for _, m := range c.next(wait) {
				if m, ok := m.(*pb.NetMessageServerFrameStats); ok {
					got = append(got, m)
				}
			}
		}
		if len(got) < 2 {
			t.Fatalf("%d frame stats messages in %v", len(got), wait)
		}
		a, b := got[0], got[1]
		if n := len(a.DurationMicros); n != StatsEvery || len(a.LatenessMicros) != n {
			t.Errorf("%d durations and %d lateness samples, want %d each", n, len(a.LatenessMicros), StatsEvery)
		}
		if b.FirstLoopFrame != a.FirstLoopFrame+uint64(len(a.DurationMicros)) {
			t.Errorf("second message starts at loop frame %d, want %d", b.FirstLoopFrame, a.FirstLoopFrame+uint64(len(a.DurationMicros)))
		}
		if a.PeriodMicros != uint32(s.cfg.Period/time.Microsecond) {
			t.Errorf("period %d µs, want %v", a.PeriodMicros, s.cfg.Period)
		}
		if size := protocol.SizeMessage(b); size > 256 {
			t.Errorf("a second of stats takes %d bytes on the wire", size)
		} else {
			t.Logf("a second of stats: %d bytes on the wire", size)
		}
		// The ring holds 200 frames (10 s): b's frames are still in it.
		var want []frameclock.Report
		s.inLoop(t, func() {
			s.timings.mu.Lock()
			defer s.timings.mu.Unlock()
			for f := b.FirstLoopFrame; f < b.FirstLoopFrame+uint64(len(b.DurationMicros)); f++ {
				want = append(want, s.timings.r[f%uint64(len(s.timings.r))])
			}
		})
		for i, r := range want {
			if r.Frame != b.FirstLoopFrame+uint64(i) || b.DurationMicros[i] != micros(r.Duration) || b.LatenessMicros[i] != micros(r.Lateness) {
				t.Fatalf("sample %d: frame %d, %d µs late %d µs; the loop reported %+v", i, b.FirstLoopFrame+uint64(i),
					b.DurationMicros[i], b.LatenessMicros[i], r)
			}
		}
	}
}

func TestStatsSince(t *testing.T) {
	t.Parallel()
	var ring timingRing
	sent := 0
	// More regions than a message carries timings of.
	regions := make([]int32, protocol.MaxRegionTimings+4)
	for i := range regions {
		regions[i] = int32(i * 10)
	}
	add := func(n int) {
		for range n {
			f := uint64(ring.n)
			regs := make([]regionSample, len(regions))
			for k := range regs {
				regs[k] = regionSample{Duration: time.Duration(int(f)+k) * time.Microsecond, Lateness: time.Duration(k) * time.Microsecond}
			}
			ring.add(frameclock.Report{Frame: f, Duration: time.Duration(f) * time.Microsecond, Lateness: 2 * time.Microsecond, Dropped: f / 10}, regs)
		}
	}
	add(StatsEvery - 1)
	if m := ring.statsSince(&sent, StatsEvery, 50*time.Millisecond, regions); m != nil {
		t.Fatalf("a message before %d frames: %v", StatsEvery, m)
	}
	add(1)
	m := ring.statsSince(&sent, StatsEvery, 50*time.Millisecond, regions)
	if m == nil || m.FirstLoopFrame != 0 || len(m.DurationMicros) != StatsEvery || m.DurationMicros[5] != 5 || m.LatenessMicros[5] != 2 ||
		m.PeriodMicros != 50_000 || m.DroppedFrames != uint64(StatsEvery-1)/10 {
		t.Fatalf("first message %v", m)
	}
	if len(m.Regions) != protocol.MaxRegionTimings {
		t.Fatalf("timings of %d regions, want %d", len(m.Regions), protocol.MaxRegionTimings)
	}
	if r := m.Regions[3]; r.RegionId != 30 || len(r.DurationMicros) != StatsEvery || r.DurationMicros[5] != 8 || r.LatenessMicros[5] != 3 {
		t.Fatalf("region timing %v", r)
	}
	// A backlog longer than a message holds: only the newest MaxFrameStats frames.
	add(500)
	m = ring.statsSince(&sent, StatsEvery, 50*time.Millisecond, regions)
	if m == nil || len(m.DurationMicros) != protocol.MaxFrameStats || m.FirstLoopFrame != uint64(ring.n-protocol.MaxFrameStats) ||
		m.DurationMicros[protocol.MaxFrameStats-1] != uint32(ring.n-1) {
		t.Fatalf("after a backlog: %v", m)
	}
	id, b, err := protocol.Marshal(m)
	if info, _ := protocol.Lookup(id); err != nil || len(b) > info.MaxPayload {
		t.Fatalf("a full message: %d bytes, %v", len(b), err)
	}
	if micros(-time.Second) != 0 || micros(time.Hour*2) != 1<<32-1 {
		t.Error("micros does not saturate")
	}
}
