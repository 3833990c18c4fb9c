package store

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// realDB writes a database the way the server does: three players, each saved.
func realDB(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "twinframe.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"alice", "bob", "carol"} {
		p, _, err := s.Login(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SaveAvatar(ctx, p.ID, avatarBlob(int64(i+1)), uint64(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil { // checkpoints the WAL into the file
		t.Fatal(err)
	}
	return path
}

// rawDB runs statements on the file with plain SQLite, bypassing Open's checks.
func rawDB(t testing.TB, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// pageOf returns the byte offset and size of the root page of a schema object.
func pageOf(t *testing.T, path, name string) (int64, int64) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var root, size int64
	if err := db.QueryRow(`SELECT rootpage FROM sqlite_schema WHERE name = ?`, name).Scan(&root); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`PRAGMA page_size`).Scan(&size); err != nil {
		t.Fatal(err)
	}
	return (root - 1) * size, size
}

func patchFile(t *testing.T, path string, fn func(b []byte)) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fn(b)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// makeReadOnly makes path unwritable even for root: chmod for others, the
// immutable attribute (chattr +i, which binds root too) as root.
func makeReadOnly(t *testing.T, path string) {
	t.Helper()
	if os.Geteuid() != 0 {
		if err := os.Chmod(path, 0o444); err != nil {
			t.Fatal(err)
		}
		return
	}
	if out, err := exec.Command("chattr", "+i", path).CombinedOutput(); err != nil {
		t.Skipf("as root a read-only file needs chattr +i, which failed here (%v: %s); the case runs as non-root", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("chattr", "-i", path).Run() })
}

// TestOpenRefusesDamagedStore: each way a store can be damaged or foreign makes
// Open fail with a message that says what is wrong and what to do, instead of a
// server on which logins fail or create duplicate players.
func TestOpenRefusesDamagedStore(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		damage func(t *testing.T, path string)
		want   string // $DB stands for the path, $N for SchemaVersion
	}{
		{"index page overwritten", func(t *testing.T, path string) {
			off, size := pageOf(t, path, "sqlite_autoindex_players_1")
			patchFile(t, path, func(b []byte) {
				for i := off + 8; i < off+size; i++ {
					b[i] = 0xa5
				}
			})
		}, "store: $DB: integrity check failed: Tree 3 page 3 cell 2: Offset 42405 out of range 4069..4092; Tree 3 page 3 cell 1: Offset 42405 out of range 4069..4092; Tree 3 page 3 cell 0: Offset 42405 out of range 4069..4092; restore a backup or run sqlite3 .recover"},
		{"name missing from index", func(t *testing.T, path string) {
			// The b-tree stays well formed, so only the index-vs-table check sees it;
			// before it, a login as alice created a second alice.
			off, size := pageOf(t, path, "sqlite_autoindex_players_1")
			patchFile(t, path, func(b []byte) {
				page := b[off : off+size]
				i := bytes.Index(page, []byte("alice"))
				if i < 0 {
					t.Fatal("alice not on the index page")
				}
				page[i+4] = 'z'
			})
		}, "store: $DB: integrity check failed: row 1 missing from index sqlite_autoindex_players_1; restore a backup or run sqlite3 .recover"},
		{"not a database", func(t *testing.T, path string) {
			if err := os.WriteFile(path, bytes.Repeat([]byte("not sqlite\n"), 500), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "store: $DB: cannot read the database: file is not a database; restore a backup or run sqlite3 .recover"},
		{"newer schema", func(t *testing.T, path string) {
			rawDB(t, path, "PRAGMA user_version = 99")
		}, "store: $DB: schema version 99 is newer than this server's ($N); run the server version that wrote it, or restore a backup"},
		{"foreign tables", func(t *testing.T, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			rawDB(t, path, "CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT)", "CREATE INDEX users_email ON users(email)")
		}, "store: $DB: not a Twinframe database (no schema version, but it has index users_email, table users); point -db at a Twinframe database or a new file"},
		{"players without unique name", func(t *testing.T, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			rawDB(t, path, "CREATE TABLE players (id INTEGER PRIMARY KEY, name TEXT, avatar BLOB, saved_frame INTEGER, saves INTEGER)",
				"PRAGMA user_version = 1")
		}, "store: $DB: schema version 1 but table players differs from this server's (CREATE TABLE players (id INTEGER PRIMARY KEY, name TEXT, avatar BLOB, saved_frame INTEGER, saves INTEGER)); restore a backup or run sqlite3 .recover"},
		{"name index dropped", func(t *testing.T, path string) {
			rawDB(t, path, "PRAGMA writable_schema = ON", "DELETE FROM sqlite_schema WHERE name = 'sqlite_autoindex_players_1'")
		}, "store: $DB: integrity check failed: database disk image is malformed; restore a backup or run sqlite3 .recover"},
		{"read-only file", func(t *testing.T, path string) {
			makeReadOnly(t, path)
		}, "store: $DB: not writable: attempt to write a readonly database; check the permissions and free space of the file and its directory"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := realDB(t)
			tc.damage(t, path)
			s, err := Open(context.Background(), path)
			if err == nil {
				s.Close()
				t.Fatal("Open accepted the damaged store")
			}
			if got, want := err.Error(), strings.NewReplacer("$DB", path, "$N", strconv.Itoa(SchemaVersion)).Replace(tc.want); got != want {
				t.Errorf("Open error:\n got %q\nwant %q", got, want)
			}
		})
	}
}

// TestOpenAcceptsSoundStore: the checks pass on a sound store, an empty file and
// a new path, and leave the data alone.
func TestOpenAcceptsSoundStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := realDB(t)
	empty := filepath.Join(t.TempDir(), "empty.db")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, empty, filepath.Join(t.TempDir(), "new.db")} {
		s, err := Open(ctx, p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if p == path {
			got, err := s.Player(ctx, "bob")
			if n, _ := readAvatar(got.Avatar); err != nil || n != 2 {
				t.Errorf("bob after the checks: %+v %v", got, err)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
