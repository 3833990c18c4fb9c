package replica

import (
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
)

func TestInterpolate(t *testing.T) {
	e := &entity{samples: []sample{
		{frame: 10, pos: mgl32.Vec2{0, 0}, moving: true},
		{frame: 11, pos: mgl32.Vec2{1, 0}, moving: true},
		{frame: 12, pos: mgl32.Vec2{2, 0}, yaw: 1},
		{frame: 16, pos: mgl32.Vec2{2, 1}, yaw: 1, moving: true},
	}}
	tests := []struct {
		t            float64
		pos          mgl32.Vec2
		extra, held  bool
		newest       uint64
		extrapolated float64
	}{
		{t: 9, pos: mgl32.Vec2{0, 0}},
		{t: 10.5, pos: mgl32.Vec2{0.5, 0}},
		{t: 13.5, pos: mgl32.Vec2{2, 0}},                                        // held between samples
		{t: 15.5, pos: mgl32.Vec2{2, 0.5}},                                      // starts moving again
		{t: 17, pos: mgl32.Vec2{2, 2}, extra: true},                             // one frame past the newest
		{t: 20, pos: mgl32.Vec2{2, 3}, extra: true, held: true},                 // capped at 2 frames
		{t: 16.5, pos: mgl32.Vec2{2, 1}, newest: 18, extra: false},              // newest 18: it stood still at 17, 18
		{t: 19.5, pos: mgl32.Vec2{2, 1}, newest: 18, extra: false, held: false}, // not moving: no extrapolation
	}
	for _, tc := range tests {
		newest := tc.newest
		if newest == 0 {
			newest = 16
		}
		if tc.t == 19.5 {
			e.samples[3].moving = false
		}
		pos, _, extra, held := e.interpolate(tc.t, newest, 2)
		if pos.Sub(tc.pos).Len() > 1e-6 || extra != tc.extra || held != tc.held {
			t.Errorf("t=%v newest %d: %v extra %v held %v, want %v %v %v", tc.t, newest, pos, extra, held, tc.pos, tc.extra, tc.held)
		}
	}
	if y := lerpAngle(3, -3, 0.5); y < 3.1 && y > -3.1 {
		t.Errorf("yaw interpolation took the long way: %v", y)
	}
}

func TestClock(t *testing.T) {
	var c Clock
	if c.Started() {
		t.Fatal("started")
	}
	c.Frame(0, 100) // frame 100 arrives at client time 0
	if got := c.ServerFrame(0); got != 100 {
		t.Fatalf("anchored at %v", got)
	}
	// Pings with a 200 ms RTT and a server 2 frames further than the anchor said.
	for i := range 20 {
		sent := FrameDuration * 10 * time.Duration(i)
		jitter := FrameDuration * time.Duration(i%3) / 4
		c.Pong(sent, sent+4*FrameDuration+jitter, 102+uint64(i)*10+2)
	}
	if rtt := c.RTT(); rtt < 4*FrameDuration || rtt > 5*FrameDuration {
		t.Errorf("rtt %v", rtt)
	}
	// At client time 0 the server was at about frame 102.5 (the lowest-RTT samples).
	if got := c.ServerFrame(0); got < 102 || got > 103 {
		t.Errorf("server frame estimate %v, want about 102.5", got)
	}
	lead := c.TargetFrame(0) - c.ServerFrame(0)
	if lead < 3 || lead > 3.5 {
		t.Errorf("lead %v frames, want half the RTT (2+) plus 1", lead)
	}
}

// A paused server: frames stop advancing, the estimate is pulled back to them, and
// stale ping samples do not push it forward again.
func TestClockFollowsPause(t *testing.T) {
	var c Clock
	for i := range 10 {
		now := FrameDuration * 20 * time.Duration(i)
		c.Pong(now, now+2*FrameDuration, 100+uint64(i)*20+1)
		c.Frame(now+2*FrameDuration, 100+uint64(i)*20+1)
	}
	at := FrameDuration * 200
	if got := c.ServerFrame(at); got < 299 || got > 303 {
		t.Fatalf("estimate %v before the pause", got)
	}
	// Paused at frame 300 for 5 s; packets (frame 300) keep coming.
	for i := range 100 {
		now := at + FrameDuration*time.Duration(i)
		c.Paused(now, 300)
	}
	end := at + 100*FrameDuration
	if got := c.ServerFrame(end); got > 302.5 { // 300 + half the RTT + the frame since the last packet
		t.Fatalf("estimate %v after a 5 s pause at frame 300", got)
	}
	c.Pong(end-2*FrameDuration, end, 300)
	if got := c.ServerFrame(end); got > 302 {
		t.Fatalf("estimate %v after a pong in the pause", got)
	}
}
