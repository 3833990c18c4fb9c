// Command viewer opens Twinframe's debugger in a native window: -local runs the sandbox
// (the simulation in-process with the embedded default world), -server connects to a
// running server (and reconnects when the connection drops).
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/twinframe/twinframe/client/netsim"
	"github.com/twinframe/twinframe/viewer/game"
	"github.com/twinframe/twinframe/viewer/scene"
)

func main() {
	local := flag.Bool("local", false, "run the simulation in-process (sandbox), no server")
	server := flag.String("server", "", "websocket URL of a server, e.g. ws://127.0.0.1:8080/ws")
	seed := flag.Uint64("seed", 1, "seed of the sandbox simulation")
	name := flag.String("name", "viewer", "player name (networked mode)")
	token := flag.String("token", os.Getenv("TWINFRAME_DEITY_TOKEN"), "deity token (networked mode; default $TWINFRAME_DEITY_TOKEN)")
	secret := flag.String("secret", os.Getenv("TWINFRAME_SECRET"),
		"the account's password, or the token the server issued at the name's first login (networked mode; default $TWINFRAME_SECRET)")
	noXdump := flag.Bool("noxdump", false, "do not ask the server for the inspected entity's xdump row")
	net := flag.String("net", "", "simulated network conditions, e.g. latency=80ms,jitter=20ms (networked mode)")
	shot := flag.String("screenshot", "", "write the screen to this PNG file after -after, then exit")
	after := flag.Duration("after", 3*time.Second, "when to take the -screenshot")
	flag.Parse()
	src, err := newSource(*local, *server, *seed, *name, *token, *secret, *net, *noXdump)
	if err != nil {
		fmt.Fprintln(os.Stderr, "viewer:", err)
		os.Exit(2)
	}
	if err := game.Run(scene.NewView(src), game.Options{Panel: true, Screenshot: *shot, ScreenshotAfter: *after}); err != nil {
		fmt.Fprintln(os.Stderr, "viewer:", err)
		os.Exit(1)
	}
}

func newSource(local bool, server string, seed uint64, name, token, secret, net string, noXdump bool) (scene.Source, error) {
	if local || server == "" {
		return scene.NewLocal(scene.LocalOptions{Seed: seed})
	}
	opt := scene.NetworkOptions{URL: server, Name: name, DeityToken: token, NoXdump: noXdump, Secret: secret,
		// Natively there is no storage to keep it in: the user passes it next time.
		OnIssuedToken: func(tok string) {
			fmt.Fprintf(os.Stderr, "viewer: the server created the account %q and issued its token; "+
				"log in as %q again with -secret %s (or TWINFRAME_SECRET)\n", name, name, tok)
		}}
	if net != "" {
		c, err := netsim.ParseConditions(net)
		if err != nil {
			return nil, err
		}
		opt.Net = c
	}
	return scene.NewNetwork(opt), nil
}
