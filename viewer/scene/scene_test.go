package scene

import (
	"slices"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/debugdraw/debugdrawtest"
	"github.com/twinframe/twinframe/shared/sim"
)

func TestOverlayNames(t *testing.T) {
	seen := map[string]bool{}
	for _, o := range AllOverlays() {
		n := o.Name()
		if n == "" || seen[n] {
			t.Fatalf("overlay %d: name %q", o, n)
		}
		seen[n] = true
		got, err := parseOverlay(n)
		if err != nil || got != o {
			t.Errorf("parseOverlay(%q) = %v, %v", n, got, err)
		}
	}
	if _, err := parseOverlay("nope"); err == nil {
		t.Error("parseOverlay accepted an unknown name")
	}
	if (ovNavmesh | ovPaths).String() != "navmesh paths" {
		t.Errorf("String = %q", (ovNavmesh | ovPaths).String())
	}
}

func TestSeries(t *testing.T) {
	s := newSeries("x", "ms", 3)
	for i := 1; i <= 5; i++ {
		s.Add(float32(i))
	}
	if s.Len() != 3 || s.At(0) != 3 || s.Last() != 5 || s.Max() != 5 {
		t.Errorf("ring: len %d, first %v, last %v, max %v", s.Len(), s.At(0), s.Last(), s.Max())
	}
}

func testLocal(t *testing.T) *local {
	t.Helper()
	l, err := newLocal(LocalOptions{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// run advances the source's clock by d in viewer ticks of 1/60 s.
func run(l *local, from, d time.Duration) time.Duration {
	for now := from; now <= from+d; now += time.Second / 60 {
		l.Update(now)
	}
	return from + d
}

func TestLocalClock(t *testing.T) {
	l := testLocal(t)
	now := run(l, 0, time.Second)
	if f := l.Status().Frame; f < 19 || f > 20 {
		t.Fatalf("after 1 s: frame %d, want 20", f)
	}
	// A stall of 10 s steps at most maxCatchUp frames and drops the backlog.
	before := l.Status().Frame
	now += 10 * time.Second
	l.Update(now)
	if got := l.Status().Frame - before; got != maxCatchUp {
		t.Fatalf("after a stall: %d frames, want %d", got, maxCatchUp)
	}
	now = run(l, now, 500*time.Millisecond)
	if got := l.Status().Frame - before; got < maxCatchUp+9 || got > maxCatchUp+10 {
		t.Fatalf("the clock did not resume after the stall: %d frames", got)
	}
	// Pause, step, resume.
	l.Do(Command{Kind: Pause})
	f := l.Status().Frame
	now = run(l, now, time.Second)
	if l.Status().Frame != f || !l.Status().Paused {
		t.Fatalf("paused game ran: %d → %d", f, l.Status().Frame)
	}
	l.Do(Command{Kind: Step})
	if l.Status().Frame != f+1 {
		t.Fatalf("step: frame %d, want %d", l.Status().Frame, f+1)
	}
	l.Do(Command{Kind: Resume})
	run(l, now, time.Second)
	if got := l.Status().Frame; got < f+20 {
		t.Fatalf("resumed game at frame %d, want ≥ %d", got, f+20)
	}
	if l.Graphs()[1].Len() == 0 {
		t.Error("no step times recorded")
	}
}

func TestLocalMoveArrives(t *testing.T) {
	l := testLocal(t)
	st := l.Status()
	if st.AvatarID == 0 || st.Mode != "local" || !st.Connected {
		t.Fatalf("status %+v", st)
	}
	start := mgl32.Vec2{st.Avatar[0], st.Avatar[1]}
	goal := start.Add(mgl32.Vec2{12, -6})
	if err := l.Do(Command{Kind: cmdMoveTo, Point: goal}); err != nil {
		t.Fatal(err)
	}
	run(l, 0, 8*time.Second)
	st = l.Status()
	if got := (mgl32.Vec2{st.Avatar[0], st.Avatar[1]}); got.Sub(goal).Len() > 0.5 {
		t.Fatalf("avatar at %v, want near %v", got, goal)
	}
	if err := l.Do(Command{Kind: cmdFire, Point: start}); err != nil {
		t.Fatal(err)
	}
	if err := l.Do(Command{Kind: 99}); err == nil {
		t.Error("unknown command accepted")
	}
}

func TestLocalPickAndInspect(t *testing.T) {
	l := testLocal(t)
	st := l.Status()
	id := l.Pick(mgl32.Vec2{st.Avatar[0] + 0.2, st.Avatar[1]})
	if id != st.AvatarID {
		t.Fatalf("Pick near the avatar = %d, want %d", id, st.AvatarID)
	}
	fields := l.Inspect(id)
	get := func(name string) string {
		for _, f := range fields {
			if f.Name == name {
				return f.Value
			}
		}
		t.Fatalf("no field %q in %v", name, fields)
		return ""
	}
	if get("id") == "" {
		t.Fatal("empty id")
	}
	if got := get("prototype name"); got != "avatar" {
		t.Errorf("prototype name %q", got)
	}
	get("pos(0)")
	get("seed") // deity view
	get("collision")
	if l.Inspect(1<<40) != nil {
		t.Error("Inspect of a missing entity returned fields")
	}
	if l.Pick(mgl32.Vec2{-100, -100}) != 0 {
		t.Error("Pick outside the world found an entity")
	}
}

// Each overlay changes what is drawn, alone and on top of the others.
func TestOverlaysChangeDrawing(t *testing.T) {
	l := testLocal(t)
	// Make paths, sweeps and events exist.
	st := l.Status()
	l.Do(Command{Kind: cmdMoveTo, Point: mgl32.Vec2{st.Avatar[0] + 20, st.Avatar[1] - 10}})
	l.Do(Command{Kind: cmdFire, Point: mgl32.Vec2{st.Avatar[0], st.Avatar[1] + 10}})
	run(l, 0, 3*time.Second)
	count := func(ov Overlay) int {
		var r debugdrawtest.Recorder
		l.Draw(&r, ov, 0)
		return len(r.Calls)
	}
	all := count(defaultOverlays)
	for _, o := range AllOverlays() {
		switch o {
		case ovPrediction, ovGraphs, ovEvents:
			continue // nothing to predict in the sandbox; graphs are drawn by the viewer; events may be none
		case ovEdges:
			if count(defaultOverlays|ovEdges) <= all {
				t.Error("edges add nothing")
			}
			continue
		case ovLabels:
			if count(ovEntities|ovLabels) <= count(ovEntities) {
				t.Error("labels add nothing to entities")
			}
			continue
		}
		if n := count(o); n == 0 {
			t.Errorf("overlay %s alone draws nothing", o.Name())
		}
		if n := count(defaultOverlays &^ o); n >= all {
			t.Errorf("turning %s off does not reduce drawing (%d ≥ %d)", o.Name(), n, all)
		}
	}
	if count(0) != 0 {
		t.Error("no overlays still draws")
	}
}

// The sandbox is the simulation: two sources with the same seed and commands agree.
func TestLocalDeterministic(t *testing.T) {
	a, b := testLocal(t), testLocal(t)
	for _, l := range []*local{a, b} {
		l.Do(Command{Kind: cmdMoveTo, Point: mgl32.Vec2{40, 150}})
		run(l, 0, 2*time.Second)
		l.Do(Command{Kind: Pause})
		for l.Status().Frame < 60 {
			l.Do(Command{Kind: Step})
		}
	}
	if a.Game().StateHash() != b.Game().StateHash() {
		t.Error("two sandboxes with the same seed and inputs differ")
	}
	if !slices.Equal(a.Log(), b.Log()) {
		t.Error("logs differ")
	}
	_ = sim.FrameRate
}

// The sandbox records the session: seeking back replays it to exactly the same state,
// and acting in the past starts a new future.
func TestLocalRecordAndSeek(t *testing.T) {
	l := testLocal(t)
	l.Do(Command{Kind: Pause})
	hashes := map[uint64]uint64{}
	st := l.Status()
	start := mgl32.Vec2{st.Avatar[0], st.Avatar[1]}
	for l.Status().Frame < 260 {
		switch l.Status().Frame {
		case 10:
			l.Do(Command{Kind: cmdMoveTo, Point: start.Add(mgl32.Vec2{10, -5})})
		case 60:
			l.Do(Command{Kind: cmdFire, Point: start.Add(mgl32.Vec2{0, 10})})
		case 150:
			l.Do(Command{Kind: cmdMoveTo, Point: start})
		}
		hashes[l.Status().Frame] = l.Game().StateHash()
		l.Do(Command{Kind: Step})
	}
	hashes[l.Status().Frame] = l.Game().StateHash()
	if got := l.Status().Recorded; got != 260 {
		t.Fatalf("recorded %d frames, want 260", got)
	}
	for _, f := range []uint64{0, 11, 61, 99, 100, 155, 250, 260, 5} {
		if err := l.Do(Command{Kind: cmdSeek, Frame: f}); err != nil {
			t.Fatal(err)
		}
		if l.Status().Frame != f || !l.Status().Paused {
			t.Fatalf("seek %d: at frame %d, paused %v", f, l.Status().Frame, l.Status().Paused)
		}
		if got := l.Game().StateHash(); got != hashes[f] {
			t.Errorf("seek %d: state hash %x, recorded %x", f, got, hashes[f])
		}
	}
	// Stepping from a seek replays the recorded input at frame 10.
	l.Do(Command{Kind: cmdSeek, Frame: 9})
	for range 3 {
		l.Do(Command{Kind: Step})
	}
	if got := l.Game().StateHash(); got != hashes[12] {
		t.Errorf("stepping through a recorded input: hash %x, want %x", got, hashes[12])
	}
	// A command in the past truncates the recording there.
	l.Do(Command{Kind: cmdMoveTo, Point: start.Add(mgl32.Vec2{-3, -3})})
	if got := l.Status().Recorded; got != 12 {
		t.Errorf("after acting at frame 12 the recording ends at %d", got)
	}
	if err := l.Do(Command{Kind: cmdSeek, Frame: 200}); err != nil || l.Status().Frame != 12 {
		t.Errorf("seek past the new end: frame %d, %v", l.Status().Frame, err)
	}
}
