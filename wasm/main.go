// Command wasm is Twinframe's viewer in the browser: built with GOOS=js GOARCH=wasm, it
// runs the ebiten viewer on the page's canvas and publishes window.twinframe.
//
// Design note: the page picks the source with ?mode=local (the sandbox: the simulation
// runs in the page with the embedded default world) or, by default, the networked mode.
// Platform code sits behind three untagged functions (pageMode, publish, fail) with
// *_js.go and *_notjs.go implementations; the native build opens a window instead, which
// keeps `go vet ./...` and `go build ./...` working on every platform.
package main

import (
	"fmt"

	"github.com/twinframe/twinframe/viewer"
	"github.com/twinframe/twinframe/viewer/scene"
)

// Page modes.
const (
	modeLocal   = "local"
	modeNetwork = "network"
)

func main() {
	mode, seed := pageMode()
	var src scene.Source
	var err error
	switch mode {
	case modeLocal:
		src, err = scene.NewLocal(scene.LocalOptions{Seed: seed})
	default:
		err = fmt.Errorf("networked mode is not available yet (it needs the client package); open ?mode=local for the sandbox")
	}
	if err != nil {
		fail(mode, err)
		return
	}
	view := scene.NewView(src)
	pub := publish(view)
	if err := viewer.Run(view, viewer.Options{Panel: !inBrowser, AfterUpdate: pub}); err != nil {
		fail(mode, err)
	}
}
