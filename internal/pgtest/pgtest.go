// Package pgtest runs throw-away PostgreSQL servers for tests (internal/devproc): Debian's
// PostgreSQL 15 (/usr/lib/postgresql/15/bin), initialised in a temporary
// directory, listening on a free 127.0.0.1 port with its unix socket in that
// directory, and removed with it when stopped.
//
// A test package starts at most one server, on first use, and stops it when its
// tests end:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
//
//	func TestX(t *testing.T) {
//		dsn := pgtest.DB(t) // a new, empty database of the package's server
//		...
//	}
//
// The server runs as a child of the test process, not as a daemon (pg_ctl start
// would detach it): it gets SIGINT — PostgreSQL's fast shutdown, what pg_ctl stop
// -m fast sends — when the test process dies for any reason, a panic or a
// -timeout included, so no test run leaves one behind. As root, PostgreSQL
// refuses to run: initdb and the server then run as the postgres system user,
// and the temporary directory belongs to it.
//
// When the binaries are missing, DB stops the test with testenv.Missing: a skip
// by hand, a failure in CI.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/twinframe/twinframe/internal/devproc"
	"github.com/twinframe/twinframe/internal/testenv"
)

// BinDir is where Debian installs PostgreSQL 15's server programs.
const BinDir = devproc.PostgresBinDir

// Server is a running throw-away PostgreSQL server (devproc.Postgres).
type Server = devproc.Postgres

// ErrMissing is returned by Start when PostgreSQL is not installed (or, as root,
// there is no postgres user to run it as).
var ErrMissing = devproc.ErrPostgresMissing

// Start initialises and starts a server. Stop it with Stop.
func Start() (*Server, error) { return devproc.StartPostgres() }

// The package's shared server.
var (
	shared struct {
		sync.Mutex
		s       *Server
		err     error
		started bool
	}
)

// Shared returns the test package's server, starting it on first use.
func Shared() (*Server, error) {
	shared.Lock()
	defer shared.Unlock()
	if !shared.started {
		shared.started = true
		shared.s, shared.err = Start()
	}
	return shared.s, shared.err
}

// DB returns the DSN of a new, empty database on the package's server (Main
// must run the package's tests). A missing PostgreSQL stops t with
// testenv.Missing; any other failure fails it.
func DB(t testing.TB) string {
	t.Helper()
	s, err := Shared()
	if errors.Is(err, ErrMissing) {
		testenv.Missing(t, "%v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	dsn, err := s.CreateDB(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return dsn
}

// Main runs the package's tests, then stops the shared server if one started.
func Main(m *testing.M) int {
	code := m.Run()
	if err := StopShared(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// StopShared stops the package's shared server if one started, for a TestMain
// that runs its tests through another helper (natstest.Run) and cannot use Main.
func StopShared() error {
	shared.Lock()
	defer shared.Unlock()
	if shared.s == nil {
		return nil
	}
	err := shared.s.Stop()
	shared.s = nil
	return err
}
