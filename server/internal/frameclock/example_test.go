package frameclock_test

import (
	"fmt"
	"time"

	"github.com/twinframe/twinframe/server/internal/frameclock"
)

// A caller with its own loop (a browser's animation frame, say) asks how many
// frames are due and steps them; the server uses Run instead.
func ExampleDriver_Due() {
	clock := &fakeClock{}
	d := frameclock.New(clock, frameclock.Config{}) // 20 Hz, catch up at most 3 frames
	for _, at := range []time.Duration{0, 30, 120, 400} {
		clock.now = at * time.Millisecond
		due := d.Due(clock.now)
		for i := 0; i < due; i++ {
			d.Step(func(uint64) error { return nil }, due-i)
		}
		fmt.Printf("t=%3dms ran %d, next frame %d, dropped %d\n", at, due, d.Frame(), d.Dropped())
	}
	// Output:
	// t=  0ms ran 1, next frame 1, dropped 0
	// t= 30ms ran 0, next frame 1, dropped 0
	// t=120ms ran 2, next frame 3, dropped 0
	// t=400ms ran 3, next frame 6, dropped 3
}
