// Package natstest runs a real nats-server process for tests: the binary built from
// the module's pinned github.com/nats-io/nats-server/v2 (a tool line in go.mod), with
// JetStream on, listening on a free 127.0.0.1 port, its store in a temp dir. Tests of
// the cluster's control plane need the real server's behaviour (JetStream's
// compare-and-set, expiry, a store that survives a kill -9), which is why this starts
// the same binary a deployment runs rather than embedding one in the test process.
//
// The binary is built once per test binary run; the Go build cache makes every build
// after the first fast. A package that uses Start runs its tests through Main (or Run),
// which removes the built binary when they are done. No server outlives its test:
// Cleanup stops it, and on Linux the kernel kills it if the test binary dies
// (Pdeathsig). Where the build cannot run (no module proxy, no go command) the test
// stops through testenv.Missing: a skip by hand, a failure in CI.
//
// It is for tests only.
package natstest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twinframe/twinframe/internal/testenv"
)

// Module is the package path of the server, built at the version go.mod pins.
const Module = "github.com/nats-io/nats-server/v2"

// readyTimeout bounds how long a started server may take to accept connections; a
// deadline for a hung start, not a performance expectation.
const readyTimeout = 30 * time.Second

var build struct {
	once sync.Once
	dir  string // the temp dir holding the binary
	bin  string
	err  error
	out  []byte // the go command's output when the build failed
}

// Main runs the package's tests, removes the binary built for them and exits. Use it
// as the package's TestMain: func TestMain(m *testing.M) { natstest.Main(m) }.
func Main(m *testing.M) { os.Exit(Run(m)) }

// Run is Main without the exit, for a TestMain with checks of its own after the
// tests (a goroutine leak check): it returns m.Run's code.
func Run(m *testing.M) int {
	code := m.Run()
	if build.dir != "" {
		os.RemoveAll(build.dir)
	}
	return code
}

// Binary returns the path of the nats-server binary built from the pinned module,
// building it on the first call.
func Binary(t testing.TB) string {
	t.Helper()
	build.once.Do(func() {
		gocmd, err := exec.LookPath("go")
		if err != nil {
			build.err = fmt.Errorf("no go command to build %s: %w", Module, err)
			return
		}
		if build.dir, build.err = os.MkdirTemp("", "natstest-"); build.err != nil {
			return
		}
		build.bin = filepath.Join(build.dir, "nats-server")
		// Run from the test's directory, which is inside the module, so the build
		// takes the version go.mod pins.
		build.out, build.err = exec.Command(gocmd, "build", "-o", build.bin, Module).CombinedOutput()
	})
	if build.err != nil {
		testenv.Missing(t, "cannot build nats-server from %s (is the module proxy reachable?): %v\n%s", Module, build.err, build.out)
	}
	return build.bin
}

// Server is one nats-server process with JetStream.
type Server struct {
	t        testing.TB
	bin      string
	port     int
	storeDir string
	logFile  string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has exited
}

// Start builds (once) and starts a nats-server with JetStream on a free loopback
// port, its store in a temp dir, and waits until it accepts connections. The test's
// cleanup stops it.
func Start(t testing.TB) *Server {
	t.Helper()
	dir := t.TempDir()
	s := &Server{t: t, bin: Binary(t), storeDir: filepath.Join(dir, "jetstream"), logFile: filepath.Join(dir, "nats-server.log")}
	t.Cleanup(s.stop)
	// A free port found by listening can be taken by someone else before the server
	// binds it; the server then exits at once, and another port is tried.
	var err error
	for range 5 {
		if s.port, err = freePort(); err != nil {
			t.Fatalf("natstest: %v", err)
		}
		if err = s.start(); err == nil {
			return s
		}
	}
	t.Fatalf("natstest: %v", err)
	return nil
}

// URL is the client URL, nats://127.0.0.1:PORT.
func (s *Server) URL() string { return "nats://127.0.0.1:" + strconv.Itoa(s.port) }

// Port is the client port, the same across restarts.
func (s *Server) Port() int { return s.port }

// StoreDir is JetStream's store directory, the same across restarts.
func (s *Server) StoreDir() string { return s.storeDir }

// Kill ends the server with SIGKILL, as a crash would, and waits until it is gone.
func (s *Server) Kill() {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		s.t.Fatalf("natstest: Kill of a server that is not running")
	}
	s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.done
	s.cmd = nil
}

// Restart starts the server again on the same port with the same store dir, and
// waits until it accepts connections. It is for after Kill.
func (s *Server) Restart() {
	s.t.Helper()
	if err := s.start(); err != nil {
		s.t.Fatalf("natstest: restart: %v", err)
	}
}

// start runs the binary and waits until it accepts connections, or fails with the
// end of its log when it exits first or does not answer in time.
func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return errors.New("the server is already running")
	}
	cmd := exec.Command(s.bin, "-a", "127.0.0.1", "-p", strconv.Itoa(s.port), "-js", "-sd", s.storeDir, "-l", s.logFile)
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", s.bin, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	if err := waitReady(s.port, done); err != nil {
		cmd.Process.Signal(syscall.SIGKILL)
		<-done
		return fmt.Errorf("nats-server on port %d: %w\n%s", s.port, err, s.logTail())
	}
	s.cmd, s.done = cmd, done
	return nil
}

// stop ends a running server: SIGTERM, then SIGKILL if it has not exited in time.
func (s *Server) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Signal(syscall.SIGKILL)
		<-s.done
	}
	s.cmd = nil
}

// waitReady waits until a connection to port gets the NATS greeting (an INFO line),
// which the server sends once it has started, JetStream's recovery of its store
// included.
func waitReady(port int, exited <-chan struct{}) error {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	deadline := time.Now().Add(readyTimeout)
	for {
		select {
		case <-exited:
			return errors.New("exited before accepting connections")
		default:
		}
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.SetDeadline(time.Now().Add(5 * time.Second))
			line, rerr := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if rerr == nil && strings.HasPrefix(line, "INFO ") {
				return nil
			}
			err = fmt.Errorf("no NATS greeting: %q %v", line, rerr)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not accepting connections after %v: %w", readyTimeout, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// logTail is the end of the server's log, for failure messages.
func (s *Server) logTail() string {
	b, err := os.ReadFile(s.logFile)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(bytes.TrimSpace(b))
}

// freePort returns a loopback TCP port nobody listened on a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
