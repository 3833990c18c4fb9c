package gameserver

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/twinframe/twinframe/web/webtest"
)

// TestBrowserServerContact: in real Chromium, connected with the deity token to the
// real server, clicking a server's collision in the Timeline panel seeks the
// recording to its frame and lists the server's explanation of the contact as the
// sandbox lists its own: time of impact, hit point and normal (those of the row's
// event), slide and the navmesh edges tested, the one hit among them.
func TestBrowserServerContact(t *testing.T) {
	// No population: a wandering NPC in the avatar's way (where depends on the
	// frame the page logs in at) could block it short of the wall, or touch it in
	// the frames it hits the wall, leaving no row to pick.
	_, page := servePageWith(t, func(c *Config) { c.NoPopulation = true })
	bctx := webtest.StartBrowser(t, 1100, 760)
	b := webtest.NewTab(t, bctx)
	b.Do(t, chromedp.EmulateViewport(1100, 760), chromedp.Navigate(page+"/?name=god&xdump=off#token="+testToken))
	b.Poll(t, "the deity's page to connect", `!!(window.twinframe && twinframe.connected && twinframe.deity && twinframe.avatarId > 0 && twinframe.ticks > 5)`, 2*time.Minute)

	// The avatar walks straight at the region's edge, past the navmesh, and runs into
	// it. Its collision with the wall, from the server's stream, in a frame it hit
	// nothing else (so the contact is the row's: ExplainContact explains the mover's
	// last sweep) and in the page's recording, is picked.
	av := webtest.Eval[[]float64](t, b, "twinframe.avatar")
	b.Do(t, chromedp.Evaluate[chromedp.Void](fmt.Sprintf("twinframe.moveTo(%v, -50)", av[0])))
	const pick = `((rows) => rows.findLast((r) => r.origin === "server" && r.a === twinframe.avatarId && r.b === 0 && r.frame > twinframe.recordedFrom + 5 &&
		!rows.some((o) => o.frame === r.frame && o.a === r.a && o.b > 0)))(twinframe.timeline({kinds: ["collide"], limit: 0}))`
	b.Poll(t, "the avatar's collision with the wall in the timeline", "!!("+pick+")", 90*time.Second)
	row := webtest.Eval[map[string]any](t, b, pick)
	idx, frame, a := int(row["index"].(float64)), row["frame"].(float64), row["a"].(float64)
	point, normal := row["point"].([]any), row["normal"].([]any)
	t.Logf("picking row %d: frame %v, %v → wall at %v normal %v (server at frame %v)", idx, frame, a, point, normal,
		webtest.Eval[float64](t, b, "twinframe.serverFrame"))

	// Filter the panel to the mover, rest the pointer on the table (its rows then stay
	// put) and click the row.
	sel := fmt.Sprintf(`#timeline tr[data-index="%d"]`, idx)
	b.Do(t, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(
		`(() => { const e = document.getElementById("tl-entity"); e.value = %v; e.dispatchEvent(new Event("input")); })()`, a)))
	b.Poll(t, "the row in the filtered table", fmt.Sprintf(`!!document.querySelector(%q)`, sel), 10*time.Second)
	box := webtest.Eval[map[string]float64](t, b, `(() => { const r = document.getElementById("timeline").getBoundingClientRect(); return {x: r.x + 20, y: r.y + 30}; })()`)
	b.Do(t, chromedp.MouseEvent(chromedp.MouseMoved, box["x"], box["y"]), chromedp.Sleep(400*time.Millisecond))
	// The click is the page's own (element.click(), in one task): the panel redraws
	// its rows as events arrive, and a row the browser looked up by node id may be
	// gone by the time a protocol click reaches it.
	b.Do(t, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).click()`, sel)))

	b.Poll(t, "the seek to the row's frame", fmt.Sprintf("twinframe.replaying && twinframe.frame === %v", frame), 20*time.Second)
	b.Poll(t, "the contact's numbers in the panel", `document.getElementById("contact").textContent.includes("time of impact")`, 10*time.Second)
	got := webtest.Eval[map[string]any](t, b, "twinframe.selection()")
	if e, _ := got["error"].(string); e != "" {
		t.Fatalf("selection error %q", e)
	}
	fields := map[string]string{}
	for _, f := range got["contact"].([]any) {
		m := f.(map[string]any)
		fields[m["name"].(string)] = m["value"].(string)
	}
	t.Logf("contact: %v", fields)
	vec := func(name string, want []any) {
		var x, y float64
		if _, err := fmt.Sscanf(fields[name], "(%g, %g)", &x, &y); err != nil {
			t.Errorf("%s %q: %v", name, fields[name], err)
			return
		}
		if math.Abs(x-want[0].(float64)) > 0.0015 || math.Abs(y-want[1].(float64)) > 0.0015 {
			t.Errorf("%s %s, want the row's %v", name, fields[name], want)
		}
	}
	vec("hit point", point)
	vec("normal", normal)
	if toi, err := strconv.ParseFloat(fields["time of impact"], 64); err != nil || toi < 0 || toi > 1 {
		t.Errorf("time of impact %q, want a fraction", fields["time of impact"])
	}
	if n, err := strconv.Atoi(fields["edges tested"]); err != nil || n < 1 || fields["edge hit"] == "none" {
		t.Errorf("edges tested %q, edge hit %q: want the wall's edges and the one hit", fields["edges tested"], fields["edge hit"])
	}
	if !strings.HasPrefix(fields["slide"], "(") || fields["frame"] != strconv.FormatFloat(frame, 'f', -1, 64) ||
		fields["hit"] != "wall" || !strings.HasPrefix(fields["mover"], strconv.FormatFloat(a, 'f', -1, 64)+" (r ") {
		t.Errorf("contact %v: want the slide, frame %v and mover %v hitting a wall", fields, frame, a)
	}
	text := webtest.Eval[string](t, b, `document.getElementById("contact").textContent`)
	for _, w := range []string{"time of impact", "hit point", "normal", "slide", "edges tested"} {
		if !strings.Contains(text, w) {
			t.Errorf("contact panel %q lacks %q", text, w)
		}
	}
	b.Screenshot(t, "server-contact-picked")
}
