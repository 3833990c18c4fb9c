package devproc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// PostgresBinDir is where Debian installs PostgreSQL 15's server programs.
const PostgresBinDir = "/usr/lib/postgresql/15/bin"

// ErrPostgresMissing is returned by StartPostgres when PostgreSQL is not installed
// (or, as root, there is no postgres user to run it as).
var ErrPostgresMissing = errors.New("postgres: PostgreSQL 15 is not installed (apt-get install postgresql-15)")

// Postgres is a running throw-away PostgreSQL server: its data in Dir/data, its
// unix socket in Dir, listening on 127.0.0.1:Port.
//
// It runs as a child of this process, not as a daemon (pg_ctl start would detach
// it): it gets SIGINT — PostgreSQL's fast shutdown, what pg_ctl stop -m fast
// sends — when this process dies for any reason. As root, PostgreSQL refuses to
// run: initdb and the server then run as the postgres system user, and Dir
// belongs to it.
type Postgres struct {
	Dir  string
	Port int

	p   *Process
	log string // its log file
	dbs atomic.Int64
}

// StartPostgres initialises a server in a new temporary directory and starts it.
// Stop it with Stop, which removes the directory.
func StartPostgres() (*Postgres, error) { return StartPostgresIn("") }

// StartPostgresIn is StartPostgres with the server's directory made in parent
// ("" for the system's temp dir). As root, the postgres user must be able to
// reach it: parent must be searchable by others.
func StartPostgresIn(parent string) (*Postgres, error) {
	for _, p := range []string{"initdb", "postgres"} {
		if _, err := os.Stat(filepath.Join(PostgresBinDir, p)); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrPostgresMissing, err)
		}
	}
	cred, err := postgresCredential()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(parent, "postgres-")
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
	// --no-sync: nothing survives the server anyway, and fsyncing the new cluster
	// costs seconds. The server itself keeps fsync on, so that saves cost here
	// what they cost in production (the store benchmark compares them).
	initdb := exec.Command(filepath.Join(PostgresBinDir, "initdb"), "-D", data, "-U", "postgres",
		"--auth=trust", "--encoding=UTF8", "--no-locale", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("postgres: initdb in %s: %v\n%s", dir, err, out)
	}
	// A port free now may be taken before the server binds it (other programs on
	// the machine): try again on another.
	var lastErr error
	for range 5 {
		s, err := startPostgres(dir, cred)
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

// postgresCredential is the postgres user's when running as root, nil otherwise.
func postgresCredential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("%w: running as root needs the postgres user: %v", ErrPostgresMissing, err)
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func startPostgres(dir string, cred *syscall.Credential) (*Postgres, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	s := &Postgres{Dir: dir, Port: port, log: filepath.Join(dir, "postgres.log")}
	logf, err := os.OpenFile(s.log, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.Command(filepath.Join(PostgresBinDir, "postgres"), "-D", filepath.Join(dir, "data"),
		"-p", strconv.Itoa(port), "-k", dir, "-c", "listen_addresses=127.0.0.1")
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if s.p, err = Start(cmd, syscall.SIGINT); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := s.waitReady(30 * time.Second); err != nil {
		s.p.KillGroup()
		return nil, err
	}
	return s, nil
}

// waitReady waits until the server accepts connections, or fails with its log.
func (s *Postgres) waitReady(limit time.Duration) error {
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
		case <-s.p.Done():
			return fmt.Errorf("postgres: exited at start: %s", logTail(s.log))
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres: not ready after %v: %v; log: %s", limit, err, logTail(s.log))
		}
	}
}

// Pid is the postmaster's process id.
func (s *Postgres) Pid() int { return s.p.Pid() }

// DSN is the URL of database db on the server, as the postgres superuser.
func (s *Postgres) DSN(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.Port, db)
}

// CreateDB creates a new, empty, UTF8 database with a name of its own and returns
// its DSN.
func (s *Postgres) CreateDB(ctx context.Context) (string, error) {
	return s.CreateDatabase(ctx, fmt.Sprintf("test%d", s.dbs.Add(1)))
}

// CreateDatabase creates the new, empty, UTF8 database name (an SQL identifier:
// lower-case letters, digits and '_') and returns its DSN.
func (s *Postgres) CreateDatabase(ctx context.Context, name string) (string, error) {
	c, err := pgx.Connect(ctx, s.DSN("postgres"))
	if err != nil {
		return "", fmt.Errorf("postgres: %w", err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()+" ENCODING 'UTF8' TEMPLATE template0"); err != nil {
		return "", fmt.Errorf("postgres: create database %s: %w", name, err)
	}
	return s.DSN(name), nil
}

// Stop shuts the server down (fast shutdown: sessions end, nothing is waited
// for), waits for it and removes its directory.
func (s *Postgres) Stop() error {
	var err error
	if s.p.Signal(syscall.SIGINT) == nil {
		select {
		case <-s.p.Done():
		case <-time.After(30 * time.Second):
			err = fmt.Errorf("postgres: did not stop in 30 s; killed: %s", logTail(s.log))
		}
	}
	// The postmaster's backends are in its group: none outlives it.
	s.p.KillGroup()
	if rerr := os.RemoveAll(s.Dir); err == nil {
		err = rerr
	}
	return err
}
