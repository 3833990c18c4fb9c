// Package web is the viewer's page: index.html, its CSS and JS glue, embedded in the
// binary, and an http.Handler that serves them with the wasm viewer beside them.
//
// Design note: the static files are embedded (go:embed static), but the 12 MB
// viewer.wasm and Go's wasm_exec.js are build products (make wasm), so the handler reads
// them from a directory given at run time; a fresh clone therefore vets, tests and builds
// without them, and the page says "run make wasm" when they are missing. The wasm is
// served gzip-compressed (about a quarter of its size) to clients that accept it: from a
// viewer.wasm.gz beside it when one is as new, or else compressed in the background once
// per file version and kept in memory (the raw file is served until that is ready), with
// X-Uncompressed-Length so the page's progress bar can count the bytes it streams.
//
// Brotli comes first: make wasm writes viewer.wasm.br (web/precompress, 30 % smaller
// than gzip), sent with Content-Encoding: br to browsers that accept it (Chromium does
// on loopback and HTTPS origins), and otherwise, when the page's request says it
// decodes brotli itself (PageDecodesHeader: on plain HTTP Chromium offers only gzip
// and has no brotli DecompressionStream), as it is, marked with PageEncodingHeader; the
// page then decodes it with the vendored static/brotli/decode.min.js. Any other client
// gets the gzip or the raw file, so the URL always yields a wasm to a plain HTTP client.
package web

import (
	"bytes"
	"compress/gzip"
	"embed"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

//go:embed static
var static embed.FS

// Static returns the page's static files (index.html, style.css, app.js).
func Static() fs.FS {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded directory exists at compile time
	}
	return sub
}

// Build products the handler serves from Options.WasmDir.
const (
	WasmFile     = "viewer.wasm"
	WasmExecFile = "wasm_exec.js"
)

// The page's brotli fallback: the request header by which the page says it decodes
// the named encoding itself, and the response header that says the body is in it.
const (
	PageDecodesHeader  = "X-Page-Decodes"
	PageEncodingHeader = "X-Page-Encoding"
)

// Options configure the handler.
type Options struct {
	// WasmDir is the directory holding viewer.wasm and wasm_exec.js (make wasm puts them
	// in web/). Empty: the current directory's web/.
	WasmDir string
}

// Handler serves the page at / and the wasm build products from opt.WasmDir.
func Handler(opt Options) http.Handler {
	dir := opt.WasmDir
	if dir == "" {
		dir = "web"
	}
	h := &handler{dir: dir, files: http.FileServerFS(Static())}
	// Start compressing the wasm now, so that the first page load gets it compressed.
	path := filepath.Join(dir, WasmFile)
	if st, err := os.Stat(path); err == nil {
		h.compressed(path, st)
	}
	return h
}

type handler struct {
	dir   string
	files http.Handler

	mu   sync.Mutex
	gz   []byte // the compressed wasm
	gzOf string // the version (size and modification time) gz was made of
	busy string // the version being compressed, or ""
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !utf8.ValidString(r.URL.Path) {
		// The file server would fail to open it and answer 500.
		http.Error(w, "bad path: not UTF-8", http.StatusBadRequest)
		return
	}
	if rg := r.Header.Get("Range"); rg != "" && strings.Count(rg, ",") >= MaxRanges {
		// RFC 9110 lets a server ignore Range; serving thousands of parts costs
		// seconds of CPU (one multipart header each), the whole file does not.
		r = r.Clone(r.Context())
		r.Header.Del("Range")
	}
	switch r.URL.Path {
	case "/" + WasmFile:
		h.serveWasm(w, r)
	case "/" + WasmExecFile:
		h.serveBuilt(w, r, WasmExecFile, "text/javascript; charset=utf-8")
	default:
		h.files.ServeHTTP(w, r)
	}
}

func notBuilt(w http.ResponseWriter, name string, err error) {
	http.Error(w, fmt.Sprintf("%s is not built (%v): run `make wasm`", name, err), http.StatusNotFound)
}

func (h *handler) serveBuilt(w http.ResponseWriter, r *http.Request, name, ctype string) {
	f, err := os.Open(filepath.Join(h.dir, name))
	if err != nil {
		notBuilt(w, name, err)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		notBuilt(w, name, err)
		return
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, name, st.ModTime(), f)
}

func (h *handler) serveWasm(w http.ResponseWriter, r *http.Request) {
	path := filepath.Join(h.dir, WasmFile)
	st, err := os.Stat(path)
	if err != nil {
		notBuilt(w, WasmFile, err)
		return
	}
	w.Header().Set("X-Uncompressed-Length", strconv.FormatInt(st.Size(), 10))
	w.Header().Set("Vary", "Accept-Encoding, "+PageDecodesHeader)
	if bst, err := os.Stat(path + ".br"); err == nil && !bst.ModTime().Before(st.ModTime()) {
		switch {
		case accepts(r, "br"):
			w.Header().Set("Content-Encoding", "br")
			h.serveBuilt(w, r, WasmFile+".br", "application/wasm")
			return
		case listHas(r.Header.Get(PageDecodesHeader), "br"):
			// Not a wasm until the page decodes it: no wasm Content-Type, so nothing
			// compiles it by mistake.
			w.Header().Set(PageEncodingHeader, "br")
			h.serveBuilt(w, r, WasmFile+".br", "application/octet-stream")
			return
		}
	}
	if !accepts(r, "gzip") {
		h.serveBuilt(w, r, WasmFile, "application/wasm")
		return
	}
	// A viewer.wasm.gz at least as new as the wasm (a build step may write one) wins;
	// then the in-memory copy; until that is ready, the raw file (never make a page wait
	// for the compressor).
	if gst, err := os.Stat(path + ".gz"); err == nil && !gst.ModTime().Before(st.ModTime()) {
		w.Header().Set("Content-Encoding", "gzip")
		h.serveBuilt(w, r, WasmFile+".gz", "application/wasm")
		return
	}
	gz := h.compressed(path, st)
	if gz == nil {
		h.serveBuilt(w, r, WasmFile, "application/wasm")
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "application/wasm")
	hd.Set("Content-Encoding", "gzip")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("ETag", `"`+version(st)+`-gz"`)
	http.ServeContent(w, r, "", st.ModTime(), bytes.NewReader(gz))
}

func version(st os.FileInfo) string {
	return strconv.FormatInt(st.Size(), 36) + "-" + strconv.FormatInt(st.ModTime().UnixNano(), 36)
}

// compressed returns the gzip of the wasm at path if it is ready, and otherwise starts
// compressing it in the background and returns nil.
func (h *handler) compressed(path string, st os.FileInfo) []byte {
	v := version(st)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.gz != nil && h.gzOf == v {
		return h.gz
	}
	if h.busy != v {
		h.busy = v
		go h.compress(path, v)
	}
	return nil
}

func (h *handler) compress(path, v string) {
	gz, err := gzipFile(path)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.busy == v {
		h.busy = ""
	}
	if err == nil {
		h.gz, h.gzOf = gz, v
	}
}

func gzipFile(path string) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.Grow(len(raw) / 3)
	zw, err := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(raw); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// accepts says whether r's Accept-Encoding allows the content coding enc.
func accepts(r *http.Request, enc string) bool {
	return listHas(r.Header.Get("Accept-Encoding"), enc)
}

// listHas says whether the comma-separated header value list names token without
// q=0.
func listHas(list, token string) bool {
	for _, part := range strings.Split(list, ",") {
		enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(enc), token) && strings.TrimSpace(q) != "q=0" {
			return true
		}
	}
	return false
}

// MaxRanges is the most parts of a Range header the handler honours; a Range of
// more parts is ignored (the whole file is served).
const MaxRanges = 16
