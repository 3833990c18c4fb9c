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

// pageMode reads the mode and seed from the command line (natively there is no page).
func pageMode() (string, uint64) {
	mode := flag.String("mode", modeLocal, "local (sandbox) or network")
	seed := flag.Uint64("seed", 1, "seed of the sandbox simulation")
	flag.Parse()
	return *mode, *seed
}

// publish has nothing to publish to natively.
func publish(*scene.View) func() { return func() {} }

// fail reports err and exits.
func fail(mode string, err error) {
	fmt.Fprintf(os.Stderr, "twinframe viewer (%s): %v\n", mode, err)
	os.Exit(1)
}
