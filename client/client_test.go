package client_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/client"
	"github.com/twinframe/twinframe/client/clienttest"
	"github.com/twinframe/twinframe/client/netsim"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/replication/replicationtest"
)

// play runs a client against a server stepping at 20 Hz for d: the client
// updates every frame, walks to a spawn point, fires, and walks back.
func play(t *testing.T, srv *clienttest.Server, c *client.Client, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, replica.FrameDuration) }()
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	defer wcancel()
	if err := c.WaitReady(wctx); err != nil {
		t.Fatal(err)
	}
	var pts []mgl32.Vec2
	srv.Do(func(sim *replicationtest.Server) { pts = sim.Game.Region(0).SpawnPoints() })
	tick := time.NewTicker(replica.FrameDuration)
	defer tick.Stop()
	for i := 0; time.Duration(i)*replica.FrameDuration < d; i++ {
		<-tick.C
		if err := c.Update(); err != nil {
			t.Fatal(err)
		}
		var err error
		switch i {
		case 5:
			err = c.MoveTo(pts[1])
		case 60:
			err = c.Fire(pts[0])
		case 70:
			err = c.MoveTo(pts[0])
		case 120:
			err = c.Stop()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// Over an in-memory pipe with 60 ms ± 20 ms each way, in fake time: the client
// logs in, builds the world, predicts its avatar exactly (the server applies inputs
// at the frames they carry), and the clock measures the round trip.
func TestClientOverSimulatedNetwork(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, err := clienttest.NewServer(&replicationtest.Options{NoPopulation: true})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		lat := netsim.Conditions{Latency: 60 * time.Millisecond, Jitter: 20 * time.Millisecond}
		c, err := client.New(srv.Connect(), &client.Options{Name: "ada", Up: &lat, Down: &lat, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		play(t, srv, c, 8*time.Second)
		var d replica.DriftStats
		var rtt time.Duration
		var reason error
		c.With(func(r *replica.Replica) { d, rtt, reason = r.Drift(), r.Clock().RTT(), r.ResyncReason() })
		t.Logf("rtt %v, compared %d, corrections %d, max error %.3f", rtt, d.Compared, d.Corrections, d.MaxPosError)
		if reason != nil {
			t.Fatal(reason)
		}
		if rtt < 120*time.Millisecond || rtt > 250*time.Millisecond {
			t.Errorf("rtt %v, want 120 ms plus jitter and the wait for the next frame", rtt)
		}
		if d.Compared < 100 || d.Corrections != 0 {
			t.Errorf("compared %d, corrections %d", d.Compared, d.Corrections)
		}
		// Latency changes at run time: the clock follows.
		c.SetNet(netsim.Conditions{Latency: 150 * time.Millisecond}, netsim.Conditions{Latency: 150 * time.Millisecond})
		play(t, srv, c, 6*time.Second)
		c.With(func(r *replica.Replica) { d, rtt = r.Drift(), r.Clock().RTT() })
		if rtt < 240*time.Millisecond {
			t.Errorf("rtt %v after raising the latency to 150 ms each way", rtt)
		}
		t.Logf("rtt %v, compared %d, corrections %d", rtt, d.Compared, d.Corrections)
		st := c.Stats()
		if st.PacketsIn < 200 || st.BytesOut == 0 || st.DecodeErrors != 0 {
			t.Errorf("stats %+v", st)
		}
		c.Close()
	})
}

// Over a real websocket on loopback, in real time.
func TestClientOverWebsocket(t *testing.T) {
	srv, err := clienttest.NewServer(&replicationtest.Options{Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	srv.Listen()
	defer srv.Close()
	ctx := context.Background()
	c, err := client.Dial(ctx, srv.URL, &client.Options{Name: "ada"})
	if err != nil {
		t.Fatal(err)
	}
	play(t, srv, c, 3*time.Second)
	var d replica.DriftStats
	var n int
	var reason error
	c.With(func(r *replica.Replica) { d, n, reason = r.Drift(), r.Len(), r.ResyncReason() })
	t.Logf("entities %d, compared %d, corrections %d, stats %+v", n, d.Compared, d.Corrections, c.Stats())
	if reason != nil {
		t.Fatal(reason)
	}
	if n < 2 || d.Compared < 30 {
		t.Errorf("%d entities, %d frames compared", n, d.Compared)
	}
	views := c.View(nil)
	own := 0
	for _, v := range views {
		if v.Own {
			own++
		}
	}
	if own != 1 {
		t.Errorf("%d own avatars in the view", own)
	}
	if err := c.Close(); err != nil {
		t.Log("close:", err)
	}
	if c.Err() == nil {
		t.Error("no error after close")
	}
	// The server notices the session is gone.
	deadline := time.Now().Add(5 * time.Second)
	for srv.Sessions() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if srv.Sessions() != 0 {
		t.Error("session still open")
	}
}

// Ready says, without waiting, what WaitReady would: false until the server has
// sent the avatar, then true, every time it is asked.
func TestReady(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, err := clienttest.NewServer(&replicationtest.Options{Seed: 1, NoPopulation: true})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		c, err := client.New(srv.Connect(), &client.Options{Name: "ada"})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		synctest.Wait()
		if c.Ready() {
			t.Fatal("ready before the server sent a frame")
		}
		if err := srv.Step(); err != nil { // the frame with the avatar's create
			t.Fatal(err)
		}
		synctest.Wait()
		for i := range 20 {
			if !c.Ready() {
				t.Fatalf("not ready (ask %d) after the avatar arrived", i)
			}
		}
		if err := c.WaitReady(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}

// A name's first login is issued a token; a later login under the name needs it
// (or the password a first login set): without it WaitReady reports the refusal.
func TestAccountSecrets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, err := clienttest.NewServer(&replicationtest.Options{Seed: 1, NoPopulation: true})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		login := func(name, secret string) (*client.Client, error) {
			c, err := client.New(srv.Connect(), &client.Options{Name: name, Secret: secret})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			synctest.Wait()
			if err := srv.Step(); err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
			return c, c.WaitReady(context.Background())
		}
		first, err := login("ada", "")
		token := first.IssuedToken()
		if err != nil || len(token) < 43 {
			t.Fatalf("first login: %v, issued %q", err, token)
		}
		for _, secret := range []string{"", "guess", token + "x"} {
			if _, err := login("ada", secret); !errors.Is(err, client.ErrLoginRefused) || !strings.Contains(err.Error(), "BAD_SECRET") {
				t.Errorf("login with %q: %v, want ErrLoginRefused for BAD_SECRET", secret, err)
			}
		}
		again, err := login("ada", token)
		if err != nil || again.IssuedToken() != "" {
			t.Errorf("login with the token: %v, issued %q", err, again.IssuedToken())
		}
		pw, err := login("bob", "hunter2")
		if err != nil || pw.IssuedToken() != "" {
			t.Errorf("first login with a password: %v, issued %q", err, pw.IssuedToken())
		}
		if _, err := login("bob", "hunter3"); !errors.Is(err, client.ErrLoginRefused) {
			t.Errorf("wrong password: %v", err)
		}
	})
}

// A teleport to another region reaches the client as travel: Region names the new
// region, TakeRegionChanges gives the login's region and the travel, and the avatar
// is ready to control there without a resync.
func TestClientTravel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, err := clienttest.NewServer(&replicationtest.Options{NoPopulation: true})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		c, err := client.New(srv.Connect(), &client.Options{Name: "ada"})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		play(t, srv, c, time.Second)
		if id, name := c.Region(); id != 0 || name != "downtown" {
			t.Fatalf("region %d %q after login, want 0 downtown", id, name)
		}
		var terr error
		srv.Do(func(s *replicationtest.Server) {
			r := s.RegionByID(2)
			for _, m := range s.World.Markers {
				if _, ok := r.Game.MarkerPos(m.ID); ok && terr == nil && len(s.Clients()[0].Travels) == 0 {
					terr = s.Teleport(s.Clients()[0], 2, m.ID)
				}
			}
		})
		if terr != nil {
			t.Fatal(terr)
		}
		play(t, srv, c, time.Second)
		if id, name := c.Region(); id != 2 || name != "vault" {
			t.Errorf("region %d %q after the teleport, want 2 vault", id, name)
		}
		got := c.TakeRegionChanges(nil)
		if len(got) != 2 || got[0].Travel || !got[1].Travel || got[1].From != 0 || got[1].To != 2 {
			t.Errorf("region changes %+v, want the login's and a travel 0 → 2", got)
		}
		var st replica.Stats
		c.With(func(r *replica.Replica) { st = r.Stats() })
		if st.ResyncRequests != 0 || st.RegionChanges != 1 || !c.Ready() {
			t.Errorf("stats %+v", st)
		}
	})
}
