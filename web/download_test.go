//go:build !js

package web_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/twinframe/twinframe/internal/testenv"
	"github.com/twinframe/twinframe/web"
	"github.com/twinframe/twinframe/web/precompress"
	"github.com/twinframe/twinframe/web/webtest"
)

// maxDownload is what a page may download for the viewer (issue: ≤ 3.5 MB).
const maxDownload = 3_500_000

// Chromium 156's Accept-Encoding: on loopback and HTTPS origins, and on plain-HTTP
// origins elsewhere.
const (
	chromiumLoopbackAE = "gzip, deflate, br, zstd"
	chromiumHTTPAE     = "gzip, deflate"
)

// TestWasmDownload builds the viewer as make wasm does (flags and brotli quality) and
// counts the bytes web's handler sends for it over HTTP to the page's request, as
// Chromium sends it on loopback (br, decoded by the browser) and on a plain-HTTP origin
// (br decoded by the page): each must be at most maxDownload. Then real Chromium loads
// the page both ways, and the bytes it downloaded and its loading times are logged.
func TestWasmDownload(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("-short or -race: builds the wasm and brotli-compresses it at quality 11 (minutes; tens under -race); make test-download runs it")
	}
	dir := t.TempDir()
	wasm := filepath.Join(dir, web.WasmFile)
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", wasm, "../wasm")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the wasm: %v\n%s", err, out)
	}
	start := time.Now()
	if _, err := precompress.Brotli(wasm, precompress.Best); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(wasm)
	t.Logf("wasm %d bytes; brotli %v", st.Size(), time.Since(start).Round(time.Second))
	served := &countingHandler{h: web.Handler(web.Options{WasmDir: dir})}
	srv := httptest.NewServer(served)
	defer srv.Close()

	// Go's own gzip would ask for gzip and hide the bytes on the wire.
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	for _, ae := range []string{chromiumLoopbackAE, chromiumHTTPAE} {
		req, _ := http.NewRequest("GET", srv.URL+"/"+web.WasmFile, nil)
		req.Header.Set("Accept-Encoding", ae)
		req.Header.Set(web.PageDecodesHeader, "br")
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("Accept-Encoding %q: %d, %v", ae, res.StatusCode, err)
		}
		t.Logf("Accept-Encoding %q: %d bytes (Content-Encoding %q, %s %q)", ae, n,
			res.Header.Get("Content-Encoding"), web.PageEncodingHeader, res.Header.Get(web.PageEncodingHeader))
		if n > maxDownload {
			t.Errorf("Accept-Encoding %q: the viewer is %d bytes to download, more than %d", ae, n, maxDownload)
		}
	}

	if _, err := os.Stat(webtest.ChromiumPath); err != nil {
		testenv.Missing(t, "browser test: %s not found (make setup installs chromium)", webtest.ChromiumPath)
	}
	cmd = exec.Command("cp", filepath.Join(webtest.BuildWasm(t, "../wasm"), web.WasmExecFile), dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	bctx := webtest.StartBrowser(t, pageW, pageH)
	for _, ae := range []string{"", chromiumHTTPAE} {
		served.reset()
		b := webtest.NewTab(t, bctx)
		if ae != "" {
			b.Do(t, offerOnly(ae))
		}
		b.Do(t, chromedp.EmulateViewport(pageW, pageH), chromedp.Navigate(srv.URL+"/?mode=local"))
		b.Poll(t, "the viewer to run", "window.twinframe && twinframe.ready && twinframe.ticks > 3", 90*time.Second)
		got := served.get()
		t.Logf("Chromium (Accept-Encoding %q): downloaded %d bytes of wasm, %d of decoder; page timings (ms): %s", got.ae,
			got.wasm, got.decoder, webtest.Eval[string](t, b, "JSON.stringify(window.twinframeTimings)"))
		switch {
		case got.wasm == 0 || got.wasm > maxDownload:
			t.Errorf("Chromium downloaded %d bytes of wasm", got.wasm)
		case ae == "" && (got.encoding != "br" || got.decoder != 0):
			t.Errorf("Chromium on loopback: Content-Encoding %q, %d bytes of decoder loaded", got.encoding, got.decoder)
		case ae != "" && (got.pageEncoding != "br" || got.decoder == 0):
			t.Errorf("Chromium offering %q: %s %q, %d bytes of decoder", ae, web.PageEncodingHeader, got.pageEncoding, got.decoder)
		}
		if !webtest.Eval[bool](t, b, `document.getElementById("loading").hidden && document.getElementById("progress").value === 1`) {
			t.Error("the progress bar did not complete and hide")
		}
	}
}

// offerOnly makes the tab send Accept-Encoding ae, as on a plain-HTTP origin.
func offerOnly(ae string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		if _, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{}); err != nil {
			return chromedp.Void{}, err
		}
		_, err := cdp.Call(ctx, tg, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Accept-Encoding": ae}})
		return chromedp.Void{}, err
	}
}

// countingHandler counts the bytes the handler writes for the wasm and the decoder.
type countingHandler struct {
	h  http.Handler
	mu sync.Mutex
	c  served
}

type served struct {
	ae, encoding, pageEncoding string
	wasm, decoder              int64
}

func (c *countingHandler) reset()      { c.mu.Lock(); c.c = served{}; c.mu.Unlock() }
func (c *countingHandler) get() served { c.mu.Lock(); defer c.mu.Unlock(); return c.c }

func (c *countingHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	cw := &countingWriter{ResponseWriter: w}
	c.h.ServeHTTP(cw, r)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch r.URL.Path {
	case "/" + web.WasmFile:
		c.c.ae, c.c.wasm = r.Header.Get("Accept-Encoding"), c.c.wasm+cw.n
		c.c.encoding, c.c.pageEncoding = w.Header().Get("Content-Encoding"), w.Header().Get(web.PageEncodingHeader)
	case "/brotli/decode.min.js":
		c.c.decoder += cw.n
	}
}

type countingWriter struct {
	http.ResponseWriter
	n int64
}

func (w *countingWriter) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	w.n += int64(n)
	return n, err
}
