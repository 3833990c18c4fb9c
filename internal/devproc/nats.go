package devproc

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
	"time"
)

// NATSModule is the package path of the server, built at the version go.mod pins.
const NATSModule = "github.com/nats-io/nats-server/v2"

// natsReadyTimeout bounds how long a started server may take to accept
// connections; a deadline for a hung start, not a performance expectation.
const natsReadyTimeout = 30 * time.Second

// BuildNATS returns the path of the nats-server binary built from the pinned
// module: `go tool -n nats-server`, run in dir (a directory inside the Twinframe
// module, "" for the current one), which builds the go.mod tool on first use and
// keeps the executable in the Go build cache, so later calls cost no link.
func BuildNATS(dir string) (string, error) {
	gocmd, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("no go command to build %s: %w", NATSModule, err)
	}
	cmd := exec.Command(gocmd, "tool", "-n", "nats-server")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("build nats-server from %s (the tool pinned in go.mod: run inside the Twinframe module, with the module proxy or cache reachable): %w\n%s",
			NATSModule, err, bytes.TrimSpace(stderr.Bytes()))
	}
	bin := strings.TrimSpace(string(out))
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("build nats-server from %s: %w", NATSModule, err)
	}
	return bin, nil
}

// NATS is one nats-server process with JetStream.
type NATS struct {
	bin      string
	port     int
	storeDir string
	logFile  string

	mu sync.Mutex
	p  *Process // nil while stopped
}

// StartNATS starts the nats-server binary bin with JetStream on a free loopback
// port, its store in dir/jetstream and its log in dir/nats-server.log, and waits
// until it accepts connections. Stop it with Stop.
func StartNATS(bin, dir string) (*NATS, error) {
	s := &NATS{bin: bin, storeDir: filepath.Join(dir, "jetstream"), logFile: filepath.Join(dir, "nats-server.log")}
	// A free port found by listening can be taken by someone else before the server
	// binds it; the server then exits at once, and another port is tried.
	var err error
	for range 5 {
		if s.port, err = FreePort(); err != nil {
			return nil, err
		}
		if err = s.start(); err == nil {
			return s, nil
		}
	}
	return nil, err
}

// URL is the client URL, nats://127.0.0.1:PORT.
func (s *NATS) URL() string { return "nats://127.0.0.1:" + strconv.Itoa(s.port) }

// Port is the client port, the same across restarts.
func (s *NATS) Port() int { return s.port }

// StoreDir is JetStream's store directory, the same across restarts.
func (s *NATS) StoreDir() string { return s.storeDir }

// Pid is the running server's process id, 0 when it is stopped.
func (s *NATS) Pid() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.p == nil {
		return 0
	}
	return s.p.Pid()
}

// Kill ends the server with SIGKILL, as a crash would, and waits until it is gone.
func (s *NATS) Kill() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.p == nil {
		return errors.New("nats-server: Kill of a server that is not running")
	}
	_ = s.p.Signal(syscall.SIGKILL)
	<-s.p.Done()
	s.p = nil
	return nil
}

// Restart starts the server again on the same port with the same store dir, and
// waits until it accepts connections. It is for after Kill.
func (s *NATS) Restart() error {
	if err := s.start(); err != nil {
		return fmt.Errorf("nats-server: restart: %w", err)
	}
	return nil
}

// start runs the binary and waits until it accepts connections, or fails with the
// end of its log when it exits first or does not answer in time.
func (s *NATS) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.p != nil {
		return errors.New("nats-server: already running")
	}
	cmd := exec.Command(s.bin, "-a", "127.0.0.1", "-p", strconv.Itoa(s.port), "-js", "-sd", s.storeDir, "-l", s.logFile)
	p, err := Start(cmd, syscall.SIGKILL)
	if err != nil {
		return err
	}
	if err := waitNATS(s.port, p.Done()); err != nil {
		_ = p.Signal(syscall.SIGKILL)
		<-p.Done()
		return fmt.Errorf("nats-server on port %d: %w\n%s", s.port, err, logTail(s.logFile))
	}
	s.p = p
	return nil
}

// Stop ends a running server: SIGTERM, then SIGKILL if it has not exited in
// time. Stopping a stopped server does nothing.
func (s *NATS) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.p == nil {
		return nil
	}
	p := s.p
	s.p = nil
	_ = p.Signal(syscall.SIGTERM)
	select {
	case <-p.Done():
		return nil
	case <-time.After(10 * time.Second):
		_ = p.Signal(syscall.SIGKILL)
		<-p.Done()
		return fmt.Errorf("nats-server did not stop in 10 s; killed: %s", logTail(s.logFile))
	}
}

// waitNATS waits until a connection to port gets the NATS greeting (an INFO
// line), which the server sends once it has started, JetStream's recovery of its
// store included.
func waitNATS(port int, exited <-chan struct{}) error {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	deadline := time.Now().Add(natsReadyTimeout)
	for {
		select {
		case <-exited:
			return errors.New("exited before accepting connections")
		default:
		}
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = c.SetDeadline(time.Now().Add(5 * time.Second))
			line, rerr := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if rerr == nil && strings.HasPrefix(line, "INFO ") {
				return nil
			}
			err = fmt.Errorf("no NATS greeting: %q %v", line, rerr)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not accepting connections after %v: %w", natsReadyTimeout, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// logTail is the end of a log file, for failure messages.
func logTail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(bytes.TrimSpace(b))
}
