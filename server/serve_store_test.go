package main

import (
	"bytes"
	"context"
	"database/sql"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/twinframe/twinframe/internal/pgtest"
	"github.com/twinframe/twinframe/server/internal/store"
)

// TestMain stops the package's PostgreSQL server, if a test started one.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

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

// TestServeStoreFlag: -store names the store; with -db as well it is a usage
// error; an unreachable PostgreSQL fails the start naming it, password hidden.
func TestServeStoreFlag(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string // prefix
	}{
		{"both", []string{"-db", filepath.Join(dir, "a.db"), "-store", "sqlite:" + filepath.Join(dir, "b.db")}, 2,
			"server: -db and -store both name the store: give one\n"},
		{"unreachable", []string{"-store", "postgres://tf:s3cret@" + closed + "/twinframe"}, 1,
			"server: store: postgres://tf:xxxxx@" + closed + "/twinframe: connect: "},
		{"unknown", []string{"-store", "redis://" + closed}, 1,
			"server: store: redis://" + closed + ": unknown kind of store"},
	} {
		var stdout, stderr bytes.Buffer
		code := serveCommand(append(tc.args, "-addr", "127.0.0.1:0"), &stdout, &stderr)
		if code != tc.code || !strings.HasPrefix(stderr.String(), tc.stderr) || strings.Contains(stderr.String(), "s3cret") || stdout.Len() > 0 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d, stderr starting %q", tc.name, code, stdout.String(), stderr.String(), tc.code, tc.stderr)
		}
	}
}

// TestAccountResetStore: `server account -store LOCATION reset NAME` on each
// kind of store.
func TestAccountResetStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "twinframe.db")
	for _, loc := range []string{"sqlite:" + path, pgtest.DB(t)} {
		st, err := store.OpenURL(ctx, loc)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := st.Claim(ctx, "Ororo", "first secret"); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		if code := accountCommand([]string{"-store", loc, "reset", "ORORO"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), `the secret of "Ororo" is cleared`) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", loc, code, stdout.String(), stderr.String())
		}
		if a, err := st.Account(ctx, "ororo"); err != nil || a.Secret != "" {
			t.Errorf("%s: after the reset: %+v %v", loc, a, err)
		}
		st.Close()
	}
	var stdout, stderr bytes.Buffer
	if code := accountCommand([]string{"-store", "sqlite:" + path + ".typo", "reset", "Ororo"}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "no such file") {
		t.Errorf("missing file: exit %d, stderr %q", code, stderr.String())
	}
	if _, err := os.Stat(path + ".typo"); err == nil {
		t.Error("account -store on a missing file created it")
	}
}

// TestServeClusterFlags: -cluster needs -node and a shared store; -node and
// -prefer need -cluster; an unreachable NATS fails the start naming it.
func TestServeClusterFlags(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	pg := pgtest.DB(t)
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string // prefix
	}{
		{"no node", []string{"-cluster", "nats://" + closed, "-store", pg}, 2, "server: -cluster needs -node NAME"},
		{"node alone", []string{"-node", "a"}, 2, "server: -node and -prefer need -cluster"},
		{"sqlite", []string{"-cluster", "nats://" + closed, "-node", "a", "-db", filepath.Join(dir, "a.db")}, 2,
			"server: -cluster needs a store the nodes share: -store postgres://"},
		{"bad prefer", []string{"-cluster", "nats://" + closed, "-node", "a", "-store", pg, "-prefer", "wilds"}, 2,
			`server: -prefer "wilds": want region=node pairs`},
		{"unreachable", []string{"-cluster", "nats://" + closed, "-node", "a", "-store", pg}, 1,
			"server: cluster: nats://" + closed + ": connect: "},
	} {
		var stdout, stderr bytes.Buffer
		code := serveCommand(append(tc.args, "-addr", "127.0.0.1:0"), &stdout, &stderr)
		if code != tc.code || !strings.HasPrefix(stderr.String(), tc.stderr) || stdout.Len() > 0 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d, stderr starting %q", tc.name, code, stdout.String(), stderr.String(), tc.code, tc.stderr)
		}
	}
}
