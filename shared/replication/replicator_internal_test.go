package replication

import (
	"bytes"
	"cmp"
	"log/slog"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
	"github.com/twinframe/twinframe/shared/world"
)

// TestAppendLocoPayload checks that the reused encoder writes the bytes a fresh
// archive and protocol.Marshal write, whatever was in the buffer and the packer
// before (a long state, then a short one, so stale bytes would show).
func TestAppendLocoPayload(t *testing.T) {
	t.Parallel()
	long := locomotion.State{Entity: 42, Frame: 1000,
		Fields:   locomotion.HasPosition | locomotion.HasYaw | locomotion.HasSpeed | locomotion.HasPath | locomotion.Moving,
		Position: mgl32.Vec3{100.125, 200.5, 0}, Yaw: 1.5, Speed: 6.25, Goal: 1,
		Path: []locomotion.PathNode{
			{Point: mgl32.Vec3{100.125, 200.5, 0}},
			{Point: mgl32.Vec3{110, 205.25, 0}, Side: locomotion.Left, Radius: 0.5},
		}}
	short := locomotion.State{Entity: 7, Frame: 1001, Fields: locomotion.HasYaw, Yaw: -0.25}
	r := &Replicator{cfg: Config{Logger: slog.New(slog.DiscardHandler)}}
	var buf []byte
	for _, tc := range []struct {
		name string
		st   *locomotion.State
		pol  archive.Policy
	}{
		{"long proximity", &long, archive.Proximity},
		{"short proximity", &short, archive.Proximity},
		{"long owner", &long, archive.Proximity | archive.Owner},
		{"short owner", &short, archive.Proximity | archive.Owner},
	} {
		a := archive.NewPacker(archive.Replication, tc.pol)
		a.TransferObject(tc.st)
		if a.Err() != nil {
			t.Fatal(a.Err())
		}
		_, want, err := protocol.Marshal(&pb.NetMessageLocomotionStateUpdate{ArchiveData: a.Bytes()})
		if err != nil {
			t.Fatal(err)
		}
		buf = r.appendLocoPayload(buf[:0], tc.st, tc.pol)
		if !bytes.Equal(buf, want) {
			t.Errorf("%s: % x, want % x", tc.name, buf, want)
		}
	}
}

// TestSearchCands checks the galloping search against a plain binary search, for
// ascending runs of ids looked up as the remove check does (each search starting
// where the last ended), on regions of many sizes and densities.
func TestSearchCands(t *testing.T) {
	t.Parallel()
	const seed = 9
	rng := rand.New(rand.NewPCG(seed, 0))
	for n := range 70 {
		var cands []Candidate
		id := uint64(0)
		for range n {
			id += 1 + rng.Uint64N(uint64(1+n%5))
			cands = append(cands, Candidate{ID: id})
		}
		var queries []uint64 // ascending: some held, some gone, some past the end
		for q := uint64(0); q <= id+2; q++ {
			if rng.IntN(3) == 0 {
				queries = append(queries, q)
			}
		}
		lo := 0
		for _, q := range queries {
			i, ok := searchCands(cands, lo, q)
			wi, wok := slices.BinarySearchFunc(cands, q, func(c Candidate, q uint64) int { return cmp.Compare(c.ID, q) })
			if i != wi || ok != wok {
				t.Fatalf("seed %d, %d candidates: search(%d from %d) = %d, %v; want %d, %v", seed, n, q, lo, i, ok, wi, wok)
			}
			lo = i
		}
	}
}

// TestHoldersFollowViews: views attach, leave, forget and re-attach while avatars
// and ghosts walk; after every frame each entity's holder count is exactly the
// number of views holding it, which decides whether its walked copy is kept.
func TestHoldersFollowViews(t *testing.T) {
	t.Parallel()
	w, err := world.LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	g, err := sim.New(w, &sim.Options{Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(g, Config{})
	if err != nil {
		t.Fatal(err)
	}
	region := g.Regions()[0]
	rng := rand.New(rand.NewPCG(4, 4))
	views := make([]*View, 6)
	for i := range views {
		id, err := g.Spawn(0, region.ID(), region.SpawnPoints()[i%len(region.SpawnPoints())], 0)
		if err != nil {
			t.Fatal(err)
		}
		views[i] = &View{}
		views[i].SetAvatar(id)
		r.Attach(views[i])
	}
	var pk protocol.Packet
	pk.Limits = protocol.Limits{MaxPacketSize: protocol.HeaderSize + protocol.MaxBodySize, MaxMessageSize: 4 << 20}
	for f := range 300 {
		v := views[rng.IntN(len(views))]
		switch rng.IntN(12) {
		case 0:
			r.Detach(v)
		case 1:
			r.Forget(v)
		case 2:
			r.Attach(v)
		case 3, 4, 5:
			p := mgl32.Vec2{rng.Float32() * 192, rng.Float32() * 192}
			_, _ = g.MoveAlongPath(v.Avatar(), p)
		}
		if err := g.Step(); err != nil {
			t.Fatal(err)
		}
		r.Prepare(true)
		for _, v := range r.Views() {
			if err := r.Write(&pk, v, Frame{}); err != nil {
				t.Fatal(err)
			}
		}
		want := map[sim.EntityID]int{}
		for _, v := range r.Views() {
			for _, id := range v.Visible() {
				want[sim.EntityID(id)]++
			}
		}
		for _, tr := range r.tracks {
			if tr.holders != want[tr.id] {
				t.Fatalf("frame %d: entity %d has %d holders, %d views hold it", f, tr.id, tr.holders, want[tr.id])
			}
		}
		if len(r.tracks) != len(g.Entities()) {
			t.Fatalf("frame %d: %d entities tracked, the game has %d", f, len(r.tracks), len(g.Entities()))
		}
		for _, v := range views {
			if v.r == nil && len(v.Visible()) != 0 {
				t.Fatalf("frame %d: a detached view holds %d entities", f, len(v.Visible()))
			}
		}
	}
}
