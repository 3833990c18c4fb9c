package sim

import (
	"errors"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
)

func TestSnapshotRestore(t *testing.T) {
	g := scripted(t, 600)
	data, err := g.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	h, err := Restore(g.World(), data, &g.opt)
	if err != nil {
		t.Fatal(err)
	}
	if g.StateHash() != h.StateHash() {
		t.Fatalf("restored hash %x, original %x", h.StateHash(), g.StateHash())
	}
	// The restored game goes on exactly like the original: wander timers, the PRNG,
	// overlaps, hotspots and blackout switches all came back.
	for f := range 400 {
		if f == 100 {
			for _, x := range []*Game{g, h} {
				must(t, x.Enqueue(Input{Entity: x.Entities()[len(x.Entities())-1].ID(), Command: CmdStop}))
			}
		}
		must(t, g.Step())
		must(t, h.Step())
		if g.StateHash() != h.StateHash() {
			t.Fatalf("diverged %d frames after the restore", f+1)
		}
	}
	if err := h.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
}

func TestSnapshotMigration(t *testing.T) {
	g := scripted(t, 100)
	p := archive.NewPacker(archive.Migration, archive.AllChannels)
	p.TransferObject(g)
	must(t, p.Err())
	h, err := New(g.World(), &g.opt)
	if err != nil {
		t.Fatal(err)
	}
	u, err := archive.NewUnpacker(archive.Migration, p.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	u.TransferObject(h)
	must(t, u.Done())
	if g.StateHash() != h.StateHash() {
		t.Fatal("migration lost state")
	}
	// The unpacked game continues as the one that stayed: a region moved to
	// another node steps on as if it had not moved.
	for f := range 100 {
		must(t, g.Step())
		must(t, h.Step())
		if g.StateHash() != h.StateHash() {
			t.Fatalf("%d frames after the migration the games differ", f+1)
		}
	}
	r := archive.NewPacker(archive.Replication, archive.AllChannels)
	r.TransferObject(g)
	if !errors.Is(r.Err(), archive.ErrMisuse) {
		t.Errorf("replicating a whole game: %v", r.Err())
	}
}

func TestRestoreBadData(t *testing.T) {
	g := quiet(t)
	spawn(t, g, protoAvatar, mgl32.Vec2{64, 64})
	data, err := g.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Restore(g.World(), data[:len(data)-5], nil); err == nil {
		t.Error("truncated snapshot accepted")
	}
	bad := append([]byte(nil), data...)
	bad[len(bad)/2] ^= 0x40
	if _, err := Restore(g.World(), bad, nil); !errors.Is(err, archive.ErrChecksum) {
		t.Errorf("flipped bit: %v", err)
	}
}

// FuzzRestore feeds arbitrary bytes to Restore: it must fail cleanly or give a game that
// steps and passes its own consistency checks; never panic.
func FuzzRestore(f *testing.F) {
	w := defaultWorld(f)
	g, err := New(w, &Options{NoPopulation: true})
	if err != nil {
		f.Fatal(err)
	}
	if _, err := g.Spawn(protoAvatar, 0, mgl32.Vec2{64, 64}, 0); err != nil {
		f.Fatal(err)
	}
	data, _ := g.Snapshot()
	f.Add(data)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := Restore(w, data, &Options{NoPopulation: true})
		if err != nil {
			return
		}
		for range 3 {
			_ = h.Step()
		}
	})
}
