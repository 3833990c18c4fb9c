package gameserver

import (
	"context"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	tfclient "github.com/twinframe/twinframe/client"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
)

// TestClientInterop runs the project's Go client (client.Dial, with prediction)
// against the server at the real 20 Hz: it walks its avatar, and its prediction
// agrees with the server (no resync, few corrections) once its clock has synced.
func TestClientInterop(t *testing.T) {
	checkLeaks(t)
	s := startServer(t, "", func(c *Config) { c.NoPopulation = true })
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c, err := tfclient.Dial(ctx, s.url, &tfclient.Options{Name: "erin"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	synced := func() (ok bool) {
		c.With(func(r *replica.Replica) { ok = r.Clock().Synced() })
		return ok
	}
	for !synced() {
		if err := c.Update(); err != nil {
			t.Fatal(err)
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatal("the client's clock never synced")
		}
	}
	var player uint64
	var start mgl32.Vec2
	c.With(func(r *replica.Replica) {
		player = r.Player()
		st, _ := r.State(player)
		start = mgl32.Vec2{st.Position[0], st.Position[1]}
	})
	if err := c.MoveTo(start.Add(mgl32.Vec2{10, -6})); err != nil {
		t.Fatal(err)
	}
	var st locomotion.State
	var drift replica.DriftStats
	var resync error
	for moved, stopped := false, false; !(moved && stopped); {
		if err := c.Update(); err != nil {
			t.Fatal(err)
		}
		select {
		case <-tick.C:
		case <-c.Done():
			t.Fatalf("disconnected: %v", c.Err())
		case <-ctx.Done():
			t.Fatalf("the avatar did not walk and stop: at %v from %v", st.Position, start)
		}
		c.With(func(r *replica.Replica) {
			st, _ = r.State(player)
			drift, resync = r.Drift(), r.ResyncReason()
		})
		moved = moved || mgl32.Vec2{st.Position[0], st.Position[1]}.Sub(start).Len() > 5
		stopped = moved && st.Fields&locomotion.Moving == 0
	}
	if resync != nil {
		t.Fatalf("resync: %v", resync)
	}
	t.Logf("drift: %d frames compared, %d mismatched, %d corrections (max %.3f m)",
		drift.Compared, drift.Mismatched, drift.Corrections, drift.MaxCorrection)
	if drift.Compared == 0 || drift.Corrections > drift.Compared/4 {
		t.Errorf("prediction disagrees with the server: %+v", drift)
	}
}
