package navi

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/internal/cputime"

	"github.com/twinframe/twinframe/shared/geom"
)

// benchGeometry is a 3×3-cell region (cells of 1000×1000 units, each a
// walkable square sharing its edges with its neighbours) with 300 obstacles
// of 10 to 22 vertices scattered over it; the result has about 10k triangles.
func benchGeometry(seed uint64) Geometry {
	r := rand.New(rand.NewPCG(seed, 7))
	const cell = 1000
	g := Geometry{Bounds: geom.AABB{Max: mgl32.Vec2{3 * cell, 3 * cell}}}
	for y := 0; y < 3; y++ {
		for x := 0; x < 3; x++ {
			g.Polygons = append(g.Polygons, rect(Walkable, float32(x*cell), float32(y*cell), float32((x+1)*cell), float32((y+1)*cell)))
		}
	}
	for i := 0; i < 300; i++ {
		c := mgl32.Vec2{60 + float32(r.Float32()*(3*cell-120)), 60 + float32(r.Float32()*(3*cell-120))}
		k := 10 + r.IntN(13)
		rad := 15 + float32(35*r.Float32())
		pts := make([]mgl32.Vec2, k)
		for j := range pts {
			// Angles from a table (no trigonometry, whose last bits may
			// differ between platforms): vertex j in slot j*64/k + jitter.
			d := unitDirs[(j*64/k+r.IntN(max(1, 64/k-1)))%64]
			rr := float32(rad * (0.7 + float32(0.3*r.Float32())))
			pts[j] = mgl32.Vec2{c[0] + float32(rr*d[0]), c[1] + float32(rr*d[1])}
		}
		g.Polygons = append(g.Polygons, Polygon{Kind: Obstacle, Points: pts})
	}
	return g
}

func BenchmarkBuild3x3Cells300Obstacles(b *testing.B) {
	g := benchGeometry(1)
	b.ReportAllocs()
	var m *Mesh
	for b.Loop() {
		var err error
		m, err = Build(g, nil)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(m.tris)), "triangles")
}

var benchMesh = sync.OnceValue(func() *Mesh {
	m, err := Build(benchGeometry(1), nil)
	if err != nil {
		panic(err)
	}
	return m
})

// benchPairs returns n start/goal pairs where a disc of radius r fits.
func benchPairs(m *Mesh, n int, r float32, maxLen float32) [][2]mgl32.Vec2 {
	rnd := rand.New(rand.NewPCG(42, 42))
	ext := m.Bounds().Max
	pt := func() mgl32.Vec2 {
		for {
			p := mgl32.Vec2{rnd.Float32() * ext[0], rnd.Float32() * ext[1]}
			if m.Contains(p, r, Walk) {
				return p
			}
		}
	}
	out := make([][2]mgl32.Vec2, 0, n)
	for len(out) < n {
		a := pt()
		b := pt()
		if maxLen > 0 {
			u, _ := geom.Unit(geom.Sub(b, a))
			b = geom.Axpy(a, u, maxLen*rnd.Float32())
		}
		out = append(out, [2]mgl32.Vec2{a, b})
	}
	return out
}

func reportPercentiles(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	us := func(q float64) float64 { return float64(d[int(q*float64(len(d)-1))].Nanoseconds()) / 1000 }
	b.ReportMetric(us(0.5), "median-µs")
	b.ReportMetric(us(0.99), "p99-µs")
}

// timed returns the time f takes: the thread's CPU time where the OS has a
// clock for it (Linux), else wall time.
func timed(f func()) time.Duration {
	c0, cpu := cputime.Thread()
	t0 := time.Now()
	f()
	el := time.Since(t0)
	if c1, _ := cputime.Thread(); cpu {
		el = c1 - c0
	}
	return el
}

// clockCost returns what timed measures of nothing (the median of many tries):
// the thread's CPU clock is a system call, ≈ 0.8 µs on the development VM,
// most of it inside the interval it times, which a per-query figure of ≈ 15 µs
// must not count.
func clockCost() time.Duration {
	d := make([]time.Duration, 4096)
	for i := range d {
		d[i] = timed(func() {})
	}
	slices.Sort(d)
	return d[len(d)/2]
}

// BenchmarkPath3x3Cells300Obstacles: random start/goal pairs anywhere in
// the region (paths up to ~4000 units, a median corridor of ~80
// triangles), agent radius 0.5. median-µs and p99-µs are per-query times
// measured with the thread's CPU clock where the OS has one (Linux), so
// other load on a shared machine does not inflate them, net of the clock's
// own cost (clock-µs, see clockCost); ns/op is wall time, clocks included.
// expanded/op and corridor/op are the mean triangles expanded and crossed.
// For repeatable figures count instructions instead, e.g. valgrind
// --tool=callgrind --toggle-collect='*FindPath' on the test binary with
// GODEBUG=asyncpreemptoff=1 (callgrind mishandles the preemption signal).
func BenchmarkPath3x3Cells300Obstacles(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	m := benchMesh()
	pairs := benchPairs(m, 1024, 0.5, 0)
	q := NewQuery(m)
	var p Path
	for _, pr := range pairs[:64] {
		q.FindPath(pr[0], pr[1], 0.5, &p)
	}
	clock := clockCost()
	d := make([]time.Duration, 0, 1<<16)
	i := 0
	expanded, corridor := 0, 0
	b.ReportAllocs()
	for b.Loop() {
		pr := pairs[i%len(pairs)]
		i++
		el := timed(func() { q.FindPath(pr[0], pr[1], 0.5, &p) })
		if len(d) < cap(d) {
			d = append(d, max(el-clock, 0))
		}
		expanded += p.Expanded
		corridor += len(p.Corridor)
	}
	reportPercentiles(b, d)
	b.ReportMetric(float64(clock.Nanoseconds())/1000, "clock-µs")
	if i > 0 {
		b.ReportMetric(float64(expanded)/float64(i), "expanded/op")
		b.ReportMetric(float64(corridor)/float64(i), "corridor/op")
	}
}

// BenchmarkSweep3x3Cells300Obstacles: one frame of movement (up to 20
// units) of a disc of radius 0.5, with the slide.
func BenchmarkSweep3x3Cells300Obstacles(b *testing.B) {
	m := benchMesh()
	pairs := benchPairs(m, 1024, 0.5, 20)
	q := NewQuery(m)
	var s SweepResult
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		pr := pairs[i%len(pairs)]
		i++
		q.Sweep(pr[0], pr[1], 0.5, Walk, &s)
	}
}

func BenchmarkLocate3x3Cells300Obstacles(b *testing.B) {
	m := benchMesh()
	pairs := benchPairs(m, 1024, 0, 0)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		m.Locate(pairs[i%len(pairs)][0])
		i++
	}
}

func BenchmarkContains3x3Cells300Obstacles(b *testing.B) {
	m := benchMesh()
	pairs := benchPairs(m, 1024, 0, 0)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		m.Contains(pairs[i%len(pairs)][0], 1, Walk)
		i++
	}
}

// unitDirs[i] is the unit vector at angle 2πi/64.
var unitDirs = [64][2]float32{
	{1.0, 0.0},
	{0.9951847, 0.0980171},
	{0.9807853, 0.1950903},
	{0.9569403, 0.2902847},
	{0.9238795, 0.3826834},
	{0.8819213, 0.4713967},
	{0.8314696, 0.5555702},
	{0.7730105, 0.6343933},
	{0.7071068, 0.7071068},
	{0.6343933, 0.7730105},
	{0.5555702, 0.8314696},
	{0.4713967, 0.8819213},
	{0.3826834, 0.9238795},
	{0.2902847, 0.9569403},
	{0.1950903, 0.9807853},
	{0.0980171, 0.9951847},
	{0.0, 1.0},
	{-0.0980171, 0.9951847},
	{-0.1950903, 0.9807853},
	{-0.2902847, 0.9569403},
	{-0.3826834, 0.9238795},
	{-0.4713967, 0.8819213},
	{-0.5555702, 0.8314696},
	{-0.6343933, 0.7730105},
	{-0.7071068, 0.7071068},
	{-0.7730105, 0.6343933},
	{-0.8314696, 0.5555702},
	{-0.8819213, 0.4713967},
	{-0.9238795, 0.3826834},
	{-0.9569403, 0.2902847},
	{-0.9807853, 0.1950903},
	{-0.9951847, 0.0980171},
	{-1.0, 0.0},
	{-0.9951847, -0.0980171},
	{-0.9807853, -0.1950903},
	{-0.9569403, -0.2902847},
	{-0.9238795, -0.3826834},
	{-0.8819213, -0.4713967},
	{-0.8314696, -0.5555702},
	{-0.7730105, -0.6343933},
	{-0.7071068, -0.7071068},
	{-0.6343933, -0.7730105},
	{-0.5555702, -0.8314696},
	{-0.4713967, -0.8819213},
	{-0.3826834, -0.9238795},
	{-0.2902847, -0.9569403},
	{-0.1950903, -0.9807853},
	{-0.0980171, -0.9951847},
	{0.0, -1.0},
	{0.0980171, -0.9951847},
	{0.1950903, -0.9807853},
	{0.2902847, -0.9569403},
	{0.3826834, -0.9238795},
	{0.4713967, -0.8819213},
	{0.5555702, -0.8314696},
	{0.6343933, -0.7730105},
	{0.7071068, -0.7071068},
	{0.7730105, -0.6343933},
	{0.8314696, -0.5555702},
	{0.8819213, -0.4713967},
	{0.9238795, -0.3826834},
	{0.9569403, -0.2902847},
	{0.9807853, -0.1950903},
	{0.9951847, -0.0980171},
}

func TestBenchGeometryValid(t *testing.T) {
	t.Parallel()
	m := benchMesh()
	if err := Validate(m); err != nil {
		t.Fatal(err)
	}
	if n := len(m.Triangles()); n < 9000 || n > 11000 {
		t.Errorf("bench mesh has %d triangles, want about 10k", n)
	}
}
