package gameserver

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/twinframe/twinframe/web/webtest"
)

// click clicks the panel's button id.
func click(t *testing.T, b *webtest.Tab, id string) {
	t.Helper()
	webtest.Eval[any](t, b, fmt.Sprintf(`document.getElementById(%q).click()`, id))
}

// TestBrowserDeityTools drives the side panel's deity tools in headless Chromium
// against the real server. A page without the deity token is refused each
// tool with the reason shown, and stays connected (nothing reached the server,
// which would disconnect a player sending a deity message). With the token the
// page spawns an entity beside its avatar and kills it, teleports its avatar,
// pauses, steps and resumes the server, and edits a table row: a bad edit is
// refused at its line, which the editor selects, and a good one comes back in
// the tables the server sends. The server runs a watched world directory: a
// saved file that does not load is shown in the page at its file and line,
// one that does is shown applied.
func TestBrowserDeityTools(t *testing.T) {
	dir, orig := worldDir(t)
	s, page := servePageWith(t, func(c *Config) { c.Files = os.DirFS(dir) })
	watchWorld(t, s.Server, dir)
	bctx := webtest.StartBrowser(t, 900, 640)
	connected := `!!(window.twinframe && twinframe.connected && twinframe.avatarId > 0 && twinframe.ticks > 5)`
	reply := `document.getElementById("d-reply").textContent`

	// A player: every tool refused, with the reason, before anything is sent.
	p := webtest.NewTab(t, bctx)
	p.Do(t, chromedp.Navigate(page+"/?name=mortal&xdump=off"))
	p.Poll(t, "the player's page to connect", connected, 2*time.Minute)
	p.Poll(t, "the deity section to say why", `document.getElementById("d-state").textContent.includes("need the deity token")`, 10*time.Second)
	for _, id := range []string{"d-pause", "d-step", "d-resume", "d-spawn", "d-teleport", "d-apply"} {
		click(t, p, id)
		if got := webtest.Eval[string](t, p, reply); !strings.Contains(got, "refused: deity tools need the deity token") {
			t.Errorf("player's %s: shown %q", id, got)
		}
	}
	for _, call := range []string{"twinframe.kill(1)", `twinframe.editTable("x")`, "twinframe.serverPause()", `twinframe.teleport("mortal", 0, 0)`, "twinframe.spawn(3, 1, 1)"} {
		if got := webtest.Eval[string](t, p, call); !strings.Contains(got, "deity token") {
			t.Errorf("player's %s returned %q", call, got)
		}
	}
	f0 := webtest.Eval[float64](t, p, "twinframe.serverFrame")
	p.Poll(t, "the player's page still live", fmt.Sprintf("twinframe.connected && !twinframe.deity && twinframe.serverFrame > %v + 10", f0), 30*time.Second)

	// The deity.
	b := webtest.NewTab(t, bctx)
	b.Do(t, chromedp.Navigate(page+"/?name=god&xdump=off#token="+testToken))
	b.Poll(t, "the deity's page to connect", connected+" && twinframe.deity", 2*time.Minute)
	b.Poll(t, "the deity section", `document.getElementById("d-state").textContent.startsWith("deity")`, 10*time.Second)

	// Spawn a dummy beside the avatar (the spawn fields left empty), then kill it.
	near := `((x, y) => twinframe.entityList().filter(e => e.prototype === 3 && Math.hypot(e.x - x, e.y - y) < 8))(%v, %v)`
	a := webtest.Eval[[]float64](t, b, "twinframe.avatar")
	spot := fmt.Sprintf(near, a[0]+2, a[1])
	before := webtest.Eval[[]float64](t, b, spot+".map(e => e.id)")
	click(t, b, "d-spawn")
	if got := webtest.Eval[string](t, b, reply); !strings.HasSuffix(got, ": sent") {
		t.Fatalf("spawn: shown %q", got)
	}
	b.Poll(t, "the spawned dummy", fmt.Sprintf("%s.length === %d", spot, len(before)+1), 30*time.Second)
	id := webtest.Eval[float64](t, b, fmt.Sprintf("%s.map(e => e.id).find(id => !%s.includes(id))", spot, jsArray(before)))
	webtest.Eval[any](t, b, fmt.Sprintf("twinframe.select(%v)", id))
	b.Poll(t, "the selection", fmt.Sprintf("twinframe.selected === %v", id), 10*time.Second)
	click(t, b, "d-kill")
	b.Poll(t, "the dummy gone", fmt.Sprintf("!twinframe.entityList().some(e => e.id === %v)", id), 30*time.Second)
	// Killing it again: the server's refusal is shown.
	if r := webtest.Eval[string](t, b, fmt.Sprintf("twinframe.kill(%v)", id)); r != "" {
		t.Fatalf("kill: refused %q", r)
	}
	b.Poll(t, "the server's refusal", reply+`.includes("kill: sim: no such entity")`, 30*time.Second)

	// Teleport the avatar to the park's spawn marker 4 (100, 160).
	webtest.Eval[any](t, b, `document.getElementById("d-player").value = "god"; document.getElementById("d-region").value = 0; document.getElementById("d-marker").value = 4`)
	click(t, b, "d-teleport")
	b.Poll(t, "the teleported avatar", "Math.hypot(twinframe.avatarServer[0] - 100, twinframe.avatarServer[1] - 160) < 2", 30*time.Second)

	// Pause, step one frame, resume.
	click(t, b, "d-pause")
	b.Poll(t, "the server paused", "twinframe.paused", 30*time.Second)
	paused := webtest.Eval[float64](t, b, "twinframe.serverFrame")
	click(t, b, "d-step")
	b.Poll(t, "one step", fmt.Sprintf("twinframe.serverFrame === %v", paused+1), 30*time.Second)
	click(t, b, "d-resume")
	b.Poll(t, "the server resumed", fmt.Sprintf("!twinframe.paused && twinframe.serverFrame > %v", paused+3), 30*time.Second)

	// Edit the marker table: load it, break marker 1's kind, apply.
	webtest.Eval[any](t, b, `document.getElementById("d-table").value = "marker"`)
	click(t, b, "d-load")
	const row = `twinframe.tableText("marker").split("\n").findIndex(l => /^\s*1\s/.test(l))`
	line := webtest.Eval[float64](t, b, row) + 1
	if line < 2 {
		t.Fatalf("no row for marker 1 in the loaded table:\n%s", webtest.Eval[string](t, b, `document.getElementById("d-records").value`))
	}
	edit := func(re, to string) {
		webtest.Eval[any](t, b, fmt.Sprintf(`(() => { const ta = document.getElementById("d-records");
			const ls = ta.value.split("\n"); ls[%v] = ls[%v].replace(%s, %q); ta.value = ls.join("\n"); })()`, line-1, line-1, re, to))
		click(t, b, "d-apply")
	}
	edit(`/blackout/`, "blackhole")
	// The panel shows the answer at its next refresh, after twinframe has it.
	b.Poll(t, "the refused edit", reply+`.includes("table edit 1 refused: ")`, 30*time.Second)
	if got := webtest.Eval[string](t, b, reply); !strings.HasPrefix(got, fmt.Sprintf("line %v, column ", line)) || !strings.Contains(got, "refused") {
		t.Errorf("bad edit: shown %q, want line %v", got, line)
	}
	sel := webtest.Eval[[]float64](t, b, `(() => { const ta = document.getElementById("d-records");
		return [ta.selectionStart, ta.value.split("\n").slice(0, `+fmt.Sprint(line-1)+`).join("\n").length + 1]; })()`)
	if sel[0] != sel[1] {
		t.Errorf("the editor's selection starts at %v, line %v starts at %v", sel[0], line, sel[1])
	}
	// The good edit: marker 1's blackout radius 6 → 9 (the kind back as it was).
	edit(`/blackhole(\s+\S+\s+\S+\s+)6\b/`, "blackout$19")
	b.Poll(t, "the applied edit", reply+`.includes("applied at frame")`, 30*time.Second)
	b.Poll(t, "the edited table back from the server", `/^\s*1\s+\S+\s+blackout\s+\S+\s+\S+\s+9\s/m.test(twinframe.tableText("marker"))`, 30*time.Second)

	// The world directory: a bad save is refused at its file and line; a good
	// one applies, and its markers replace the deity's edit of them.
	const blackout = " 1 park    blackout      20    160      6"
	if !strings.Contains(orig["40-marker.config"], blackout) {
		t.Fatalf("the default markers changed; no %q", blackout)
	}
	writeWhole(t, dir, "40-marker.config", strings.Replace(orig["40-marker.config"], blackout, " 1 park    blackout      20    160      x", 1))
	b.Poll(t, "the world directory's refusal", reply+`.includes("world directory refused: world ") && `+reply+`.includes("40-marker.config:10:41: ")`, 30*time.Second)
	writeWhole(t, dir, "40-marker.config", strings.Replace(orig["40-marker.config"], blackout, " 1 park    blackout      20    160      7", 1))
	b.Poll(t, "the world directory applied", reply+`.startsWith("world directory applied at frame ")`, 30*time.Second)
	b.Poll(t, "the saved markers back from the server", `/^\s*1\s+\S+\s+blackout\s+\S+\s+\S+\s+7\s/m.test(twinframe.tableText("marker"))`, 30*time.Second)
	webtest.Eval[any](t, b, `document.getElementById("deity").scrollIntoView()`)
	b.Screenshot(t, "deity-tools")
}

// jsArray writes ids as a JavaScript array literal.
func jsArray(ids []float64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return "[" + strings.Join(s, ",") + "]"
}
