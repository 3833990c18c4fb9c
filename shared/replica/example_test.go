package replica_test

import (
	"fmt"
	"time"

	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/replication/replicationtest"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
)

// A client's loop with no network in between: the server's packets go into
// Receive, Advance predicts the avatar ahead, inputs go back to the server, and the
// drift summary says how well the prediction matched.
func Example() {
	srv, _ := replicationtest.NewServer(&replicationtest.Options{NoPopulation: true})
	c, login, _ := srv.Login("ada", 0)
	r := replica.New(nil)
	now := time.Duration(0)
	r.Receive(now, login...) // login result and region change: the replica builds the world

	target := srv.Game.Region(0).SpawnPoints()[1]
	for f := range 80 {
		srv.Step()
		frame, _ := srv.Frame(c)
		now += replica.FrameDuration
		r.Receive(now, frame...)
		r.Advance(now)
		if f == 1 {
			move, _ := r.MoveTo(now, target) // predicted at once...
			srv.Receive(c, move)             // ...and sent to the server
		}
	}
	d := r.Drift()
	fmt.Println("avatar", r.Player(), "ready", r.Ready())
	fmt.Println("frames compared", d.Compared, "corrections", d.Corrections, "max error", d.MaxPosError)
	fmt.Println("pending inputs", r.PendingInputs())
	own, _ := r.State(r.Player())
	fmt.Println("arrived", own.Position.Vec2().Sub(target).Len() < 0.2, "moving", own.Fields&locomotion.Moving != 0)
	// Output:
	// avatar 48 ready true
	// frames compared 80 corrections 0 max error 0
	// pending inputs 0
	// arrived true moving false
}
