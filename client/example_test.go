package client_test

import (
	"context"
	"fmt"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/client"
	"github.com/twinframe/twinframe/client/netsim"
	"github.com/twinframe/twinframe/shared/replica"
)

// A bot: dial the server, wait for the avatar, walk somewhere while updating every
// frame, then read the prediction's drift. (Not run: it needs a server.)
func ExampleDial() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	lat := netsim.Conditions{Latency: 80 * time.Millisecond, Jitter: 20 * time.Millisecond}
	c, err := client.Dial(ctx, "ws://127.0.0.1:8080/ws", &client.Options{Name: "bot-1", Up: &lat, Down: &lat})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	if err := c.WaitReady(ctx); err != nil {
		fmt.Println(err)
		return
	}
	c.MoveTo(mgl32.Vec2{40, 150})
	tick := time.NewTicker(replica.FrameDuration)
	defer tick.Stop()
	for range 100 {
		<-tick.C
		c.Update()
	}
	c.With(func(r *replica.Replica) {
		d := r.Drift()
		fmt.Println("corrections", d.Corrections, "max error", d.MaxPosError)
	})
}
