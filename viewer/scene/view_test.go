package scene

import (
	"sync"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/viewer/draw"
)

const tick = time.Second / 60

func newView(t *testing.T) (*View, *local) {
	t.Helper()
	l := testLocal(t)
	v := NewView(l)
	v.Tick(0, Input{}, 800, 600)
	return v, l
}

// ticks runs n viewer frames with the same input (after the first, no presses).
func ticks(v *View, now *time.Duration, n int, in Input) {
	for i := 0; i < n; i++ {
		*now += tick
		v.Tick(*now, in, 800, 600)
		v.Build()
		in.LeftPress, in.LeftUp, in.RightPress, in.Keys, in.Wheel = false, false, false, nil, 0
	}
}

func TestViewClickMovesAvatar(t *testing.T) {
	v, _ := newView(t)
	var now time.Duration
	cam := v.Camera()
	st := v.Snapshot()
	goal := mgl32.Vec2{st.Avatar[0] + 8, st.Avatar[1] + 3}
	x, y := cam.ToScreen(goal)
	ticks(v, &now, 1, Input{X: x, Y: y, LeftPress: true, LeftDown: true})
	ticks(v, &now, 1, Input{X: x, Y: y, LeftUp: true})
	ticks(v, &now, 5*60, Input{X: x, Y: y})
	st = v.Snapshot()
	if d := (mgl32.Vec2{st.Avatar[0], st.Avatar[1]}).Sub(goal).Len(); d > 0.5 {
		t.Fatalf("avatar %v is %.2f m from the clicked point %v", st.Avatar, d, goal)
	}
	if !st.Follow || st.Camera[0] != st.Avatar[0] {
		t.Errorf("camera does not follow: %+v", st)
	}
	if st.Triangles == 0 || st.Ticks == 0 {
		t.Errorf("nothing drawn: %+v", st)
	}
}

func TestViewDragPansAndShiftClickSelects(t *testing.T) {
	v, _ := newView(t)
	var now time.Duration
	before := v.Camera().Center
	ticks(v, &now, 1, Input{X: 100, Y: 100, LeftPress: true, LeftDown: true})
	ticks(v, &now, 1, Input{X: 150, Y: 100, LeftDown: true})
	ticks(v, &now, 1, Input{X: 200, Y: 100, LeftDown: true})
	ticks(v, &now, 1, Input{X: 200, Y: 100, LeftUp: true})
	cam := v.Camera()
	if want := before[0] - 100/cam.Zoom; abs32(cam.Center[0]-want) > 1e-3 {
		t.Errorf("after a 100 px drag the centre is %v, want x %v", cam.Center, want)
	}
	if v.Snapshot().Follow {
		t.Error("dragging did not stop following")
	}
	if s := v.Snapshot(); s.Status.Moving {
		t.Error("a drag moved the avatar")
	}
	st := v.Snapshot()
	x, y := cam.ToScreen(mgl32.Vec2{st.Avatar[0], st.Avatar[1]})
	ticks(v, &now, 1, Input{X: x, Y: y, LeftPress: true, LeftDown: true, Shift: true})
	ticks(v, &now, 1, Input{X: x, Y: y, LeftUp: true, Shift: true})
	if got := v.Snapshot().Selected; got != st.AvatarID {
		t.Fatalf("shift-click on the avatar selected %d, want %d", got, st.AvatarID)
	}
	if len(v.Inspect()) == 0 {
		t.Error("no fields for the selected entity")
	}
}

func TestViewWheelKeysAndToggle(t *testing.T) {
	v, _ := newView(t)
	var now time.Duration
	z := v.Camera().Zoom
	ticks(v, &now, 1, Input{X: 400, Y: 300, Wheel: 2})
	if got := v.Camera().Zoom; got <= z {
		t.Errorf("wheel up: zoom %v → %v", z, got)
	}
	ticks(v, &now, 1, Input{Keys: []string{"n", "space"}})
	s := v.Snapshot()
	for _, o := range s.Overlays {
		if o == "navmesh" {
			t.Error("key n did not turn the navmesh off")
		}
	}
	if !s.Paused {
		t.Error("space did not pause")
	}
	ticks(v, &now, 1, Input{Keys: []string{"period"}})
	if got := v.Snapshot().Frame; got != s.Frame+1 {
		t.Errorf("step key: frame %d, want %d", got, s.Frame+1)
	}
	ticks(v, &now, 1, Input{Keys: []string{"space"}})
	if v.Snapshot().Paused {
		t.Error("space did not resume")
	}
	on, err := v.Toggle("navmesh")
	if err != nil || !on {
		t.Errorf("Toggle(navmesh) = %v, %v", on, err)
	}
	if _, err := v.Toggle("bogus"); err == nil {
		t.Error("Toggle accepted an unknown overlay")
	}
	if err := v.SetOverlay("graphs", false); err != nil || v.Overlays().Has(ovGraphs) {
		t.Errorf("SetOverlay(graphs, false): %v", err)
	}
}

// The control API is safe from other goroutines (the page's callbacks) while the viewer
// ticks; run with -race.
func TestViewConcurrentControl(t *testing.T) {
	v, _ := newView(t)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			v.Toggle("labels")
			v.MoveTo(30, 150)
			_ = v.Snapshot()
			_ = v.LogTail(5)
			_ = v.Inspect()
		}
	}()
	var now time.Duration
	ticks(v, &now, 60, Input{})
	close(stop)
	wg.Wait()
}

func abs32(f float32) float32 {
	if f < 0 {
		return -f
	}
	return f
}

// seekCounter records the seeks that reach its source.
type seekCounter struct {
	Source
	seeks []uint64
}

func (s *seekCounter) Do(c Command) error {
	if c.Kind == cmdSeek {
		s.seeks = append(s.seeks, c.Frame)
	}
	return s.Source.Do(c)
}

// Of a run of seeks queued between two frames (a dragged scrub bar) only the last
// reaches the source; the order with other commands is kept.
func TestViewCoalescesSeeks(t *testing.T) {
	src := &seekCounter{Source: testLocal(t)}
	v := NewView(src)
	var now time.Duration
	ticks(v, &now, 30, Input{})
	v.Seek(5)
	v.Seek(9)
	v.Do(Pause)
	v.Seek(3)
	v.Seek(4)
	ticks(v, &now, 1, Input{})
	if len(src.seeks) != 2 || src.seeks[0] != 9 || src.seeks[1] != 4 {
		t.Errorf("seeks reaching the source: %v, want [9 4]", src.seeks)
	}
	if st := v.Snapshot(); st.Frame != 4 || !st.Paused {
		t.Errorf("after the seeks: frame %d, paused %v", st.Frame, st.Paused)
	}
}

// The page's frame split: the sandbox's update is all simulation, Build is timed, and
// the platform's submit time shows at the next frame; the graph is listed.
func TestViewPageCosts(t *testing.T) {
	v, _ := newView(t)
	var now time.Duration
	ticks(v, &now, 10, Input{}) // frames due: the game steps (with newView's, 11 ticks)
	v.Submitted(3 * time.Millisecond)
	ticks(v, &now, 1, Input{})
	p := v.Snapshot().Page
	if p.SimMS <= 0 || p.ReplicaMS != 0 || p.BuildMS <= 0 || p.SubmitMS != 3 {
		t.Errorf("frame split %+v: want simulation and build time, no replica, the 3 ms submit", p)
	}
	if g := v.Snapshot().Graphs; len(g) == 0 || g[len(g)-1] != pageGraphName {
		t.Errorf("graphs %v: the frame split is not listed", g)
	}
	for _, s := range v.page.series {
		if s.Len() != 12 {
			t.Errorf("series %s has %d samples after 12 ticks", s.Name, s.Len())
		}
	}
}

// A graph draws a segment per pixel column, not per sample, and keeps a one-sample
// spike: the column's largest sample.
func TestGraphLinePerColumnKeepsPeaks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		samples int
	}{{"full", graphFrames}, {"half", graphFrames / 2}, {"few", 3}} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSeries("test", "ms", graphFrames)
			for i := range tc.samples {
				v := float32(1)
				if i == tc.samples/2 {
					v = 10 // the spike
				}
				s.Add(v)
			}
			var v View
			v.list.Reset(draw.NewCamera(800, 600, mgl32.Vec2{}, mgl32.Vec2{10, 10}))
			const x, y = 12, 100
			v.drawLine(s, x, y, s.Max(), colorGraphLine)
			if n := v.list.Triangles(); n > 2*graphW || n == 0 {
				t.Errorf("%d triangles for %d samples: want at most two per column (%d columns)", n, tc.samples, graphW)
			}
			top := float32(y + graphH)
			for _, b := range v.list.Batches() {
				for _, p := range b.Vertices {
					top = min(top, p.DstY)
				}
			}
			if top > y+1 {
				t.Errorf("the line reaches y %v: the spike (top of the graph, y %v) is lost", top, float32(y))
			}
		})
	}
}
