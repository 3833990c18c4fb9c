package loadtest

import (
	"sync"
	"time"

	"github.com/twinframe/twinframe/internal/cputime"
	"github.com/twinframe/twinframe/server/internal/frameclock"
)

// frameCPU measures each frame's CPU time on the frame loop's thread, through
// gameserver.Config.FrameStart and FrameWork, when the loop's goroutine is
// locked to its thread. Unlike a frame's wall duration it does not grow when
// other processes take the cores: on a shared machine it says what the frame
// costs, where the duration says what it took.
type frameCPU struct {
	start   time.Duration // loop goroutine only
	startOK bool

	mu  sync.Mutex
	cpu map[uint64]time.Duration // by loop frame
}

func newFrameCPU() *frameCPU { return &frameCPU{cpu: map[uint64]time.Duration{}} }

func (f *frameCPU) frameStart(uint64) { f.start, f.startOK = cputime.Thread() }

// frameEnd runs after the frame's replication (before any injected work).
func (f *frameCPU) frameEnd(frame uint64) {
	end, ok := cputime.Thread()
	if !f.startOK || !ok {
		return
	}
	f.mu.Lock()
	f.cpu[frame] = end - f.start
	f.mu.Unlock()
}

// of returns the CPU times of the frames reported (those measured).
func (f *frameCPU) of(reports []frameclock.Report) []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []time.Duration
	for _, r := range reports {
		if d, ok := f.cpu[r.Frame]; ok {
			out = append(out, d)
		}
	}
	return out
}
