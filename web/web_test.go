package web_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twinframe/twinframe/web"
)

func get(t *testing.T, h http.Handler, path string, hdr ...string) *http.Response {
	t.Helper()
	r := httptest.NewRequest("GET", path, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Result()
}

func body(t *testing.T, res *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestHandlerServesPage(t *testing.T) {
	h := web.Handler(web.Options{WasmDir: t.TempDir()})
	for path, want := range map[string]string{"/": "<canvas", "/style.css": "#panel", "/app.js": "twinframe"} {
		res := get(t, h, path)
		b := body(t, res)
		if res.StatusCode != 200 || (path != "/" && !strings.Contains(b, want)) {
			t.Errorf("GET %s: %d %.60q", path, res.StatusCode, b)
		}
	}
	if b := body(t, get(t, h, "/")); !strings.Contains(b, `id="overlays"`) || !strings.Contains(b, "app.js") {
		t.Errorf("index.html lacks the panel or the glue")
	}
}

func TestHandlerMissingWasm(t *testing.T) {
	h := web.Handler(web.Options{WasmDir: t.TempDir()})
	for _, p := range []string{"/viewer.wasm", "/wasm_exec.js"} {
		res := get(t, h, p, "Accept-Encoding", "gzip")
		if b := body(t, res); res.StatusCode != 404 || !strings.Contains(b, "make wasm") {
			t.Errorf("GET %s without a build: %d %q", p, res.StatusCode, b)
		}
	}
}

// waitGzip fetches the wasm until the handler serves it compressed (it compresses in the
// background and serves the raw file meanwhile).
func waitGzip(t *testing.T, h http.Handler) *http.Response {
	t.Helper()
	for range 500 {
		res := get(t, h, "/viewer.wasm", "Accept-Encoding", "gzip, deflate, br")
		if res.Header.Get("Content-Encoding") == "gzip" {
			return res
		}
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/wasm" {
			t.Fatalf("while compressing: %d %v", res.StatusCode, res.Header)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the wasm was never served compressed")
	return nil
}

func TestHandlerCompressesWasm(t *testing.T) {
	dir := t.TempDir()
	raw := bytes.Repeat([]byte("\x00asm wasm bytes "), 1<<14)
	if err := os.WriteFile(filepath.Join(dir, web.WasmFile), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, web.WasmExecFile), []byte("// go"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := web.Handler(web.Options{WasmDir: dir})
	res := waitGzip(t, h)
	if res.Header.Get("Content-Encoding") != "gzip" || res.Header.Get("Content-Type") != "application/wasm" {
		t.Fatalf("headers %v", res.Header)
	}
	if got := res.Header.Get("X-Uncompressed-Length"); got != "262144" {
		t.Errorf("X-Uncompressed-Length %q", got)
	}
	zb := body(t, res)
	if len(zb) >= len(raw)/4 {
		t.Errorf("compressed %d of %d bytes", len(zb), len(raw))
	}
	zr, err := gzip.NewReader(strings.NewReader(zb))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := io.ReadAll(zr); !bytes.Equal(got, raw) {
		t.Error("gzip body does not decompress to the wasm")
	}
	// Without gzip: the raw file.
	res = get(t, h, "/viewer.wasm")
	if res.Header.Get("Content-Encoding") != "" || body(t, res) != string(raw) {
		t.Error("uncompressed wasm differs")
	}
	// A rebuilt wasm is compressed again.
	raw2 := append(raw, "more"...)
	os.WriteFile(filepath.Join(dir, web.WasmFile), raw2, 0o644)
	res = waitGzip(t, h)
	if got := res.Header.Get("X-Uncompressed-Length"); got != "262148" {
		t.Errorf("after a rebuild: X-Uncompressed-Length %q", got)
	}
	// A precompressed viewer.wasm.gz as new as the wasm is served as it is.
	os.WriteFile(filepath.Join(dir, web.WasmFile+".gz"), []byte("precompressed"), 0o644)
	res = get(t, h, "/viewer.wasm", "Accept-Encoding", "gzip")
	if res.Header.Get("Content-Encoding") != "gzip" || body(t, res) != "precompressed" {
		t.Error("viewer.wasm.gz not served")
	}
	if res := get(t, h, "/wasm_exec.js"); res.StatusCode != 200 || body(t, res) != "// go" {
		t.Errorf("wasm_exec.js: %d", res.StatusCode)
	}
}

// TestHandlerBadPath: a path that is not valid UTF-8 (such as the overlong
// encodings of "." that once slipped past path checks) is the client's error,
// 400, never a 500; ordinary misses stay 404.
func TestHandlerBadPath(t *testing.T) {
	t.Parallel()
	h := web.Handler(web.Options{WasmDir: t.TempDir()})
	for _, tc := range []struct {
		path string
		want int
	}{
		{"/%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd", http.StatusBadRequest},
		{"/%c0%ae", http.StatusBadRequest},
		{"/%ff", http.StatusBadRequest},
		{"/nosuchfile.txt", http.StatusNotFound},
		{"/style.css", http.StatusOK},
	} {
		if res := get(t, h, tc.path); res.StatusCode != tc.want {
			t.Errorf("GET %s: %d, want %d", tc.path, res.StatusCode, tc.want)
		}
	}
}

// TestHandlerManyRanges: a Range header of more than MaxRanges parts is ignored
// (the whole file, 200), since Go's multipart range writer costs seconds of CPU
// for tens of thousands of tiny ranges; a few ranges still get 206.
func TestHandlerManyRanges(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	wasm := bytes.Repeat([]byte("0123456789"), 10000)
	if err := os.WriteFile(filepath.Join(dir, web.WasmFile), wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	h := web.Handler(web.Options{WasmDir: dir})
	many := func(n int) string {
		var b strings.Builder
		b.WriteString("bytes=")
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "%d-%d", i*2, i*2)
		}
		return b.String()
	}
	for _, tc := range []struct {
		name   string
		ranges int
		want   int
	}{
		{"one range", 1, http.StatusPartialContent},
		{"the most allowed", web.MaxRanges, http.StatusPartialContent},
		{"one too many", web.MaxRanges + 1, http.StatusOK},
		{"sixty thousand", 60000, http.StatusOK},
	} {
		for _, path := range []string{"/" + web.WasmFile, "/style.css"} {
			res := get(t, h, path, "Range", many(tc.ranges))
			b := body(t, res)
			if res.StatusCode != tc.want {
				t.Errorf("%s, %s: %d, want %d", tc.name, path, res.StatusCode, tc.want)
			}
			if tc.want == http.StatusOK && path == "/"+web.WasmFile && len(b) != len(wasm) {
				t.Errorf("%s: %d bytes, want the whole %d", tc.name, len(b), len(wasm))
			}
		}
	}
}
