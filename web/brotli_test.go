package web_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/twinframe/twinframe/web"
	"github.com/twinframe/twinframe/web/precompress"
)

// TestHandlerBrotli: with a viewer.wasm.br as new as the wasm, a browser that accepts
// br gets it as Content-Encoding: br, a page that decodes it itself gets it as it is,
// and every other client a wasm (gzip or raw); a stale .br is never served.
func TestHandlerBrotli(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	wasm := filepath.Join(dir, web.WasmFile)
	raw := bytes.Repeat([]byte("\x00asm brotli bytes "), 1<<12)
	if err := os.WriteFile(wasm, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := precompress.Brotli(wasm, precompress.Fast); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(wasm+".gz", []byte("gzipped"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := web.Handler(web.Options{WasmDir: dir})
	const (
		chromiumLoopback = "gzip, deflate, br, zstd" // Chromium 156 on http://127.0.0.1 and on HTTPS
		chromiumHTTP     = "gzip, deflate"           // Chromium on a plain-HTTP origin elsewhere
	)
	for _, c := range []struct {
		name        string
		ae, decodes string
		encoding    string // Content-Encoding
		page        string // X-Page-Encoding
		ctype       string
		brBody      bool // the body is the .br (else the .gz's "gzipped" or raw)
	}{
		{"browser accepts br", chromiumLoopback, "br", "br", "", "application/wasm", true},
		{"br refused with q=0", "gzip, br;q=0", "", "gzip", "", "application/wasm", false},
		{"page decodes br", chromiumHTTP, "br", "", "br", "application/octet-stream", true},
		{"page decodes, case and list", chromiumHTTP, "xz, BR", "", "br", "application/octet-stream", true},
		{"page decodes another coding", chromiumHTTP, "xz", "gzip", "", "application/wasm", false},
		{"plain gzip client", "gzip", "", "gzip", "", "application/wasm", false},
		{"no encoding", "", "", "", "", "application/wasm", false},
	} {
		res := get(t, h, "/viewer.wasm", "Accept-Encoding", c.ae, web.PageDecodesHeader, c.decodes)
		b := body(t, res)
		if got := res.Header.Get("Content-Encoding"); got != c.encoding {
			t.Errorf("%s: Content-Encoding %q, want %q", c.name, got, c.encoding)
		}
		if got := res.Header.Get(web.PageEncodingHeader); got != c.page {
			t.Errorf("%s: %s %q, want %q", c.name, web.PageEncodingHeader, got, c.page)
		}
		if got := res.Header.Get("Content-Type"); got != c.ctype {
			t.Errorf("%s: Content-Type %q, want %q", c.name, got, c.ctype)
		}
		if got := res.Header.Get("Vary"); got != "Accept-Encoding, "+web.PageDecodesHeader {
			t.Errorf("%s: Vary %q", c.name, got)
		}
		switch {
		case c.brBody:
			dec, err := io.ReadAll(brotli.NewReader(bytes.NewReader([]byte(b))))
			if err != nil || !bytes.Equal(dec, raw) {
				t.Errorf("%s: the body does not decode to the wasm (%v)", c.name, err)
			}
		case c.encoding == "gzip" && b != "gzipped", c.encoding == "" && b != string(raw):
			t.Errorf("%s: body of %d bytes is not the %s file", c.name, len(b), c.encoding)
		}
	}

	// A wasm rebuilt after its .br: the stale .br is not served to anyone.
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(wasm, later, later); err != nil {
		t.Fatal(err)
	}
	for _, decodes := range []string{"", "br"} {
		res := get(t, h, "/viewer.wasm", "Accept-Encoding", chromiumLoopback, web.PageDecodesHeader, decodes)
		if res.Header.Get("Content-Encoding") == "br" || res.Header.Get(web.PageEncodingHeader) != "" {
			t.Errorf("stale .br served (%s %q): %v", web.PageDecodesHeader, decodes, res.Header)
		}
	}
}
