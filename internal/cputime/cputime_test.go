package cputime

import (
	"runtime"
	"testing"
)

// burn does work the compiler cannot remove.
func burn(n int) uint64 {
	x := uint64(1)
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

var sink uint64

// TestAdvances: both clocks move forward while this goroutine computes (a CPU clock
// that stood still or ran backwards would make every reported figure wrong).
func TestAdvances(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p0 := Process()
	t0, ok := Thread()
	if runtime.GOOS == "linux" && !ok {
		t.Fatal("thread CPU time unreadable on linux")
	}
	advanced := func() bool {
		t1, _ := Thread()
		return Process() > p0 && (!ok || t1 > t0)
	}
	for i := 0; i < 1000 && !advanced(); i++ {
		sink += burn(1 << 16)
	}
	if p1 := Process(); runtime.GOOS != "js" && runtime.GOOS != "wasip1" && p1 <= p0 {
		t.Errorf("process CPU time %v -> %v after work", p0, p1)
	}
	if t1, _ := Thread(); ok && t1 <= t0 {
		t.Errorf("thread CPU time %v -> %v after work", t0, t1)
	}
}
