package gameserver

import (
	"fmt"
	"strings"
	"testing"
)

// errorRecorder is a goleak.TestingT that keeps what a check reports.
type errorRecorder struct{ errs []string }

func (r *errorRecorder) Error(args ...any) { r.errs = append(r.errs, fmt.Sprint(args...)) }

// goPark starts a goroutine of this package (not of a test function) that blocks
// until release is closed.
func goPark(release <-chan struct{}) { go parkUntil(release) }

func parkUntil(release <-chan struct{}) { <-release }

// TestLeakCheckWaitsForExitingGoroutines: a goroutine that has been told to end but
// has not yet returned when the check starts is not a leak. A single snapshot of the
// goroutines reported it (TestLiveEditRefusesConst failed so on a fresh clone, with
// the goroutine in runtime.goexit1).
func TestLeakCheckWaitsForExitingGoroutines(t *testing.T) {
	for range 20 {
		verify := leakCheck()
		release := make(chan struct{})
		goPark(release)
		close(release)
		var r errorRecorder
		verify(&r)
		if len(r.errs) != 0 {
			t.Fatalf("an exiting goroutine was reported as a leak:\n%s", r.errs)
		}
	}
}

// TestLeakCheckReportsALeak: a goroutine still blocked after the check's retries is
// reported, and one that ran before the snapshot is not.
func TestLeakCheckReportsALeak(t *testing.T) {
	before := make(chan struct{})
	defer close(before)
	goPark(before)
	verify := leakCheck()
	release := make(chan struct{})
	defer close(release)
	goPark(release)
	var r errorRecorder
	verify(&r)
	report := strings.Join(r.errs, "\n")
	if got := strings.Count(report, "Goroutine "); got != 1 || !strings.Contains(report, "gameserver.parkUntil") {
		t.Fatalf("%d goroutines reported, want 1 in parkUntil (the one started after the snapshot): %s", got, report)
	}
}
