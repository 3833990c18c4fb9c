package navi

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/twinframe/twinframe/shared/geom"
)

// goldenHash is the hash of a build and a run of queries on it; the test
// runs natively and under GOOS=js GOARCH=wasm, and both must produce it
// (docs/ARCHITECTURE.md §6). GOAMD64=v3 go test checks that no fused multiply-add
// changes a result (the compiler fuses a*b+c there, as on arm64). Update
// it only for an intended change of results.
const goldenHash = "32331d1ba4e7b09b"

func TestDeterminismHash(t *testing.T) {
	t.Parallel()
	h := fnv.New64a()
	var buf [4]byte
	f32 := func(x float32) {
		binary.LittleEndian.PutUint32(buf[:], math.Float32bits(x))
		h.Write(buf[:])
	}
	i32 := func(x int32) {
		binary.LittleEndian.PutUint32(buf[:], uint32(x))
		h.Write(buf[:])
	}
	m, err := Build(benchGeometry(7), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range m.Vertices() {
		f32(v[0])
		f32(v[1])
	}
	for _, tr := range m.Triangles() {
		for k := 0; k < 3; k++ {
			i32(tr.V[k])
			i32(tr.N[k])
		}
		i32(int32(tr.Flags))
	}
	for _, w := range m.width {
		f32(w[0])
		f32(w[1])
		f32(w[2])
	}
	m.AddBlackOutZone(mgl32.Vec2{1500, 1500}, 400)
	f32(m.SpawnableArea(m.Bounds()))
	q := NewQuery(m)
	var p Path
	var s SweepResult
	for _, pr := range benchPairs(m, 200, 0.5, 0) {
		q.FindPath(pr[0], pr[1], 0.5, &p)
		i32(int32(p.Status))
		for _, c := range p.Points {
			f32(c[0])
			f32(c[1])
		}
		u, _ := geom.Unit(geom.Sub(pr[1], pr[0]))
		q.Sweep(pr[0], geom.Axpy(pr[0], u, 40), 0.75, Walk, &s)
		f32(s.Contact.T)
		f32(s.End[0])
		f32(s.End[1])
		if m.LineOfSight(pr[0], pr[1], Sight) {
			i32(1)
		}
	}
	got := fmt.Sprintf("%016x", h.Sum64())
	if got != goldenHash {
		t.Errorf("determinism hash %s, want %s", got, goldenHash)
	}
}
