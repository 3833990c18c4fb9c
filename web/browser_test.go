//go:build !js

package web_test

import (
	"context"
	"flag"
	"fmt"
	"image"
	"math"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/twinframe/twinframe/client/clienttest"
	"github.com/twinframe/twinframe/internal/testenv"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/replication/replicationtest"
	"github.com/twinframe/twinframe/web"
	"github.com/twinframe/twinframe/web/webtest"
)

var update = flag.Bool("update", false, "write testdata/screenshot.png (the README's screenshot)")

// Page size in the browser tests; the panel takes 340 px on the right.
const pageW, pageH, panelW = 1100, 700, 340

// canvasDiff counts the pixels of the canvas area that differ between a and b.
func canvasDiff(a, b image.Image) int {
	n := 0
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X-panelW; x++ {
			ar, ag, ab, _ := a.At(x, y).RGBA()
			br, bg, bb, _ := b.At(x, y).RGBA()
			if d := absDiff(ar, br) + absDiff(ag, bg) + absDiff(ab, bb); d > 3*0x0800 {
				n++
			}
		}
	}
	return n
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

type vec struct{ X, Y float64 }

func avatar(t *testing.T, b *webtest.Tab) vec {
	a := webtest.Eval[[]float64](t, b, "twinframe.avatar")
	return vec{a[0], a[1]}
}

func waitArrive(t *testing.T, b *webtest.Tab, goal vec) {
	t.Helper()
	b.Poll(t, fmt.Sprintf("the avatar at %v", goal), fmt.Sprintf(
		"Math.hypot(twinframe.avatar[0]-%v, twinframe.avatar[1]-%v) < 0.6 && !twinframe.moving", goal.X, goal.Y), 40*time.Second)
}

// TestBrowser builds the wasm viewer, starts headless Chromium once, and runs the page in
// a tab per mode: the sandbox (?mode=local) and the networked mode against a scripted
// server over a real websocket.
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: browser test; make test runs it")
	}
	if _, err := os.Stat(webtest.ChromiumPath); err != nil {
		testenv.Missing(t, "browser test: %s not found (make setup installs chromium)", webtest.ChromiumPath)
	}
	start := time.Now()
	dir := webtest.BuildWasm(t, "../wasm")
	bctx := webtest.StartBrowser(t, pageW, pageH)
	t.Run("Sandbox", func(t *testing.T) { testSandbox(t, bctx, dir) })
	t.Run("Network", func(t *testing.T) { testNetwork(t, bctx, dir) })
	t.Logf("browser tests took %v", time.Since(start).Round(time.Millisecond))
}

// testSandbox loads ?mode=local and drives the viewer through window.twinframe, the
// canvas and the panel.
func testSandbox(t *testing.T, bctx context.Context, wasmDir string) {
	start := time.Now()
	srv := httptest.NewServer(web.Handler(web.Options{WasmDir: wasmDir}))
	defer srv.Close()
	b := webtest.NewTab(t, bctx)
	loadStart := time.Now()
	b.Do(t, chromedp.EmulateViewport(pageW, pageH), chromedp.Navigate(srv.URL+"/?mode=local"))
	b.Poll(t, "the viewer to render", "window.twinframe && twinframe.ready && twinframe.ticks > 10 && twinframe.frame > 5", 90*time.Second)
	t.Logf("page rendering %v after navigation; page timings (ms): %s; fps %.1f", time.Since(loadStart).Round(time.Millisecond),
		webtest.Eval[string](t, b, "JSON.stringify(window.twinframeTimings)"), webtest.Eval[float64](t, b, "twinframe.fps"))

	// The contract.
	types := webtest.Eval[map[string]string](t, b, `(() => { const o = {}; for (const k of
		["connected","mode","frame","serverFrame","entities","avatarId","drift","fps","moveTo","toggle"])
		o[k] = typeof twinframe[k]; return o })()`)
	want := map[string]string{"connected": "boolean", "mode": "string", "frame": "number", "serverFrame": "number",
		"entities": "number", "avatarId": "number", "drift": "number", "fps": "number", "moveTo": "function", "toggle": "function"}
	for k, w := range want {
		if types[k] != w {
			t.Errorf("typeof twinframe.%s = %q, want %q", k, types[k], w)
		}
	}
	if !webtest.Eval[bool](t, b, `twinframe.connected && twinframe.mode === "local" && twinframe.avatarId > 0 && twinframe.entities > 10`) {
		t.Fatalf("state: %s", webtest.Eval[string](t, b, "JSON.stringify(twinframe)"))
	}
	if !webtest.Eval[bool](t, b, `document.getElementById("loading").hidden && document.getElementById("progress").value === 1`) {
		t.Error("the progress bar did not complete and hide")
	}

	// Move by a canvas click: press and release on separate frames, at the screen
	// position of a walkable point.
	b.Do(t, chromedp.Evaluate[chromedp.Void]("twinframe.follow(false)"))
	b.WaitTicks(t, 2)
	a := avatar(t, b)
	goal := vec{a.X + 6, a.Y - 3}
	p := webtest.Eval[map[string]float64](t, b, fmt.Sprintf("twinframe.worldToScreen(%v, %v)", goal.X, goal.Y))
	b.Do(t,
		chromedp.MouseEvent(chromedp.MouseMoved, p["x"], p["y"]),
		chromedp.Sleep(50*time.Millisecond),
		chromedp.MouseEvent(chromedp.MousePressed, p["x"], p["y"], chromedp.ButtonLeft, chromedp.ClickCount(1)),
		chromedp.Sleep(100*time.Millisecond),
		chromedp.MouseEvent(chromedp.MouseReleased, p["x"], p["y"], chromedp.ButtonLeft, chromedp.ClickCount(1)))
	// The click lands on a pixel: allow its size in metres.
	zoom := webtest.Eval[float64](t, b, "twinframe.camera[2]")
	b.Poll(t, "the clicked move", fmt.Sprintf(
		"Math.hypot(twinframe.avatar[0]-%v, twinframe.avatar[1]-%v) < %v && !twinframe.moving", goal.X, goal.Y, 0.6+2/zoom), 40*time.Second)

	// Move by moveTo.
	goal = vec{a.X + 2, a.Y - 8}
	b.Do(t, chromedp.Evaluate[chromedp.Void](fmt.Sprintf("twinframe.moveTo(%v, %v)", goal.X, goal.Y)))
	waitArrive(t, b, goal)
	t.Logf("moves done at %v", time.Since(start).Round(time.Millisecond))

	// Overlays: pause, and turn the graphs off (they keep scrolling), so that only the
	// toggles change the picture; each toggle changes pixels of the canvas, and the panel's
	// checkbox follows.
	b.Do(t, chromedp.Evaluate[chromedp.Void]("twinframe.pause(); twinframe.setOverlay('graphs', false)"))
	b.Poll(t, "pause", "twinframe.paused", 10*time.Second)
	b.WaitTicks(t, 2)
	base := b.Screenshot(t, "overlays-base")
	for _, name := range []string{"navmesh", "entities", "labels"} {
		if on := webtest.Eval[bool](t, b, fmt.Sprintf("twinframe.toggle(%q)", name)); on {
			t.Errorf("toggle(%q) turned it on; it is on by default", name)
		}
		b.WaitTicks(t, 2)
		after := b.Screenshot(t, "overlays-without-"+name)
		if d := canvasDiff(base, after); d < 30 {
			t.Errorf("toggling %s off changed %d pixels", name, d)
		} else {
			t.Logf("toggling %s off changed %d pixels", name, d)
		}
		b.Poll(t, "the panel checkbox of "+name, fmt.Sprintf("!document.getElementById('ov-%s').checked", name), 5*time.Second)
		webtest.Eval[bool](t, b, fmt.Sprintf("twinframe.toggle(%q)", name))
	}
	// The graphs, through the panel's checkbox this time.
	b.Do(t, chromedp.Evaluate[chromedp.Void]("document.getElementById('ov-graphs').click()"))
	b.Poll(t, "graphs on", "twinframe.overlays.includes('graphs')", 5*time.Second)
	b.WaitTicks(t, 2)
	if d := canvasDiff(base, b.Screenshot(t, "overlays-graphs")); d < 1000 {
		t.Errorf("turning the graphs on changed %d pixels", d)
	}
	if !webtest.Eval[bool](t, b, `twinframe.toggle("no-such-overlay") === null`) {
		t.Error("toggle of an unknown overlay did not return null")
	}

	// The scrub bar replays the recording: back to frame 5, the avatar is at its start.
	f := webtest.Eval[float64](t, b, "twinframe.frame")
	b.Do(t, chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById("scrub"); s.value = 5; s.dispatchEvent(new Event("input")); })()`))
	b.Poll(t, "the seek", fmt.Sprintf("twinframe.frame === 5 && twinframe.recorded >= %v && twinframe.paused", f), 20*time.Second)
	if got := avatar(t, b); math.Hypot(got.X-a.X, got.Y-a.Y) > 0.01 {
		t.Errorf("after seeking to frame 5 the avatar is at %v, want its start %v", got, a)
	}
	b.Do(t, chromedp.Evaluate[chromedp.Void](fmt.Sprintf("twinframe.seek(%v)", f)))
	b.Poll(t, "the seek back to the end", fmt.Sprintf("twinframe.frame === %v", f), 20*time.Second)

	// Resume; step; the inspector shows the selected avatar's xdump row.
	b.Do(t, chromedp.Evaluate[chromedp.Void]("twinframe.select(twinframe.avatarId); twinframe.resume(); twinframe.follow(true)"))
	b.Poll(t, "the inspector", `document.querySelectorAll("#inspector tr").length > 10 && document.getElementById("inspector").textContent.includes("prototype name")`, 5*time.Second)
	f0 := webtest.Eval[float64](t, b, "twinframe.frame")
	b.Poll(t, "frames after resume", fmt.Sprintf("twinframe.frame > %v && !twinframe.paused", f0+5), 5*time.Second)
	fps := webtest.Eval[float64](t, b, "twinframe.fps")
	t.Logf("fps %.1f, %v triangles per frame", fps, webtest.Eval[float64](t, b, "twinframe.triangles"))
	if fps <= 0 || math.IsNaN(fps) {
		t.Errorf("fps %v", fps)
	}
	shot := b.Screenshot(t, "sandbox")
	if *update {
		buf, err := os.ReadFile(filepath.Join(b.Shots, "sandbox.png"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("testdata", "screenshot.png"), buf, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote testdata/screenshot.png (%v)", shot.Bounds().Size())
	}

	// Travel: the avatar walks into the park gate (the default world's portal to the
	// wilds, 45-transition.config) and the sandbox hands it off.
	b.Do(t, chromedp.Evaluate[chromedp.Void]("twinframe.setOverlay('portals', true); twinframe.follow(true); twinframe.moveTo(120, 186)"))
	webtest.WaitTravel(t, b, "downtown", "wilds", 1)
	t.Logf("screenshots in %s; sandbox test took %v (GOMAXPROCS %d)", b.Shots, time.Since(start).Round(time.Millisecond), runtime.GOMAXPROCS(0))
}

// testNetwork serves the page and, at /ws, a scripted server (clienttest) that applies
// inputs when they arrive rather than at the frame they are stamped with, so that added
// latency shows up as prediction drift.
func testNetwork(t *testing.T, bctx context.Context, wasmDir string) {
	start := time.Now()
	cs, err := clienttest.NewServer(&replicationtest.Options{Seed: 5, IgnoreClientFrame: true})
	if err != nil {
		t.Fatal(err)
	}
	cs.Listen()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); cs.Run(ctx, replica.FrameDuration) }()
	defer func() { cancel(); <-done; cs.Close() }()
	target, err := url.Parse(cs.HTTP.URL)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/ws", httputil.NewSingleHostReverseProxy(target)) // same origin as the page
	mux.Handle("/", web.Handler(web.Options{WasmDir: wasmDir}))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	b := webtest.NewTab(t, bctx)
	b.Do(t, chromedp.EmulateViewport(pageW, pageH), chromedp.Navigate(srv.URL+"/?name=browser"))
	b.Poll(t, "the connection", "window.twinframe && twinframe.ready && twinframe.connected && twinframe.avatarId > 0 && twinframe.ticks > 5", 90*time.Second)
	if !webtest.Eval[bool](t, b, `twinframe.mode === "network" && twinframe.serverFrame > 0 && twinframe.entities > 1`) {
		t.Fatalf("state: %s", webtest.Eval[string](t, b, "JSON.stringify(twinframe)"))
	}
	a := avatar(t, b)
	goal := vec{a.X + 5, a.Y - 3}
	b.Do(t, chromedp.Evaluate[chromedp.Void](fmt.Sprintf("twinframe.moveTo(%v, %v)", goal.X, goal.Y)))
	waitArrive(t, b, goal)

	// Latency: the server applies inputs late, the prediction is corrected: drift shows.
	if r := webtest.Eval[string](t, b, `twinframe.setNetwork({latency: 150, jitter: 20, bandwidth: 0})`); r != "" {
		t.Fatalf("setNetwork: %s", r)
	}
	goal = vec{a.X, a.Y - 6}
	b.Do(t, chromedp.Evaluate[chromedp.Void](fmt.Sprintf("twinframe.moveTo(%v, %v)", goal.X, goal.Y)))
	b.Poll(t, "drift", "twinframe.driftMax > 0 && twinframe.corrections > 0 && twinframe.rtt > 100", 40*time.Second)
	waitArrive(t, b, goal)
	t.Logf("network: rtt %.0f ms, max drift %.3f m, %v corrections, fps %.1f",
		webtest.Eval[float64](t, b, "twinframe.rtt"), webtest.Eval[float64](t, b, "twinframe.driftMax"),
		webtest.Eval[float64](t, b, "twinframe.corrections"), webtest.Eval[float64](t, b, "twinframe.fps"))
	b.Screenshot(t, "network")

	// The panel's sliders show the conditions in force, set here through the API.
	sliders := func(set, want string) {
		t.Helper()
		if r := webtest.Eval[string](t, b, "twinframe.setNetwork("+set+")"); r != "" {
			t.Fatalf("setNetwork: %s", r)
		}
		b.Poll(t, "the sliders showing "+set, `JSON.stringify([..."latency jitter bandwidth loss".split(" ").map((k) =>
			document.getElementById("n-" + k).value), ..."latency jitter bandwidth loss".split(" ").map((k) =>
			document.querySelector("output[for=n-" + k + "]").textContent)]) === `+"`"+want+"`", 10*time.Second)
	}
	sliders(`{latency: 150, jitter: 20, bandwidth: 128 * 1024, loss: 1.5}`, `["150","20","128","1.5","150 ms","20 ms","128.0 kB/s","1.5 %"]`)

	// Travel: the server hands the page's player off to the vault (the deity's
	// teleport, by the same handoff as a portal); the page follows it.
	if r := webtest.Eval[string](t, b, `twinframe.setNetwork({latency: 0, jitter: 0, bandwidth: 0})`); r != "" {
		t.Fatalf("setNetwork: %s", r)
	}
	b.Do(t, chromedp.Evaluate[chromedp.Void]("twinframe.setOverlay('portals', true)"))
	var terr error
	cs.Do(func(s *replicationtest.Server) {
		for _, tr := range s.World.Transitions {
			if tr.Name == "vault-door" && len(s.Clients()) > 0 {
				terr = s.Teleport(s.Clients()[0], tr.Region, tr.Marker)
			}
		}
	})
	if terr != nil {
		t.Fatal(terr)
	}
	webtest.WaitTravel(t, b, "downtown", "vault", 2)
	sliders(`{latency: 0, jitter: 0, bandwidth: 0}`, `["0","0","0","0","0 ms","0 ms","∞","0 %"]`)
	t.Logf("network test took %v", time.Since(start).Round(time.Millisecond))
}
