package bot_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/twinframe/twinframe/client"
	"github.com/twinframe/twinframe/client/bot"
	"github.com/twinframe/twinframe/client/clienttest"
	"github.com/twinframe/twinframe/client/netsim"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/replication"
	"github.com/twinframe/twinframe/shared/replication/replicationtest"
)

// Four bots on the scripted server for 10 s of fake time, with and without
// latency: no AOI leaks, and drift bounded (prediction has other avatars only as
// obstacles where they last were, so bots that bump into each other disagree a
// little even without latency).
func TestBots(t *testing.T) {
	for _, tc := range []struct {
		name  string
		net   *netsim.Conditions
		bound float32
	}{
		{"no latency", nil, 0.5},
		{"80ms jitter 20ms", &netsim.Conditions{Latency: 80 * time.Millisecond, Jitter: 20 * time.Millisecond}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv, err := clienttest.NewServer(&replicationtest.Options{Seed: 1, NoPopulation: true})
				if err != nil {
					t.Fatal(err)
				}
				defer srv.Close()
				ctx, cancel := context.WithCancel(context.Background())
				go srv.Run(ctx, replica.FrameDuration)
				defer cancel()
				var bots []*bot.Bot
				for i := range 4 {
					c, err := client.New(srv.Connect(), &client.Options{Name: fmt.Sprintf("bot%d", i), Up: tc.net, Down: tc.net, Seed: uint64(i)})
					if err != nil {
						t.Fatal(err)
					}
					defer c.Close()
					if err := c.WaitReady(context.Background()); err != nil {
						t.Fatal(err)
					}
					bots = append(bots, bot.New(c, uint64(i), nil))
				}
				tick := time.NewTicker(replica.FrameDuration)
				defer tick.Stop()
				var leaks int
				for range 200 {
					<-tick.C
					for _, b := range bots {
						if err := b.Step(); err != nil {
							t.Fatal(err)
						}
						for _, v := range bot.CheckAOI(b.C, replication.DefaultAOI) {
							leaks++
							t.Error(v)
						}
					}
				}
				for i, b := range bots {
					if rep := b.Report(); rep.Frames != 200 || rep.BytesIn == 0 || rep.Compared < 150 || rep.Player == 0 {
						t.Errorf("bot %d report %+v", i, rep)
					}
					var d replica.DriftStats
					b.C.With(func(r *replica.Replica) { d = r.Drift() })
					vs := bot.CheckDrift(b.C, tc.bound)
					t.Logf("bot %d: compared %d, mismatched %d, corrections %d, max error %.3f m, %d drift violations",
						i, d.Compared, d.Mismatched, d.Corrections, d.MaxPosError, len(vs))
					if d.Mismatched > 0 && testing.Verbose() {
						b.C.With(func(r *replica.Replica) {
							n := 0
							for _, s := range r.DriftLog(nil) {
								if s.Fields != 0 && n < 14 {
									n++
									t.Log(s)
								}
							}
						})
					}
					if len(vs) > 0 {
						t.Errorf("bot %d: %v", i, vs[0])
					}
				}
				cancel()
			})
		})
	}
}
