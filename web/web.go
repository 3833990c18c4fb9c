// Package web is the viewer's page: index.html, its CSS and JS glue, embedded in the
// binary, and an http.Handler that serves them with the wasm viewer beside them.
//
// Design note: the static files are embedded (go:embed static), but the 12 MB
// viewer.wasm and Go's wasm_exec.js are build products (make wasm), so the handler reads
// them from a directory given at run time; a fresh clone therefore vets, tests and builds
// without them, and the page says "run make wasm" when they are missing. The wasm is
// served gzip-compressed (about a quarter of its size) to clients that accept it,
// compressed once per file version and kept in memory, with X-Uncompressed-Length so the
// page's progress bar can count the bytes it streams.
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
	"time"
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
	return h
}

type handler struct {
	dir   string
	files http.Handler

	mu   sync.Mutex
	gz   []byte // the compressed wasm
	gzOf string // the version (size and modification time) gz was made of
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
	if !acceptsGzip(r) {
		w.Header().Set("X-Uncompressed-Length", strconv.FormatInt(st.Size(), 10))
		h.serveBuilt(w, r, WasmFile, "application/wasm")
		return
	}
	gz, err := h.compressed(path, st)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "application/wasm")
	hd.Set("Content-Encoding", "gzip")
	hd.Set("Vary", "Accept-Encoding")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("ETag", `"`+version(st)+`-gz"`)
	hd.Set("X-Uncompressed-Length", strconv.FormatInt(st.Size(), 10))
	http.ServeContent(w, r, "", st.ModTime(), bytes.NewReader(gz))
}

func version(st os.FileInfo) string {
	return strconv.FormatInt(st.Size(), 36) + "-" + strconv.FormatInt(st.ModTime().UnixNano(), 36)
}

// compressed returns the gzip of the wasm at path, compressing it when it changed.
func (h *handler) compressed(path string, st os.FileInfo) ([]byte, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	v := version(st)
	if h.gz != nil && h.gzOf == v {
		return h.gz, nil
	}
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
	zw.ModTime = time.Time{}
	if _, err := zw.Write(raw); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	h.gz, h.gzOf = buf.Bytes(), v
	return h.gz, nil
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.TrimSpace(enc) == "gzip" && strings.TrimSpace(q) != "q=0" {
			return true
		}
	}
	return false
}
