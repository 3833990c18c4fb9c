package replication_test

import (
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replication/replicationtest"
	"github.com/twinframe/twinframe/shared/sim"
)

// A projectile gets no updates after its create (the client flies it), so the
// client learns its end from a NetMessageEntityDestroy: every client holding it
// gets one in the frame the bolt leaves the game, by a hit or at the end of its
// range, as twinframe.proto promises.
func TestProjectileEndIsDestroyed(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		aim  func(shooter, other mgl32.Vec2) mgl32.Vec2
	}{
		{"range", func(shooter, _ mgl32.Vec2) mgl32.Vec2 { return shooter.Add(mgl32.Vec2{10, 0}) }},
		{"at the other avatar", func(_, other mgl32.Vec2) mgl32.Vec2 { return other }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, err := replicationtest.NewServer(&replicationtest.Options{Seed: 1, NoPopulation: true})
			if err != nil {
				t.Fatal(err)
			}
			ada, _, err := srv.Login("ada", 0)
			if err != nil {
				t.Fatal(err)
			}
			bo, _, err := srv.Login("bo", 1)
			if err != nil {
				t.Fatal(err)
			}
			clients := []*replicationtest.Client{ada, bo}
			step := func() [][]*pb.NetMessageEntityDestroy {
				t.Helper()
				if err := srv.Step(); err != nil {
					t.Fatal(err)
				}
				out := make([][]*pb.NetMessageEntityDestroy, len(clients))
				for i, c := range clients {
					msgs, err := srv.Frame(c)
					if err != nil {
						t.Fatal(err)
					}
					for _, m := range msgs {
						if d, ok := m.(*pb.NetMessageEntityDestroy); ok {
							out[i] = append(out[i], d)
						}
					}
				}
				return out
			}
			step()
			if _, err := srv.Game.Fire(ada.Avatar, tc.aim(srv.Game.Entity(ada.Avatar).Pos(), srv.Game.Entity(bo.Avatar).Pos())); err != nil {
				t.Fatal(err)
			}
			step()
			var bolt uint64
			for _, e := range srv.Game.Entities() {
				if e.Prototype() == sim.ProtoProjectile {
					bolt = uint64(e.ID())
				}
			}
			if bolt == 0 {
				t.Fatal("no projectile after the fire")
			}
			for f := 0; ; f++ {
				if f == 200 {
					t.Fatal("the projectile lives on after 200 frames")
				}
				var held []bool
				for _, c := range clients {
					_, ok := slices.BinarySearch(c.Visible(), bolt)
					held = append(held, ok)
				}
				destroys := step()
				alive := srv.Game.Entity(sim.EntityID(bolt)) != nil
				for i, c := range clients {
					got := slices.ContainsFunc(destroys[i], func(d *pb.NetMessageEntityDestroy) bool { return d.GetEntityId() == bolt })
					if want := held[i] && !alive; got != want {
						t.Fatalf("frame %d: %s held the projectile %v, it is alive %v, destroyed for it %v", f, c.Name, held[i], alive, got)
					}
				}
				if !alive {
					if !held[0] {
						t.Fatal("the shooter did not hold its projectile")
					}
					return
				}
			}
		})
	}
}
