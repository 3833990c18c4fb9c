// Package precompress writes the brotli copy of the wasm viewer (viewer.wasm.br) that
// web's handler serves: with Content-Encoding: br to browsers that accept it, and as it
// is to the page, which decodes it itself, where they do not (Chromium asks for br on
// loopback and HTTPS origins only). It is a build
// step (make wasm, the browser tests), never linked into the server: brotli at its best
// quality takes minutes for a 20 MB wasm, gzip a second.
package precompress

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/andybalholm/brotli"
)

// Qualities: Best for what is served (≈ 2.5 min for the viewer; quality 10 left it
// 4 % larger, above the 3.5 MB the download may be), Fast for tests that need a valid
// file and not its size.
const (
	Best = brotli.BestCompression
	Fast = 5
)

// Brotli writes path+".br", brotli at quality q with the largest window HTTP allows
// (16 MB, lgwin 24), and returns its size. When a .br is there that decodes to the
// same bytes (make wasm rebuilds the wasm, identical, at every make run), it only
// marks it as new as the wasm, which the handler requires before serving it.
func Brotli(path string, q int) (int64, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	out := path + ".br"
	if old, err := os.ReadFile(out); err == nil && decodesTo(old, raw) {
		now := time.Now()
		return int64(len(old)), os.Chtimes(out, now, now)
	}
	var buf bytes.Buffer
	w := brotli.NewWriterOptions(&buf, brotli.WriterOptions{Quality: q, LGWin: 24})
	if _, err := w.Write(raw); err != nil {
		return 0, err
	}
	if err := w.Close(); err != nil {
		return 0, err
	}
	// Write beside it and rename: a server never serves a half-written file.
	tmp := out + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return 0, err
	}
	if err := os.Rename(tmp, out); err != nil {
		return 0, fmt.Errorf("precompress: %w", err)
	}
	return int64(buf.Len()), nil
}

func decodesTo(br, raw []byte) bool {
	got, err := io.ReadAll(io.LimitReader(brotli.NewReader(bytes.NewReader(br)), int64(len(raw))+1))
	return err == nil && bytes.Equal(got, raw)
}
