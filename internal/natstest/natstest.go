// Package natstest runs a real nats-server process for tests (internal/devproc):
// the binary built from the module's pinned github.com/nats-io/nats-server/v2 (a
// tool line in go.mod), with JetStream on, listening on a free 127.0.0.1 port, its
// store in the test's temp dir. Tests of the cluster's control plane need the real
// server's behaviour (JetStream's compare-and-set, expiry, a store that survives a
// kill -9), which is why this starts the same binary a deployment runs rather than
// embedding one in the test process.
//
// The binary is built once per test binary run, and kept in the Go build cache
// (go tool -n), so that later runs cost no link. No server outlives its test:
// Cleanup stops it, and on Linux the kernel kills it if the test binary dies
// (Pdeathsig). Where the build cannot run (no module proxy, no go command) the test
// stops through testenv.Missing: a skip by hand, a failure in CI.
//
// It is for tests only.
package natstest

import (
	"os"
	"sync"
	"testing"

	"github.com/twinframe/twinframe/internal/devproc"
	"github.com/twinframe/twinframe/internal/testenv"
)

// Module is the package path of the server, built at the version go.mod pins.
const Module = devproc.NATSModule

var build struct {
	once sync.Once
	bin  string
	err  error
}

// Main runs the package's tests and exits. Use it as the package's TestMain:
// func TestMain(m *testing.M) { natstest.Main(m) }.
func Main(m *testing.M) { os.Exit(Run(m)) }

// Run is Main without the exit, for a TestMain with checks of its own after the
// tests (a goroutine leak check): it returns m.Run's code. The binary lives in
// the Go build cache, so there is nothing to remove after the tests.
func Run(m *testing.M) int { return m.Run() }

// Binary returns the path of the nats-server binary built from the pinned module,
// building it on the first call.
func Binary(t testing.TB) string {
	t.Helper()
	// Run from the test's directory, which is inside the module, so the build
	// takes the version go.mod pins.
	build.once.Do(func() { build.bin, build.err = devproc.BuildNATS("") })
	if build.err != nil {
		testenv.Missing(t, "cannot build nats-server: %v", build.err)
	}
	return build.bin
}

// Server is one nats-server process with JetStream.
type Server struct {
	t testing.TB
	*devproc.NATS
}

// Start builds (once) and starts a nats-server with JetStream on a free loopback
// port, its store in a temp dir, and waits until it accepts connections. The test's
// cleanup stops it.
func Start(t testing.TB) *Server {
	t.Helper()
	n, err := devproc.StartNATS(Binary(t), t.TempDir())
	if err != nil {
		t.Fatalf("natstest: %v", err)
	}
	t.Cleanup(func() {
		if err := n.Stop(); err != nil {
			t.Errorf("natstest: %v", err)
		}
	})
	return &Server{t: t, NATS: n}
}

// Kill ends the server with SIGKILL, as a crash would, and waits until it is gone.
func (s *Server) Kill() {
	s.t.Helper()
	if err := s.NATS.Kill(); err != nil {
		s.t.Fatalf("natstest: %v", err)
	}
}

// Restart starts the server again on the same port with the same store dir, and
// waits until it accepts connections. It is for after Kill.
func (s *Server) Restart() {
	s.t.Helper()
	if err := s.NATS.Restart(); err != nil {
		s.t.Fatalf("natstest: %v", err)
	}
}
