// Command viewer opens Twinframe's debugger in a native window: -local runs the sandbox
// (the simulation in-process with the embedded default world), -server connects to a
// running server.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/twinframe/twinframe/viewer"
	"github.com/twinframe/twinframe/viewer/scene"
)

func main() {
	local := flag.Bool("local", false, "run the simulation in-process (sandbox), no server")
	server := flag.String("server", "", "websocket URL of a server, e.g. ws://127.0.0.1:8080/ws")
	seed := flag.Uint64("seed", 1, "seed of the sandbox simulation")
	flag.Parse()
	src, err := newSource(*local, *server, *seed)
	if err != nil {
		fmt.Fprintln(os.Stderr, "viewer:", err)
		os.Exit(2)
	}
	if err := viewer.Run(scene.NewView(src), viewer.Options{Panel: true}); err != nil {
		fmt.Fprintln(os.Stderr, "viewer:", err)
		os.Exit(1)
	}
}

func newSource(local bool, server string, seed uint64) (scene.Source, error) {
	switch {
	case local || server == "":
		return scene.NewLocal(scene.LocalOptions{Seed: seed})
	default:
		return nil, fmt.Errorf("networked mode (-server %s) is not available yet: it needs the client package (issue 7); use -local", server)
	}
}
