package bot_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/client"
	"github.com/twinframe/twinframe/client/bot"
	"github.com/twinframe/twinframe/client/netsim"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replication"
	"github.com/twinframe/twinframe/shared/replication/replicationtest"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
	"google.golang.org/protobuf/proto"
)

func TestInFlight(t *testing.T) {
	t.Parallel()
	// A bolt created at frame 10 at (1, 2), flying east to (31, 2) at 40 m/s:
	// 2 m a frame.
	st := locomotion.State{Frame: 10, Fields: locomotion.Moving | locomotion.HasPosition | locomotion.HasPath,
		Position: mgl32.Vec3{1, 2}, Speed: 40, Goal: 1,
		Path: []locomotion.PathNode{{Point: mgl32.Vec3{0.5, 2}}, {Point: mgl32.Vec3{31, 2}}}}
	for _, tc := range []struct {
		frame uint64
		want  mgl32.Vec2
	}{
		{9, mgl32.Vec2{1, 2}},  // before its state: where the state says
		{10, mgl32.Vec2{1, 2}}, // at its state's frame
		{13, mgl32.Vec2{7, 2}},
		{25, mgl32.Vec2{31, 2}}, // 30 m flown: at the end of its range
		{40, mgl32.Vec2{31, 2}},
	} {
		if got := bot.InFlight(&st, tc.frame); got.Sub(tc.want).Len() > 1e-4 {
			t.Errorf("frame %d: %v, want %v", tc.frame, got, tc.want)
		}
	}
	resting := st
	resting.Fields &^= locomotion.Moving
	if got := bot.InFlight(&resting, 20); got != (mgl32.Vec2{1, 2}) {
		t.Errorf("not moving: %v", got)
	}
}

// The server sends a projectile once, at its creation, and removes it when its
// real position leaves the remove radius. CheckAOI judges it where its flight has
// it: a bolt that has flown beyond the radius is a leak even though its
// replicated state is still next to the avatar.
func TestCheckAOIJudgesProjectilesInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, err := replicationtest.NewServer(&replicationtest.Options{Seed: 1, NoPopulation: true})
		if err != nil {
			t.Fatal(err)
		}
		sc, login, err := srv.Login("ada", 0)
		if err != nil {
			t.Fatal(err)
		}
		cliEnd, srvEnd := netsim.Pipe()
		go func() { // the client's inputs and pings: not needed here
			for {
				if _, err := srvEnd.Read(context.Background()); err != nil {
					return
				}
			}
		}()
		c, err := client.New(cliEnd, &client.Options{Name: "ada", Now: func() time.Duration { return 0 }})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		send := func(msgs ...proto.Message) {
			t.Helper()
			var pk protocol.Packet
			pk.Limits = client.ReadLimits
			pk.Reset(protocol.MuxGame, protocol.CommandData)
			for _, m := range msgs {
				if err := pk.Append(m); err != nil {
					t.Fatal(err)
				}
			}
			if err := srvEnd.Write(context.Background(), pk.Bytes()); err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
		}
		step := func() []proto.Message {
			t.Helper()
			if err := srv.Step(); err != nil {
				t.Fatal(err)
			}
			msgs, err := srv.Frame(sc)
			if err != nil {
				t.Fatal(err)
			}
			return msgs
		}
		send(login...)
		send(step()...)
		avatar := srv.Game.Entity(sc.Avatar).Pos()
		if _, err := srv.Game.Fire(sc.Avatar, avatar.Add(mgl32.Vec2{10, 0})); err != nil {
			t.Fatal(err)
		}
		send(step()...) // the bolt's create
		f := srv.Game.Frame()
		var d0 float32 // where the create has it
		for _, e := range srv.Game.Entities() {
			if e.Prototype() == sim.ProtoProjectile {
				d0 = e.Pos().Sub(avatar).Len()
			}
		}
		aoi := replication.AOI{Add: 5, Remove: 10}
		for k := range uint64(8) {
			leaks := bot.CheckAOI(c, aoi)
			// The bolt flies 2 m a frame.
			beyond := d0+2*float32(k) > aoi.Remove+bot.ProjectileSlack
			if beyond != (len(leaks) == 1) || len(leaks) > 1 {
				t.Fatalf("%d frames after the create: leaks %v", k, leaks)
			}
			if beyond && !strings.Contains(leaks[0].What, "a projectile") {
				t.Errorf("leak %v", leaks[0])
			}
			send(&pb.NetMessageServerFrame{Frame: f + k + 1})
		}
	})
}
