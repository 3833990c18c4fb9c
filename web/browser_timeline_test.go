//go:build !js

package web_test

import (
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/twinframe/twinframe/internal/testenv"
	"github.com/twinframe/twinframe/web"
	"github.com/twinframe/twinframe/web/webtest"
)

// TestBrowserTimeline runs the sandbox until its crowd collides, filters the timeline
// panel to one entity, and clicks a collision's row with the mouse: the viewer pauses
// at the row's frame, selects both entities and shows the contact's numbers, and the
// row is marked picked.
func TestBrowserTimeline(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: browser test; make test runs it")
	}
	if _, err := os.Stat(webtest.ChromiumPath); err != nil {
		testenv.Missing(t, "browser test: %s not found (make setup installs chromium)", webtest.ChromiumPath)
	}
	dir := webtest.BuildWasm(t, "../wasm")
	bctx := webtest.StartBrowser(t, pageW, pageH)
	srv := httptest.NewServer(web.Handler(web.Options{WasmDir: dir}))
	defer srv.Close()
	b := webtest.NewTab(t, bctx)
	b.Do(t, chromedp.EmulateViewport(pageW, pageH), chromedp.Navigate(srv.URL+"/?mode=local&seed=7"))
	b.Poll(t, "the viewer to render", "window.twinframe && twinframe.ready && twinframe.ticks > 10", 90*time.Second)
	for _, f := range []string{"timeline", "selectRow", "selection"} {
		if typ := webtest.Eval[string](t, b, "typeof twinframe."+f); typ != "function" {
			t.Fatalf("typeof twinframe.%s = %q, want function", f, typ)
		}
	}
	const pick = `twinframe.timeline({kinds: ["collide"], limit: 0}).find((r) => r.b > 0 && r.frame > 20)`
	b.Poll(t, "a collision between entities in the timeline", "!!("+pick+")", 90*time.Second)
	row := webtest.Eval[map[string]any](t, b, pick)
	idx, frame, a, other := int(row["index"].(float64)), row["frame"].(float64), row["a"].(float64), row["b"].(float64)
	t.Logf("picking row %d: frame %v, %v → %v (now at frame %v)", idx, frame, a, other, webtest.Eval[float64](t, b, "twinframe.frame"))

	// Filter to the mover through the panel; the row shows.
	sel := fmt.Sprintf(`#timeline tr[data-index="%d"]`, idx)
	b.Do(t, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(
		`(() => { const e = document.getElementById("tl-entity"); e.value = %v; e.dispatchEvent(new Event("input")); })()`, a)))
	b.Poll(t, "the row in the filtered table", fmt.Sprintf(`!!document.querySelector(%q) &&
		[...document.querySelectorAll("#timeline tbody tr")].every((tr) => tr.cells[2].textContent == %v || tr.cells[3].textContent == %v)`, sel, a, a), 10*time.Second)
	if webtest.Eval[bool](t, b, "twinframe.paused") {
		t.Fatal("the sandbox is paused before the click")
	}
	// Rest the pointer on the table (its rows then stay put), then click the row.
	box := webtest.Eval[map[string]float64](t, b, `(() => { const r = document.getElementById("timeline").getBoundingClientRect(); return {x: r.x + 20, y: r.y + 30}; })()`)
	b.Do(t, chromedp.MouseEvent(chromedp.MouseMoved, box["x"], box["y"]), chromedp.Sleep(400*time.Millisecond))
	b.Do(t, chromedp.ScrollIntoView(chromedp.CSS(sel)), chromedp.Click(chromedp.CSS(sel)))

	b.Poll(t, "the seek to the row's frame", fmt.Sprintf("twinframe.paused && twinframe.frame === %v && twinframe.selected === %v", frame, a), 20*time.Second)
	got := webtest.Eval[map[string]any](t, b, "twinframe.selection()")
	if r, _ := got["row"].(map[string]any); r == nil || int(r["index"].(float64)) != idx {
		t.Fatalf("selection() = %v, want row %d", got, idx)
	}
	if ents := fmt.Sprint(got["entities"]); ents != fmt.Sprintf("[%v %v]", a, other) {
		t.Errorf("selected entities %s, want [%v %v]", ents, a, other)
	}
	b.Poll(t, "the contact's numbers in the panel", `document.getElementById("contact").textContent.includes("time of impact")`, 5*time.Second)
	if !webtest.Eval[bool](t, b, fmt.Sprintf(`document.querySelector(%q).classList.contains("tl-picked")`, sel)) {
		t.Error("the clicked row is not marked picked")
	}
	text := webtest.Eval[string](t, b, `document.getElementById("contact").textContent`)
	if !strings.Contains(text, "edges tested") || !strings.Contains(text, "slide") {
		t.Errorf("contact panel: %q", text)
	}
	b.Screenshot(t, "timeline-picked")
}
