package replica

import (
	"bytes"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/internal/cputime"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
	"github.com/twinframe/twinframe/shared/world"
)

// defaultRegionChange is the region change of the default world.
func defaultRegionChange(t testing.TB) *pb.NetMessageRegionChange {
	t.Helper()
	var files []*pb.NetStructConfigFile
	for _, n := range []string{"10-region.config", "20-polygon.config", "30-prototype.config", "40-marker.config", "50-population.config"} {
		b, err := world.DefaultFiles().Open(n)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		buf.ReadFrom(b)
		files = append(files, &pb.NetStructConfigFile{Name: n, Text: buf.String()})
	}
	sum := protocol.HashConfigFiles(files)
	return &pb.NetMessageRegionChange{RegionId: 0, Tables: files, TablesHash: sum[:], ServerFrame: 100}
}

// The avatar's state is set through the layout sim.Entity.Serialize writes: the
// bytes must be the same as the entity's own replication archive.
func TestEntityArchiveLayout(t *testing.T) {
	w, err := world.LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	g, err := sim.New(w, &sim.Options{NoPopulation: true})
	if err != nil {
		t.Fatal(err)
	}
	id, err := g.Spawn(0, 0, mgl32.Vec2{20, 160}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.MoveAlongPath(id, mgl32.Vec2{60, 150}); err != nil {
		t.Fatal(err)
	}
	for range 7 {
		g.Step()
	}
	e := g.Entity(id)
	want := archive.NewPacker(archive.Replication, archive.Owner)
	want.TransferObject(e)

	got := archive.NewPacker(archive.Replication, archive.Owner)
	var st locomotion.State
	e.LocomotionState(&st, e.ChangedFrame())
	writeEntityHeader(got, uint64(e.ID()), e.Prototype(), e.Region(), e.Owner())
	got.TransferObject(&st)
	no := false
	got.TransferBool(&no)
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("layout differs from sim.Entity.Serialize:\n got % x\nwant % x", got.Bytes(), want.Bytes())
	}
}

// readyReplica returns a replica of the default world holding its avatar at frame
// 100, and the server-side game the avatar came from.
func readyReplica(t testing.TB) (*Replica, *sim.Game, sim.EntityID) {
	t.Helper()
	r := New(nil)
	rc := defaultRegionChange(t)
	w, g, err := BuildWorld(rc)
	if err != nil {
		t.Fatal(err)
	}
	_ = w
	id, err := g.Spawn(0, 0, mgl32.Vec2{20, 160}, 0)
	if err != nil {
		t.Fatal(err)
	}
	p := archive.NewPacker(archive.Replication, archive.Owner)
	p.TransferObject(g.Entity(id))
	r.Receive(0, &pb.NetMessageLoginResult{PlayerEntityId: uint64(id)}, rc)
	r.Receive(0, &pb.NetMessageServerFrame{Frame: 100}, &pb.NetMessageEntityCreate{ArchiveData: p.Bytes()})
	if !r.Ready() {
		t.Fatalf("not ready: %v", r.ResyncReason())
	}
	return r, g, id
}

// BenchmarkReconcile100 measures one correction with 100 unacknowledged inputs:
// the rewind to the server's state and the replay of 100 frames, each with an
// input. Each input is a move, so the replay plans 100 paths (navi FindPath, about
// three quarters of the time; see docs/benchmarks-history.md, "Round 4: why Reconcile100 doubled"): the avatar starts at the centre
// of one of the park's blackout zones and walks among them.
func BenchmarkReconcile100(b *testing.B) {
	r, _, _ := readyReplica(b)
	pts := []mgl32.Vec2{{60, 150}, {30, 120}, {90, 140}, {40, 170}}
	for i := range 100 {
		if _, err := r.MoveTo(0, pts[i%len(pts)]); err != nil {
			b.Fatal(err)
		}
		r.pred.step()
	}
	if n := r.PendingInputs(); n != 100 {
		b.Fatalf("%d pending inputs", n)
	}
	own := r.entity(r.player)
	newest := r.pred.frame
	b.ReportAllocs()
	cpu0 := cputime.Process()
	for b.Loop() {
		var s DriftSample
		r.pred.frame = newest
		r.correct(own, &s)
		if s.Replayed < 100 {
			b.Fatalf("replayed %d frames", s.Replayed)
		}
	}
	// CPU time per correction: on a shared, loaded machine wall time overstates it.
	b.ReportMetric(float64((cputime.Process()-cpu0).Nanoseconds())/1000/float64(b.N), "cpu-µs/op")
}

// TestCorrectionAllocatesNothing: a correction's own work (the rewind, the ring's
// records, the remote blockers, the replay loop) allocates nothing, so that what a
// reconcile allocates is what the simulation's steps allocate (BenchmarkReconcile100's
// allocations are its paths and arcs, which sim.SetLocomotion gives up when it
// rewinds a resting avatar). Stop inputs plan no path; a resting NPC next to the
// avatar stands in the prediction game as a blocker. Not parallel: AllocsPerRun
// counts the whole process's allocations.
func TestCorrectionAllocatesNothing(t *testing.T) {
	r, g, id := readyReplica(t)
	const dummy = 3 // blocking, does not wander
	npc, err := g.Spawn(dummy, 0, g.Entity(id).Pos().Add(mgl32.Vec2{3, 0}), 0)
	if err != nil {
		t.Fatal(err)
	}
	p := archive.NewPacker(archive.Replication, archive.Owner)
	p.TransferObject(g.Entity(npc))
	r.Receive(0, &pb.NetMessageServerFrame{Frame: 101}, &pb.NetMessageEntityCreate{ArchiveData: p.Bytes()})
	if err := r.ResyncReason(); err != nil {
		t.Fatal(err)
	}
	const inputs = 50
	for range inputs {
		if _, err := r.Stop(0); err != nil {
			t.Fatal(err)
		}
		r.pred.step()
	}
	own := r.entity(r.player)
	newest := r.pred.frame
	allocs := testing.AllocsPerRun(10, func() {
		var s DriftSample
		r.pred.frame = newest
		r.correct(own, &s)
		if s.Replayed < inputs {
			t.Fatalf("replayed %d frames", s.Replayed)
		}
	})
	if len(r.pred.blockers) != 1 {
		t.Fatalf("%d blockers in the prediction game, want the NPC", len(r.pred.blockers))
	}
	if allocs != 0 {
		t.Errorf("a correction allocates %v times", allocs)
	}
}
