package gameserver

import (
	"fmt"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/twinframe/twinframe/internal/testenv"
	"github.com/twinframe/twinframe/web"
	"github.com/twinframe/twinframe/web/webtest"
)

// TestBrowserAgainstServer loads the viewer page from the real server in headless
// Chromium: the page logs in over the server's own websocket, shows the region, and an
// avatar moved with window.twinframe.moveTo walks on the server. Any console error fails
// it (webtest).
func TestBrowserAgainstServer(t *testing.T) {
	page := servePage(t)
	b := webtest.NewTab(t, webtest.StartBrowser(t, 1100, 700))
	b.Do(t, chromedp.Navigate(page+"/?name=browser&xdump=off"))
	b.Poll(t, "the page to connect and show the region",
		`!!(window.twinframe && twinframe.connected && twinframe.avatarId > 0 && twinframe.entities > 0)`, 2*time.Minute)
	f0 := webtest.Eval[float64](t, b, "twinframe.serverFrame")
	b.Poll(t, "server frames", fmt.Sprintf("twinframe.serverFrame > %v", f0+10), 30*time.Second)

	a := webtest.Eval[[]float64](t, b, "twinframe.avatar")
	moved := fmt.Sprintf("Math.hypot(twinframe.avatar[0]-%v, twinframe.avatar[1]-%v) > 1", a[0], a[1])
	// The spawn point is the server's choice: try goals around it until one is open.
	for i, d := range [][2]float64{{6, 0}, {-6, 0}, {0, 6}, {0, -6}} {
		webtest.Eval[any](t, b, fmt.Sprintf("twinframe.moveTo(%v, %v)", a[0]+d[0], a[1]+d[1]))
		_, err := chromedp.Run(b.Ctx, chromedp.Poll[bool](moved, chromedp.WithPollingTimeout(15*time.Second)))
		if err == nil {
			break
		}
		if i == 3 {
			t.Fatalf("the avatar at %v never moved: %v", a, err)
		}
	}
	if got := webtest.Eval[string](t, b, "twinframe.error || ''"); got != "" {
		t.Errorf("page error: %s", got)
	}
	b.Screenshot(t, "server")

	// Travel on the real server: the player walks into the park gate (the default
	// world's portal to the wilds); the page follows its avatar into the new region.
	b.Do(t, chromedp.Evaluate[chromedp.Void]("twinframe.setOverlay('portals', true); twinframe.follow(true); twinframe.moveTo(120, 186)"))
	webtest.WaitTravel(t, b, "downtown", "wilds", 1)
	// The wilds are sparse: what else the page holds there depends on where the
	// wanderers are; its own avatar it always holds.
	if got := webtest.Eval[string](t, b, "twinframe.entities >= 1 ? (twinframe.error || '') : 'no entity held'"); got != "" {
		t.Errorf("after travel: %s", got)
	}
}

// servePage skips the test in -short mode or without Chromium; otherwise it builds
// the wasm viewer, starts the real server with the viewer's page and returns the
// page's URL (closed when the test ends).
func servePage(t *testing.T) string {
	t.Helper()
	_, url := servePageWith(t, nil)
	return url
}

// servePageWith is servePage with the server's configuration adjusted by mod;
// it returns the server too.
func servePageWith(t *testing.T, mod func(*Config)) (*testServer, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: browser test; make test runs it")
	}
	if _, err := os.Stat(webtest.ChromiumPath); err != nil {
		testenv.Missing(t, "browser test: %s not found (make setup installs chromium)", webtest.ChromiumPath)
	}
	dir := webtest.BuildWasm(t, "../../../wasm")
	s := startServer(t, "", mod)
	page := httptest.NewServer(s.Handler(web.Handler(web.Options{WasmDir: dir})))
	t.Cleanup(page.Close)
	return s, page.URL
}
