package gameserver

import (
	"fmt"
	"math"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/twinframe/twinframe/web"
	"github.com/twinframe/twinframe/web/webtest"
)

// TestBrowserViewerTools drives the viewer's debugging tools in headless Chromium
// against the real server: the server's frame-time graphs, the replay of the
// recorded session to the same avatar positions, and the latency slider.
func TestBrowserViewerTools(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	if _, err := os.Stat(webtest.ChromiumPath); err != nil {
		t.Skipf("browser test skipped: %s not found (make setup installs chromium)", webtest.ChromiumPath)
	}
	dir := webtest.BuildWasm(t, "../../../wasm")
	s := startServer(t, "", nil)
	page := httptest.NewServer(s.Handler(web.Handler(web.Options{WasmDir: dir})))
	defer page.Close()
	b := webtest.NewTab(t, webtest.StartBrowser(t, 1100, 760))
	b.Do(t, chromedp.Navigate(page.URL+"/?name=tools&xdump=off"))
	b.Poll(t, "the page to connect", `!!(window.twinframe && twinframe.connected && twinframe.avatarId > 0 && twinframe.ticks > 5)`, 2*time.Minute)

	// Frame-time graphs: the server's loop timings arrive once a second.
	b.Poll(t, "server frame timings", `twinframe.serverTimedFrames >= 20 && twinframe.serverFrameMs > 0 &&
		twinframe.graphs.includes("server frame") && twinframe.graphs.includes("server late")`, 30*time.Second)
	b.Poll(t, "the panel's server loop line", `document.getElementById("s-loop").textContent.includes(" ms, late ")`, 5*time.Second)
	t.Logf("server loop: frame %.3f ms (max %.3f), late %.3f ms, %v dropped", webtest.Eval[float64](t, b, "twinframe.serverFrameMs"),
		webtest.Eval[float64](t, b, "twinframe.serverFrameMaxMs"), webtest.Eval[float64](t, b, "twinframe.serverLateMs"),
		webtest.Eval[float64](t, b, "twinframe.serverDropped"))

	from := testReplay(t, b)
	testLatencySlider(t, b, from)
	b.Screenshot(t, "viewer-tools")
}

// at is the authoritative avatar position the page showed at a server frame.
type at struct{ Frame, X, Y float64 }

const atJS = `[twinframe.serverFrame, twinframe.avatarServer[0], twinframe.avatarServer[1]]`

func sampleAt(t *testing.T, b *webtest.Tab) at {
	v := webtest.Eval[[]float64](t, b, atJS)
	return at{v[0], v[1], v[2]}
}

// walk moves the avatar to a free spot around it and returns a sample taken while it
// walked; it waits until the avatar rests again.
func walk(t *testing.T, b *webtest.Tab) at {
	t.Helper()
	a := webtest.Eval[[]float64](t, b, "twinframe.avatarServer")
	for i, d := range [][2]float64{{6, 0}, {-6, 0}, {0, 6}, {0, -6}} {
		webtest.Eval[any](t, b, fmt.Sprintf("twinframe.moveTo(%v, %v)", a[0]+d[0], a[1]+d[1]))
		moving := fmt.Sprintf("Math.hypot(twinframe.avatarServer[0]-%v, twinframe.avatarServer[1]-%v) > 1", a[0], a[1])
		if _, err := chromedp.Run(b.Ctx, chromedp.Poll[bool](moving, chromedp.WithPollingTimeout(15*time.Second))); err != nil {
			if i == 3 {
				t.Fatalf("the avatar at %v never moved: %v", a, err)
			}
			continue
		}
		mid := sampleAt(t, b)
		b.Poll(t, "the avatar to rest", "!twinframe.moving", 30*time.Second)
		return mid
	}
	return at{}
}

// testReplay records positions at two server frames, replays them through seek and
// the scrub bar, and checks the avatar is where the live page showed it. It returns
// where the avatar walked from.
func testReplay(t *testing.T, b *webtest.Tab) (from []float64) {
	rest := sampleAt(t, b)
	mid := walk(t, b)
	if mid.Frame <= rest.Frame || (mid.X == rest.X && mid.Y == rest.Y) {
		t.Fatalf("samples %+v and %+v: no walk between them", rest, mid)
	}
	if r := webtest.Eval[[]float64](t, b, "[twinframe.recordedFrom, twinframe.recorded]"); r[0] > rest.Frame || r[1] < mid.Frame {
		t.Fatalf("recorded %v–%v, sampled %v and %v", r[0], r[1], rest.Frame, mid.Frame)
	}
	check := func(how string, want at) {
		t.Helper()
		b.Poll(t, how, fmt.Sprintf("twinframe.replaying && twinframe.frame === %v", want.Frame), 20*time.Second)
		got := webtest.Eval[[]float64](t, b, "twinframe.avatar")
		if math.Abs(got[0]-want.X) > 1e-4 || math.Abs(got[1]-want.Y) > 1e-4 {
			t.Errorf("%s: the replayed avatar at (%v, %v), live it was at (%v, %v)", how, got[0], got[1], want.X, want.Y)
		}
	}
	webtest.Eval[any](t, b, fmt.Sprintf("twinframe.seek(%v)", rest.Frame))
	check("seek to the resting frame", rest)
	b.Do(t, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(
		`(() => { const s = document.getElementById("scrub"); s.value = %v; s.dispatchEvent(new Event("input")); })()`, mid.Frame)))
	check("the scrub bar to the walking frame", mid)
	webtest.Eval[any](t, b, "twinframe.step()")
	b.Poll(t, "a step of the replay", fmt.Sprintf("twinframe.replaying && twinframe.frame === %v", mid.Frame+1), 10*time.Second)
	webtest.Eval[any](t, b, "twinframe.resume()")
	b.Poll(t, "the live state", fmt.Sprintf("!twinframe.replaying && twinframe.serverFrame > %v", mid.Frame+1), 10*time.Second)
	return []float64{rest.X, rest.Y}
}

// testLatencySlider moves the page's latency and jitter sliders and walks the avatar
// back to from (a path it took before). The sliders set the connection's
// conditions, the measured round trip grows by about the added delay, and the
// avatar still gets where it was sent.
//
// Drift does not reliably follow against the real server: the client stamps its
// inputs a round trip (plus a margin) ahead, and a page starved of CPU measures a
// round trip of its own frame time (1–2 s on a loaded machine), which absorbs the
// added latency. Corrections show when the added delay exceeds that lead; the
// test logs the drift figures instead of asserting them.
func testLatencySlider(t *testing.T, b *webtest.Tab, from []float64) {
	const latency, jitter = 400, 40 // ms, each way
	before := webtest.Eval[[]float64](t, b, "[twinframe.rtt, twinframe.corrections, twinframe.driftMax]")
	b.Do(t, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
		for (const [id, v] of [["n-jitter", %d], ["n-latency", %d]]) {
			const s = document.getElementById(id); s.value = v; s.dispatchEvent(new Event("input"));
		}
		twinframe.moveTo(%v, %v); })()`, jitter, latency, from[0], from[1])))
	if hint := webtest.Eval[string](t, b, `document.getElementById("n-hint").textContent`); hint != "" {
		t.Fatalf("the slider was refused: %s", hint)
	}
	b.Poll(t, "the connection's conditions", fmt.Sprintf("twinframe.netLatency === %d && twinframe.netJitter === %d && twinframe.netBandwidth === 0",
		latency, jitter), 10*time.Second)
	// The smoothed round trip moves an eighth of the way per ping (one a second).
	b.Poll(t, "the round trip to grow", fmt.Sprintf("twinframe.rtt > %v", before[0]+latency), 60*time.Second)
	b.Poll(t, "the avatar back", fmt.Sprintf("!twinframe.moving && Math.hypot(twinframe.avatar[0]-%v, twinframe.avatar[1]-%v) < 0.6", from[0], from[1]), 30*time.Second)
	after := webtest.Eval[[]float64](t, b, "[twinframe.rtt, twinframe.corrections, twinframe.driftMax, twinframe.frame - twinframe.serverFrame, twinframe.fps]")
	t.Logf("latency slider: rtt %.0f → %.0f ms, corrections %v → %v, max drift %.3f → %.3f m; lead %v frames at %.1f fps",
		before[0], after[0], before[1], after[1], before[2], after[2], after[3], after[4])
	webtest.Eval[any](t, b, `(() => { const s = document.getElementById("n-latency"); s.value = 0; s.dispatchEvent(new Event("input")); })()`)
	b.Poll(t, "the latency back to 0", "twinframe.netLatency === 0", 10*time.Second)
}
