//go:build !js

package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/twinframe/twinframe/viewer/scene"
)

// inBrowser says whether the page (and its HTML panel) hosts the viewer.
const inBrowser = false

// pageMode reads the page's settings from the command line (natively there is no page).
func pageMode() page {
	var p page
	flag.StringVar(&p.mode, "mode", modeLocal, "local (sandbox) or network")
	flag.Uint64Var(&p.seed, "seed", 1, "seed of the sandbox simulation")
	flag.StringVar(&p.server, "server", "ws://127.0.0.1:8080/ws", "websocket URL of the server (network mode)")
	flag.StringVar(&p.name, "name", "viewer", "player name (network mode)")
	flag.StringVar(&p.token, "token", "", "deity token (network mode)")
	flag.StringVar(&p.secret, "secret", os.Getenv("TWINFRAME_SECRET"), "the account's password or issued token (network mode; default $TWINFRAME_SECRET)")
	flag.BoolVar(&p.xdump, "xdump", true, "the inspector asks the server for entity rows (network mode)")
	flag.StringVar(&p.replay, "replay", "", "open the recording `file` instead (docs/RECORDING.md)")
	flag.Parse()
	p.onIssued = printIssued(p.name)
	return p
}

// printIssued returns the function that tells the user the token the server
// issued for name: natively there is no storage to keep it in.
func printIssued(name string) func(string) {
	return func(tok string) {
		fmt.Fprintf(os.Stderr, "twinframe viewer: the server created the account %q and issued its token; "+
			"log in as %q again with -secret %s (or TWINFRAME_SECRET)\n", name, name, tok)
	}
}

// publish has nothing to publish to natively.
func publish(*scene.View) func() { return func() {} }

// fail reports err and exits.
func fail(mode string, err error) {
	fmt.Fprintf(os.Stderr, "twinframe viewer (%s): %v\n", mode, err)
	os.Exit(1)
}

// readRecording reads the recording file path.
func readRecording(path string) ([]byte, error) { return os.ReadFile(path) }
