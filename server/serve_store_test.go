package main

import (
	"bytes"
	"database/sql"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/twinframe/twinframe/server/internal/store"
)

// TestServeRefusesNewerStore: `server serve` on a store it must not trust exits 1
// before listening, saying what is wrong and what to do.
func TestServeRefusesNewerStore(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "twinframe.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	var stdout, stderr bytes.Buffer
	code := serveCommand([]string{"-db", path, "-addr", "127.0.0.1:0"}, &stdout, &stderr)
	want := "server: store: " + path + ": schema version 99 is newer than this server's (" + strconv.Itoa(store.SchemaVersion) + "); run the server version that wrote it, or restore a backup\n"
	if code != 1 || stderr.String() != want || strings.Contains(stdout.String(), "serving") {
		t.Fatalf("serve on a newer store: exit %d, stdout %q, stderr %q; want exit 1, %q", code, stdout.String(), stderr.String(), want)
	}
}
