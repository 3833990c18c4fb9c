package gameserver

import (
	"context"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	tfclient "github.com/twinframe/twinframe/client"
	"github.com/twinframe/twinframe/client/netsim"
	"github.com/twinframe/twinframe/shared/replica"
)

// What the viewer's latency slider does, natively against the real server: added
// latency that exceeds the client's input lead makes a redirection reach the server
// after the frame it was predicted for, and the prediction is corrected (drift); the
// avatar still ends where the server puts it. (The browser test cannot assert this:
// a page starved of CPU leads the server by more than the slider adds.)
func TestLatencyJumpCorrectsPrediction(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: real time, a few seconds of walking; make test runs it")
	}
	s := startServer(t, "", func(c *Config) { c.NoPopulation = true })
	var up, down netsim.Conditions
	c, err := tfclient.Dial(context.Background(), s.url, &tfclient.Options{Name: "lag", Up: &up, Down: &down, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := c.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	tick := func(d time.Duration) (drift replica.DriftStats, pos mgl32.Vec2) {
		for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			if err := c.Update(); err != nil {
				t.Fatal(err)
			}
		}
		c.With(func(r *replica.Replica) {
			st, _ := r.State(r.Player())
			drift, pos = r.Drift(), mgl32.Vec2{st.Position[0], st.Position[1]}
		})
		return drift, pos
	}
	_, start := tick(time.Second)
	lag := netsim.Conditions{Latency: 250 * time.Millisecond, Jitter: 40 * time.Millisecond}
	// Up to three tries: a machine too loaded to keep the lead short absorbs the jump.
	for try := range 3 {
		d := []mgl32.Vec2{{6, 0}, {-6, 0}, {0, 6}}[try]
		if err := c.MoveTo(start.Add(d)); err != nil {
			t.Fatal(err)
		}
		before, _ := tick(300 * time.Millisecond)
		c.SetNet(lag, lag)
		if err := c.MoveTo(start); err != nil {
			t.Fatal(err)
		}
		after, pos := tick(3 * time.Second)
		c.SetNet(netsim.Conditions{}, netsim.Conditions{})
		t.Logf("try %d: corrections %d → %d, max error %.3f → %.3f m", try, before.Corrections, after.Corrections,
			before.MaxPosError, after.MaxPosError)
		if after.Corrections > before.Corrections && after.MaxPosError > 0 {
			if pos.Sub(start).Len() > 0.6 {
				t.Errorf("the avatar ended at %v, sent to %v", pos, start)
			}
			return
		}
		tick(time.Second)
	}
	t.Error("a 250 ms latency jump before a redirection never caused a correction")
}
