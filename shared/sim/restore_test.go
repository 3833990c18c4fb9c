package sim

import (
	"errors"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"

	"github.com/twinframe/twinframe/shared/geom"
)

// saveEntity packs e as a Database archive and unpacks it, as a save and a later load do.
func saveEntity(t *testing.T, e *Entity) *Entity {
	t.Helper()
	p := archive.NewPacker(archive.Database, 0)
	p.TransferObject(e)
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	u, err := archive.NewUnpacker(archive.Database, p.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var out Entity
	u.TransferObject(&out)
	if err := u.Done(); err != nil {
		t.Fatal(err)
	}
	return &out
}

// TestRestoreWalkingAvatar saves an owned avatar in the middle of a walk and restores it
// into a new game, where it keeps its owner, position, yaw and speed and walks on to the
// goal.
func TestRestoreWalkingAvatar(t *testing.T) {
	t.Parallel()
	g := quiet(t)
	goal := mgl32.Vec2{188, 52}
	av := spawn(t, g, protoAvatar, mgl32.Vec2{20, 160})
	must(t, g.SetOwner(av, 7))
	must(t, g.SetSpeed(av, 4))
	if _, err := g.MoveAlongPath(av, goal); err != nil {
		t.Fatal(err)
	}
	run(t, g, 150)
	old := g.Entity(av)
	oldPath, oldNext := old.Path()

	g2 := quiet(t)
	run(t, g2, 3)
	id, err := g2.Restore(saveEntity(t, old))
	if err != nil {
		t.Fatal(err)
	}
	e := g2.Entity(id)
	if e.Owner() != 7 || e.Pos() != old.Pos() || e.Yaw() != old.Yaw() || e.Speed() != 4 || e.Mode() != PathMove {
		t.Fatalf("restored owner %d at %v yaw %v speed %v %v; saved owner 7 at %v yaw %v speed 4 path",
			e.Owner(), e.Pos(), e.Yaw(), e.Speed(), e.Mode(), old.Pos(), old.Yaw())
	}
	path, next := e.Path()
	if next != oldNext || len(path) != len(oldPath) || path[len(path)-1] != oldPath[len(oldPath)-1] {
		t.Fatalf("restored path %v (next %d), saved %v (next %d)", path, next, oldPath, oldNext)
	}
	if e.CreatedFrame() != 3 || e.CommandFrame() != 3 || e.ChangedFrame() != 3 {
		t.Errorf("frames created %d command %d changed %d, want the restoring frame 3",
			e.CreatedFrame(), e.CommandFrame(), e.ChangedFrame())
	}
	for f := 0; e.Mode() != Idle; f++ {
		if f == 1500 {
			t.Fatalf("restored walk still going at %v", e.Pos())
		}
		run(t, g2, 1)
	}
	if d := geom.Dist(e.Pos(), goal); d > 0.05 {
		t.Fatalf("restored walk ended at %v, %.2f m from the goal", e.Pos(), d)
	}
}

func TestRestore(t *testing.T) {
	t.Parallel()
	nan := float32(math.NaN())
	base := func() *Entity {
		return &Entity{id: 40, proto: protoAvatar, pos: mgl32.Vec2{64, 64}, yaw: 1.5, speed: 6, owner: 3,
			population: -1, loco: locomotor{mode: Idle}}
	}
	tests := []struct {
		name    string
		edit    func(e *Entity)
		occupy  bool // a blocking entity stands on the saved spot
		wantErr error
		check   func(t *testing.T, e *Entity)
	}{
		{name: "idle avatar", check: func(t *testing.T, e *Entity) {
			if e.Pos() != (mgl32.Vec2{64, 64}) || e.Yaw() != 1.5 || e.Owner() != 3 || e.Mode() != Idle || e.Radius() != 0.5 {
				t.Errorf("got %v yaw %v owner %d %v radius %v", e.Pos(), e.Yaw(), e.Owner(), e.Mode(), e.Radius())
			}
		}},
		{name: "occupied spot", occupy: true, check: func(t *testing.T, e *Entity) {
			if d := geom.Dist(e.Pos(), mgl32.Vec2{64, 64}); d < 0.9 || d > 8*math.Sqrt2 {
				t.Errorf("placed %.2f m from the occupied spot, at %v", d, e.Pos())
			}
		}},
		{name: "following becomes idle", edit: func(e *Entity) {
			e.loco = locomotor{mode: Following, path: []mgl32.Vec2{{64, 64}}, next: 1}
			e.follow = follow{target: 5, rng: 2}
		}, check: func(t *testing.T, e *Entity) {
			if e.Mode() != Idle {
				t.Errorf("mode %v", e.Mode())
			}
		}},
		{name: "finished path becomes idle", edit: func(e *Entity) {
			e.loco = locomotor{mode: PathMove, path: []mgl32.Vec2{{60, 64}, {64, 64}}, next: 2}
		}, check: func(t *testing.T, e *Entity) {
			if e.Mode() != Idle {
				t.Errorf("mode %v", e.Mode())
			}
		}},
		{name: "direct move goes on", edit: func(e *Entity) {
			e.loco = locomotor{mode: Direct, path: []mgl32.Vec2{{60, 64}, {70, 64}}, next: 1}
		}, check: func(t *testing.T, e *Entity) {
			if p, next := e.Path(); e.Mode() != Direct || next != 1 || p[0] != e.Pos() || p[1] != (mgl32.Vec2{70, 64}) {
				t.Errorf("%v path %v next %d", e.Mode(), p, next)
			}
		}},
		{name: "speed clamped", edit: func(e *Entity) { e.speed = 1e9 }, check: func(t *testing.T, e *Entity) {
			if e.Speed() != MaxSpeed {
				t.Errorf("speed %v", e.Speed())
			}
		}},
		{name: "unknown prototype", edit: func(e *Entity) { e.proto = 99 }, wantErr: ErrNoPrototype},
		{name: "unknown region", edit: func(e *Entity) { e.region = 4 }, wantErr: ErrNoRegion},
		{name: "projectile", edit: func(e *Entity) { e.proto, e.power.power = ProtoProjectile, PowerBolt }, wantErr: ErrCannotMove},
		{name: "NaN position", edit: func(e *Entity) { e.pos[1] = nan }, wantErr: ErrNotFinite},
		{name: "NaN corner", edit: func(e *Entity) {
			e.loco = locomotor{mode: PathMove, path: []mgl32.Vec2{{64, 64}, {nan, 1}}, next: 1}
		}, wantErr: ErrNotFinite},
		{name: "inside a tower", edit: func(e *Entity) { e.pos = mgl32.Vec2{14, 14} }, wantErr: ErrNoSpace},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := quiet(t)
			if tc.occupy {
				spawn(t, g, protoDummy, mgl32.Vec2{64, 64})
			}
			saved := base()
			if tc.edit != nil {
				tc.edit(saved)
			}
			n := len(g.Entities())
			id, err := g.Restore(saveEntity(t, saved))
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Restore: %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				if len(g.Entities()) != n {
					t.Fatal("a failed Restore added an entity")
				}
				return
			}
			if id == saved.id || id < EntityID(n) {
				t.Errorf("restored with id %d; want a new one", id)
			}
			tc.check(t, g.Entity(id))
			run(t, g, 2)
		})
	}
}

func TestSetOwner(t *testing.T) {
	t.Parallel()
	g := quiet(t)
	w := spawn(t, g, protoWanderer, mgl32.Vec2{64, 64})
	must(t, g.SetOwner(w, 2))
	run(t, g, 3*FrameRate)
	if e := g.Entity(w); e.Owner() != 2 || e.Mode() != Idle || e.Pos() != (mgl32.Vec2{64, 64}) {
		t.Fatalf("owned wanderer: owner %d, %v at %v", e.Owner(), e.Mode(), e.Pos())
	}
	must(t, g.SetOwner(w, -5))
	run(t, g, 3*FrameRate)
	if e := g.Entity(w); e.Owner() != -1 || e.Pos() == (mgl32.Vec2{64, 64}) {
		t.Fatalf("released wanderer: owner %d, at %v", e.Owner(), e.Pos())
	}
	if err := g.SetOwner(999, 1); !errors.Is(err, ErrNoEntity) {
		t.Fatalf("SetOwner of a missing entity: %v", err)
	}
}
