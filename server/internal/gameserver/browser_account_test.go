package gameserver

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/twinframe/twinframe/web/webtest"
)

// TestBrowserAccountAndDeityToken: the page takes the deity token from the URL's
// fragment, removes it from the address bar and keeps it in sessionStorage; it
// keeps the account token the server issues in localStorage (per server origin
// and name) and logs in with it after a reload.
func TestBrowserAccountAndDeityToken(t *testing.T) {
	page := servePage(t)
	b := webtest.NewTab(t, webtest.StartBrowser(t, 800, 560))
	b.Do(t, chromedp.Navigate(page+"/?name=keeper&xdump=off#token="+testToken))
	connected := `!!(window.twinframe && twinframe.connected && twinframe.avatarId > 0)`
	b.Poll(t, "the page to connect", connected, 2*time.Minute)
	if href := webtest.Eval[string](t, b, "location.href"); href != page+"/?name=keeper&xdump=off" {
		t.Errorf("address after load: %s", href)
	}
	if got := webtest.Eval[string](t, b, `sessionStorage.getItem("twinframe.deityToken") || ""`); got != testToken {
		t.Errorf("sessionStorage deity token %q", got)
	}
	key := `"twinframe.secret ws://" + location.host + " keeper"`
	tok := webtest.Eval[string](t, b, `localStorage.getItem(`+key+`) || ""`)
	if len(tok) < 43 {
		t.Fatalf("localStorage account token %q", tok)
	}
	// The token made it a deity: it can pause the game.
	webtest.Eval[any](t, b, "twinframe.pause()")
	b.Poll(t, "the pause", "twinframe.paused", 30*time.Second)
	webtest.Eval[any](t, b, "twinframe.resume()")
	b.Poll(t, "the resume", "!twinframe.paused", 30*time.Second)

	// A reload logs in again as the same account, with the kept token.
	b.Do(t, chromedp.Reload())
	b.Poll(t, "the page to reconnect after a reload", connected, 2*time.Minute)
	if got := webtest.Eval[string](t, b, `localStorage.getItem(`+key+`) || ""`); got != tok {
		t.Errorf("the token changed after the reload: %q, was %q", got, tok)
	}
	webtest.Eval[any](t, b, "twinframe.pause()")
	b.Poll(t, "the pause after the reload (deity token from sessionStorage)", "twinframe.paused", 30*time.Second)
	webtest.Eval[any](t, b, "twinframe.resume()")
	if got := webtest.Eval[string](t, b, "twinframe.error || ''"); got != "" {
		t.Errorf("page error: %s", got)
	}
}
