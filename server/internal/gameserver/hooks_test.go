package gameserver

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// OnFrame sees every stepped frame, in order, on the frame loop, with the game
// after the step; a paused frame is not shown.
func TestOnFrame(t *testing.T) {
	checkLeaks(t)
	var mu sync.Mutex
	var frames []uint64
	var bad []string
	s := startServer(t, "", func(c *Config) {
		c.Period = 5 * time.Millisecond
		c.OnFrame = func(v FrameView) {
			mu.Lock()
			defer mu.Unlock()
			if len(v.Games) != 3 {
				bad = append(bad, fmt.Sprintf("%d games in the view, want the default world's 3 regions", len(v.Games)))
			}
			for _, g := range v.Games {
				if g.Frame() != v.Frame {
					bad = append(bad, "the view's frame is not the games'")
				}
			}
			frames = append(frames, v.Frame)
		}
	})
	s.waitFrame(t, 10)
	s.inLoop(t, func() { s.paused = true })
	var pausedAt uint64
	s.inLoop(t, func() { pausedAt = s.hub().Frame() })
	// Two more frame boundaries while paused.
	s.inLoop(t, func() {})
	s.inLoop(t, func() {})
	s.stop(t)
	mu.Lock()
	defer mu.Unlock()
	if len(bad) > 0 {
		t.Fatal(bad[0])
	}
	if len(frames) < 10 || frames[len(frames)-1] != pausedAt {
		t.Fatalf("frames seen %v, paused at %d", frames, pausedAt)
	}
	for i, f := range frames {
		if f != uint64(i+1) {
			t.Fatalf("frame %d seen as number %d: %v", f, i+1, frames)
		}
	}
}
