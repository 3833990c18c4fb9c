package scene

import (
	"runtime"
	"testing"
	"time"

	"github.com/twinframe/twinframe/internal/cputime"
)

// BenchmarkBuildDefaultWorld builds one page frame's draw list (View.Build) of the
// sandbox's default world, its population walking, with every overlay on, the whole
// region in view and the graphs full: what the page does each frame besides the
// simulation. The page's budget for it is 4 ms in WebAssembly; run it there with
//
//	PATH=$PATH:$(go env GOROOT)/lib/wasm GOOS=js GOARCH=wasm go test -run '^$' -bench BuildDefaultWorld ./viewer/scene/
func BenchmarkBuildDefaultWorld(b *testing.B) {
	l, err := newLocal(LocalOptions{Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	v := NewView(l)
	for _, o := range AllOverlays() {
		if err := v.SetOverlay(o.Name(), true); err != nil {
			b.Fatal(err)
		}
	}
	v.SetFollow(false)
	var now time.Duration
	v.Tick(now, Input{}, 1280, 800)
	v.Tick(now, Input{Keys: []string{"0"}}, 1280, 800) // fit the region
	for range 30 * 60 {                                // 30 s: paths, sweeps, events and full graphs
		now += time.Second / 60
		v.Tick(now, Input{}, 1280, 800)
	}
	v.Build()
	// CPU time beside wall time: the machines are shared. The thread's where the
	// platform has it; under Node, the process's (single-threaded wasm, plus the
	// host's helpers).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ReportAllocs()
	t0, threadOK := cputime.Thread()
	p0 := cputime.Process()
	n := 0
	for b.Loop() {
		v.Build()
		n++
	}
	t1, _ := cputime.Thread()
	switch p1 := cputime.Process(); {
	case n == 0:
	case threadOK:
		b.ReportMetric(float64((t1-t0).Nanoseconds())/float64(n), "cpu-ns/op")
	case p1 > p0:
		b.ReportMetric(float64((p1-p0).Nanoseconds())/float64(n), "cpu-ns/op")
	}
	st := v.Snapshot()
	b.ReportMetric(float64(st.Triangles), "tris/frame")
	b.ReportMetric(float64(st.Entities), "entities")
}
