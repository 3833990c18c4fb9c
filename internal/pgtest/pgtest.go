// Package pgtest runs throw-away PostgreSQL servers for tests: Debian's
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
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/twinframe/twinframe/internal/testenv"
)

// BinDir is where Debian installs PostgreSQL 15's server programs.
const BinDir = "/usr/lib/postgresql/15/bin"

// Server is a running throw-away PostgreSQL server.
type Server struct {
	Dir  string // the temporary directory: data in Dir/data, the unix socket in Dir
	Port int

	cmd    *exec.Cmd
	exited chan struct{} // closed when the postmaster exits
	log    string        // its log file
	dbs    atomic.Int64
}

// ErrMissing is returned by Start when PostgreSQL is not installed (or, as root,
// there is no postgres user to run it as).
var ErrMissing = errors.New("pgtest: PostgreSQL 15 is not installed (apt-get install postgresql-15)")

// Start initialises and starts a server. Stop it with Stop.
func Start() (*Server, error) {
	for _, p := range []string{"initdb", "postgres"} {
		if _, err := os.Stat(filepath.Join(BinDir, p)); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrMissing, err)
		}
	}
	cred, err := credential()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, err
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	data := filepath.Join(dir, "data")
	// --no-sync: nothing survives the test anyway, and fsyncing the new cluster
	// costs seconds. The server itself keeps fsync on, so that saves cost here
	// what they cost in production (the store benchmark compares them).
	initdb := exec.Command(filepath.Join(BinDir, "initdb"), "-D", data, "-U", "postgres",
		"--auth=trust", "--encoding=UTF8", "--no-locale", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pgtest: initdb: %v\n%s", err, out)
	}
	// A port free now may be taken before the server binds it (other tests, other
	// users of the machine): try again on another.
	var lastErr error
	for range 5 {
		s, err := start(dir, cred)
		if err == nil {
			return s, nil
		}
		lastErr = err
		if !strings.Contains(err.Error(), "could not bind") && !strings.Contains(err.Error(), "Address already in use") {
			break
		}
	}
	os.RemoveAll(dir)
	return nil, lastErr
}

// credential is the postgres user's when running as root, nil otherwise.
func credential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("%w: running as root needs the postgres user: %v", ErrMissing, err)
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func start(dir string, cred *syscall.Credential) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &Server{Dir: dir, Port: port, exited: make(chan struct{}), log: filepath.Join(dir, "postgres.log")}
	logf, err := os.OpenFile(s.log, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	s.cmd = exec.Command(filepath.Join(BinDir, "postgres"), "-D", filepath.Join(dir, "data"),
		"-p", strconv.Itoa(port), "-k", dir, "-c", "listen_addresses=127.0.0.1")
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	// Pdeathsig: the kernel stops the server when the test process dies.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGINT, Setpgid: true}
	// The parent death signal follows the thread that started the child, not the
	// process: start it from a thread locked to a goroutine that outlives it.
	started := make(chan error)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		if err := s.cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		_ = s.cmd.Wait()
		close(s.exited)
	}()
	if err := <-started; err != nil {
		return nil, fmt.Errorf("pgtest: start postgres: %w", err)
	}
	if err := s.waitReady(30 * time.Second); err != nil {
		s.kill()
		return nil, err
	}
	return s, nil
}

// waitReady waits until the server accepts connections, or fails with its log.
func (s *Server) waitReady(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		c, err := pgx.Connect(ctx, s.DSN("postgres"))
		cancel()
		if err == nil {
			c.Close(context.Background())
			return nil
		}
		select {
		case <-s.exited:
			return fmt.Errorf("pgtest: postgres exited at start: %s", s.tail())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pgtest: postgres not ready after %v: %v; log: %s", limit, err, s.tail())
		}
	}
}

func (s *Server) tail() string {
	b, _ := os.ReadFile(s.log)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return strings.TrimSpace(string(b))
}

// DSN is the URL of database db on the server, as the postgres superuser.
func (s *Server) DSN(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.Port, db)
}

// CreateDB creates a new, empty, UTF8 database and returns its DSN.
func (s *Server) CreateDB(ctx context.Context) (string, error) {
	name := fmt.Sprintf("test%d", s.dbs.Add(1))
	c, err := pgx.Connect(ctx, s.DSN("postgres"))
	if err != nil {
		return "", fmt.Errorf("pgtest: %w", err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE DATABASE "+name+" ENCODING 'UTF8' TEMPLATE template0"); err != nil {
		return "", fmt.Errorf("pgtest: create database: %w", err)
	}
	return s.DSN(name), nil
}

// Stop shuts the server down (fast shutdown: sessions end, nothing is waited
// for), waits for it and removes its directory.
func (s *Server) Stop() error {
	var err error
	if s.cmd.Process.Signal(syscall.SIGINT) == nil {
		select {
		case <-s.exited:
		case <-time.After(30 * time.Second):
			err = fmt.Errorf("pgtest: postgres did not stop in 30s; killed: %s", s.tail())
		}
	}
	s.kill()
	if rerr := os.RemoveAll(s.Dir); err == nil {
		err = rerr
	}
	return err
}

// kill ends the server and its backends at once and waits for the postmaster.
func (s *Server) kill() {
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL) // its process group
	<-s.exited
}

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
