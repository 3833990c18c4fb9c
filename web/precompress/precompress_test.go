package precompress_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/twinframe/twinframe/web/precompress"
)

// TestBrotli: the .br decodes to the file; for an unchanged file an existing .br is
// kept (only made as new as the file), and a changed file is compressed again.
func TestBrotli(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "viewer.wasm")
	write := func(b []byte) {
		t.Helper()
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	decoded := func() []byte {
		t.Helper()
		br, err := os.ReadFile(path + ".br")
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(brotli.NewReader(bytes.NewReader(br)))
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	raw := bytes.Repeat([]byte("\x00asm precompress "), 1<<12)
	write(raw)
	n, err := precompress.Brotli(path, precompress.Fast)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path + ".br"); st == nil || st.Size() != n || n >= int64(len(raw))/10 {
		t.Fatalf("wrote %d bytes for %d", n, len(raw))
	}
	if !bytes.Equal(decoded(), raw) {
		t.Fatal(".br does not decode to the file")
	}

	// The same bytes rewritten later (a rebuild): the .br is kept (here one of another
	// quality, so that a new one would differ), and made as new.
	if err := os.Remove(path + ".br"); err != nil {
		t.Fatal(err)
	}
	kept, err := precompress.Brotli(path, 1)
	if err != nil {
		t.Fatal(err)
	}
	keptBr, _ := os.ReadFile(path + ".br")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path+".br", old, old); err != nil {
		t.Fatal(err)
	}
	write(raw)
	if n, err := precompress.Brotli(path, precompress.Fast); err != nil || n != kept {
		t.Fatalf("an unchanged file: %d bytes (%v), want the %d kept", n, err, kept)
	}
	if b, _ := os.ReadFile(path + ".br"); !bytes.Equal(b, keptBr) {
		t.Error("the .br of an unchanged file was rewritten")
	}
	st, _ := os.Stat(path + ".br")
	wst, _ := os.Stat(path)
	if st.ModTime().Before(wst.ModTime()) {
		t.Errorf(".br of an unchanged file left older than it: %v < %v", st.ModTime(), wst.ModTime())
	}

	// Other bytes: compressed again.
	raw2 := append(bytes.Clone(raw), "changed"...)
	write(raw2)
	if _, err := precompress.Brotli(path, precompress.Fast); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(decoded(), raw2) {
		t.Error(".br of a changed file still decodes to the old one")
	}
	if _, err := os.Stat(path + ".br.tmp"); !os.IsNotExist(err) {
		t.Errorf("temporary file left: %v", err)
	}
	if _, err := precompress.Brotli(filepath.Join(t.TempDir(), "missing.wasm"), precompress.Fast); err == nil {
		t.Error("a missing file: no error")
	}
}
