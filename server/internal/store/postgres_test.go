package store

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/twinframe/twinframe/internal/pgtest"
)

func TestRedact(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"postgres://tf:s3cret@db:5432/twinframe", "postgres://tf:xxxxx@db:5432/twinframe"},
		{"postgres://tf@db/twinframe?sslmode=disable", "postgres://tf@db/twinframe?sslmode=disable"},
		{"postgresql://tf:p%40ss@db/twinframe", "postgresql://tf:xxxxx@db/twinframe"},
		{"postgres://tf:bad%zz@db/twinframe", "postgres://tf:xxxxx@db/twinframe"}, // not a valid URL
		{"host=db user=tf password=s3cret dbname=twinframe", "host=db user=tf password=xxxxx dbname=twinframe"},
		{"host=db password = 'a b\\' c' dbname=x", "host=db password = xxxxx dbname=x"},
		{"/var/lib/twinframe.db", "/var/lib/twinframe.db"},
	} {
		if got := Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestOpenURL: the location picks the store; an unknown scheme is an error, not
// an SQLite file of that name.
func TestOpenURL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	for _, loc := range []string{"sqlite:" + dir + "/a.db", dir + "/b.db"} {
		s, err := OpenURL(ctx, loc)
		if err != nil {
			t.Fatalf("%s: %v", loc, err)
		}
		if _, ok := s.(*SQLite); !ok {
			t.Errorf("%s: a %T", loc, s)
		}
		s.Close()
	}
	for loc, want := range map[string]string{
		"mysql://u:pw@h/db": "store: mysql://u:xxxxx@h/db: unknown kind of store; use postgres://USER@HOST:PORT/DATABASE, sqlite:PATH or a file path",
		"sqlite:":           "store: sqlite:: unknown kind of store; use postgres://USER@HOST:PORT/DATABASE, sqlite:PATH or a file path",
		"":                  "store: : unknown kind of store; use postgres://USER@HOST:PORT/DATABASE, sqlite:PATH or a file path",
	} {
		if s, err := OpenURL(ctx, loc); err == nil || err.Error() != want {
			if s != nil {
				s.Close()
			}
			t.Errorf("OpenURL(%q) = %v, want %q", loc, err, want)
		}
	}
}

// TestPostgresUnreachable: a server that is not there fails the start at once,
// saying which store, without its password.
func TestPostgresUnreachable(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nobody listens there now
	dsn := "postgres://tf:s3cret@" + addr + "/twinframe"
	s, err := OpenURL(context.Background(), dsn)
	if err == nil {
		s.Close()
		t.Fatal("opened a store on a closed port")
	}
	prefix := "store: postgres://tf:xxxxx@" + addr + "/twinframe: connect: "
	if msg := err.Error(); !strings.HasPrefix(msg, prefix) || !strings.Contains(msg, "connection refused") || strings.Contains(msg, "s3cret") {
		t.Fatalf("error %q, want it to start %q, say connection refused and hide the password", msg, prefix)
	}
}

// TestPostgresRefuses: databases OpenPostgres must not take over.
func TestPostgresRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		setup []string
		want  string // after "store: DSN: "
	}{
		{"foreign tables", []string{"CREATE TABLE users (id int PRIMARY KEY, email text)", "CREATE TABLE orders (id int)"},
			"not a Twinframe database (no schema version, but it has table orders, table users); point -store at a Twinframe database or a new one"},
		{"players without unique name", []string{
			"CREATE TABLE players (id bigint PRIMARY KEY, name text NOT NULL, avatar bytea, saved_frame bigint NOT NULL DEFAULT 0, saves bigint NOT NULL DEFAULT 0)",
			"CREATE TABLE twinframe_schema (version integer NOT NULL)", "INSERT INTO twinframe_schema VALUES (1)"},
			"schema version 1 but players.name has no unique index; restore a backup"},
		{"players with other columns", []string{
			"CREATE TABLE players (id bigint PRIMARY KEY, name text UNIQUE)",
			"CREATE TABLE twinframe_schema (version integer NOT NULL)", "INSERT INTO twinframe_schema VALUES (2)"},
			"schema version 2 but table players differs from this server's (columns id bigint, name text); restore a backup"},
		{"players missing", []string{"CREATE TABLE twinframe_schema (version integer NOT NULL)", "INSERT INTO twinframe_schema VALUES (2)"},
			"schema version 2 but table players is missing; restore a backup"},
		{"empty version table", []string{"CREATE TABLE twinframe_schema (version integer NOT NULL)"},
			"reading schema version: the table twinframe_schema is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dsn := pgtest.DB(t)
			pgExec(t, dsn, tc.setup...)
			s, err := OpenPostgres(context.Background(), dsn)
			if err == nil {
				s.Close()
				t.Fatal("opened it")
			}
			if want := "store: " + Redact(dsn) + ": " + tc.want; err.Error() != want {
				t.Fatalf("got  %q\nwant %q", err, want)
			}
		})
	}
}

// TestPostgresRefusesReadOnlyAndLatin1: a role that may not write and a
// database that cannot hold every name fail at start, not at the first save.
func TestPostgresRefusesReadOnlyAndLatin1(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DB(t)
	open(t, dsn).Close()
	ro := strings.Replace(dsn, "postgres@", "reader@", 1)
	pgExec(t, dsn, "CREATE ROLE reader LOGIN", "GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader")
	_, err := OpenPostgres(context.Background(), ro)
	if err == nil || !strings.HasPrefix(err.Error(), "store: "+Redact(ro)+": not writable: ERROR: permission denied for table twinframe_schema") {
		t.Errorf("read-only role: %v", err)
	}
	latin := strings.Replace(dsn, "/test", "/latin", 1)
	pgExec(t, dsn, "CREATE DATABASE "+latin[strings.LastIndex(latin, "/")+1:strings.Index(latin, "?")]+" ENCODING 'LATIN1' TEMPLATE template0")
	_, err = OpenPostgres(context.Background(), latin)
	if want := "store: " + Redact(latin) + ": database encoding is LATIN1, not UTF8; create the database with ENCODING 'UTF8'"; err == nil || err.Error() != want {
		t.Errorf("LATIN1 database: %v, want %q", err, want)
	}
}

// TestPostgresConcurrentOpen: servers of a cluster starting at once on a new
// database migrate it once, and all open it.
func TestPostgresConcurrentOpen(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DB(t)
	const n = 6
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			s, err := OpenPostgres(context.Background(), dsn)
			if err == nil {
				s.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("open %d: %v", i, err)
		}
	}
	if v, err := open(t, dsn).SchemaVersion(context.Background()); err != nil || v != SchemaVersion {
		t.Fatalf("schema version %d %v", v, err)
	}
}
