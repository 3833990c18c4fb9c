package gameserver

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/twinframe/twinframe/web/webtest"
)

// TestBrowserViewerTools drives the viewer's debugging tools in headless Chromium
// against the real server: the server's frame-time graphs, the replay of the
// recorded session to the same avatar positions, and the latency slider.
func TestBrowserViewerTools(t *testing.T) {
	page := servePage(t)
	b := webtest.NewTab(t, webtest.StartBrowser(t, 800, 560))
	start := time.Now()
	b.Do(t, chromedp.Navigate(page+"/?name=tools&xdump=off"))
	b.Poll(t, "the page to connect", `!!(window.twinframe && twinframe.connected && twinframe.avatarId > 0 && twinframe.ticks > 5)`, 2*time.Minute)
	t.Logf("connected %v after navigation, %.1f fps", time.Since(start).Round(time.Millisecond), webtest.Eval[float64](t, b, "twinframe.fps"))

	// Frame-time graphs: the server's loop timings arrive once a second.
	b.Poll(t, "server frame timings", `twinframe.serverTimedFrames >= 20 && twinframe.serverFrameMs > 0 &&
		twinframe.graphs.includes("server frame") && twinframe.graphs.includes("server late")`, 30*time.Second)
	b.Poll(t, "the panel's server loop line", `document.getElementById("s-loop").textContent.includes(" ms, late ")`, 5*time.Second)
	t.Logf("server loop: frame %.3f ms (max %.3f), late %.3f ms, %v dropped", webtest.Eval[float64](t, b, "twinframe.serverFrameMs"),
		webtest.Eval[float64](t, b, "twinframe.serverFrameMaxMs"), webtest.Eval[float64](t, b, "twinframe.serverLateMs"),
		webtest.Eval[float64](t, b, "twinframe.serverDropped"))

	control := webtest.Eval[[]float64](t, b, "[twinframe.corrections, twinframe.driftMax]")
	from := testReplay(t, b)
	t.Logf("%v after navigation: the walk without added latency: corrections %v → %v, max drift %.3f → %.3f m", time.Since(start).Round(time.Millisecond),
		control[0], webtest.Eval[float64](t, b, "twinframe.corrections"), control[1], webtest.Eval[float64](t, b, "twinframe.driftMax"))
	testLatencySlider(t, b, from)
	b.Screenshot(t, "viewer-tools")
	t.Logf("%v after navigation", time.Since(start).Round(time.Millisecond))
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

// sliderMaxMS is the latency slider's maximum (web/static/index.html).
const sliderMaxMS = 3000

// latencyStep returns the one-way delay (ms, a multiple of the slider's step) that
// makes the next input reach the server after the frame it is stamped with, given
// the page's smoothed round trip rtt (ms). The client stamps an input half its
// smoothed round trip plus a frame ahead of its estimate of the server's frame, and
// that estimate is at most half the quickest round trip (when all of it was on the
// way up) and a frame ahead of the server; so an input whose trip grows by more
// than rtt plus three frames is late. The 500 ms added make it about 7 frames late, or
// more, however much the page's own frame time (up to 2.5 s when starved of CPU)
// inflates its round trip.
func latencyStep(rtt float64) int {
	return min(int(math.Ceil((rtt+500)/10))*10, sliderMaxMS)
}

// testLatencySlider raises the page's latency slider sharply and, in the same page
// task, sends the avatar back to from: the input reaches the server frames after
// the frame the client stamped it with and predicted it in, the server starts the
// walk late, and the prediction is corrected once per late frame: drift appears in
// the state (corrections, driftMax, the log). The sliders set the connection's
// conditions, the measured round trip grows by about the added delay, and the
// avatar still gets where it was sent. The walk before the step (testReplay, no
// latency) is the control: its corrections are logged.
func testLatencySlider(t *testing.T, b *webtest.Tab, from []float64) {
	const jitter = 40 // ms, each way
	start := time.Now()
	before := webtest.Eval[[]float64](t, b, "[twinframe.rtt, twinframe.corrections, twinframe.driftMax, twinframe.frame, twinframe.fps]")
	latency := latencyStep(before[0])
	b.Do(t, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
		for (const [id, v] of [["n-jitter", %d], ["n-latency", %d]]) {
			const s = document.getElementById(id); s.value = v; s.dispatchEvent(new Event("input"));
		}
		twinframe.moveTo(%v, %v); })()`, jitter, latency, from[0], from[1])))
	if hint := webtest.Eval[string](t, b, `document.getElementById("n-hint").textContent`); hint != "" {
		t.Fatalf("the slider was refused: %s", hint)
	}
	if got := webtest.Eval[float64](t, b, `+document.getElementById("n-latency").value`); got != float64(latency) {
		t.Fatalf("the latency slider holds %v ms, want %d (its range)", got, latency)
	}
	b.Poll(t, "the connection's conditions", fmt.Sprintf("twinframe.netLatency === %d && twinframe.netJitter === %d && twinframe.netBandwidth === 0",
		latency, jitter), 10*time.Second)
	// At least about 7 frames late: a correction for most late frames (the
	// prediction walked a step, 0.3 m, the server had not). Five runs on a loaded
	// machine counted 22–59; three is the bound.
	b.Poll(t, "drift in the state", fmt.Sprintf("twinframe.corrections >= %v && twinframe.driftMax > 0.1", before[1]+3), 30*time.Second)
	corr := correctionsSince(t, b, before[3])
	if len(corr) == 0 {
		t.Errorf("corrections %v → %v, but the log shows none since frame %v", before[1],
			webtest.Eval[float64](t, b, "twinframe.corrections"), before[3])
	}
	// The smoothed round trip moves an eighth of the way per ping (one a second)
	// towards the page's own share plus 2×latency; it passes half the added delay
	// even if the page's share drops to nothing meanwhile (latency > rtt).
	b.Poll(t, "the round trip to grow", fmt.Sprintf("twinframe.rtt > %v", before[0]+float64(latency)/2), 60*time.Second)
	b.Poll(t, "the avatar back", fmt.Sprintf("!twinframe.moving && Math.hypot(twinframe.avatar[0]-%v, twinframe.avatar[1]-%v) < 0.6", from[0], from[1]), 30*time.Second)
	after := webtest.Eval[[]float64](t, b, "[twinframe.rtt, twinframe.corrections, twinframe.driftMax, twinframe.frame - twinframe.serverFrame, twinframe.fps]")
	t.Logf("latency slider: +%d ms (jitter %d) at rtt %.0f ms, %.1f fps: rtt → %.0f ms, corrections %v → %v (%d logged since frame %v, first %q), max drift %.3f → %.3f m; lead %v frames at %.1f fps; %v",
		latency, jitter, before[0], before[4], after[0], before[1], after[1], len(corr), before[3], first(corr), before[2], after[2], after[3], after[4],
		time.Since(start).Round(time.Millisecond))
	webtest.Eval[any](t, b, `(() => { const s = document.getElementById("n-latency"); s.value = 0; s.dispatchEvent(new Event("input")); })()`)
	b.Poll(t, "the latency back to 0", "twinframe.netLatency === 0", 10*time.Second)
}

// correctionsSince returns the page log's correction lines for server frames after f.
func correctionsSince(t *testing.T, b *webtest.Tab, f float64) []string {
	t.Helper()
	return webtest.Eval[[]string](t, b, fmt.Sprintf(
		`twinframe.log(200).filter(e => e.frame > %v && e.text.startsWith("correction ")).map(e => e.frame + ": " + e.text)`, f))
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}
