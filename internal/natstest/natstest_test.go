package natstest

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/twinframe/twinframe/internal/devproc"
)

func TestMain(m *testing.M) { Main(m) }

// TestKillRestartKeepsStore: a value written to a file-backed KV bucket is there
// again after a kill -9 and a restart on the same port and store dir.
func TestKillRestartKeepsStore(t *testing.T) {
	t.Parallel()
	s := Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	nc, err := nats.Connect(s.URL(), nats.MaxReconnects(-1), nats.ReconnectWait(20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	kv, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "t", Storage: jetstream.FileStorage})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(ctx, "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	s.Kill()
	if c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(s.Port())); err == nil {
		c.Close()
		t.Fatal("the killed server still accepts connections")
	}
	s.Restart()
	// The client reconnects by itself; wait for it, then read the value back.
	deadline := time.Now().Add(30 * time.Second)
	for {
		e, err := kv.Get(ctx, "k")
		if err == nil {
			if string(e.Value()) != "v" {
				t.Fatalf("after restart k = %q, want v", e.Value())
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no value after restart: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := s.URL(); got != "nats://127.0.0.1:"+strconv.Itoa(s.Port()) {
		t.Errorf("URL %q", got)
	}
}

// TestNoServerOutlivesKilledTest runs a test binary that starts a server, kills
// that binary with SIGKILL (so no cleanup runs), and checks the server goes too.
func TestNoServerOutlivesKilledTest(t *testing.T) {
	if pidFile := os.Getenv("NATSTEST_CHILD_PIDFILE"); pidFile != "" {
		s := Start(t)
		pid := s.Pid()
		if err := os.WriteFile(pidFile+".tmp", []byte(strconv.Itoa(pid)), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Rename(pidFile+".tmp", pidFile)
		select {} // until killed
	}
	t.Parallel()
	Binary(t) // build here, so that the child finds it in the build cache
	pidFile := filepath.Join(t.TempDir(), "pid")
	child := exec.Command(os.Args[0], "-test.run=^TestNoServerOutlivesKilledTest$", "-test.count=1")
	child.Env = append(os.Environ(), "NATSTEST_CHILD_PIDFILE="+pidFile)
	out := &strings.Builder{}
	child.Stdout, child.Stderr = out, out
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { child.Wait(); close(exited) }()
	var pid int
	deadline := time.Now().Add(2 * time.Minute)
	for pid == 0 {
		select {
		case <-exited:
			t.Fatalf("the child test exited before starting a server:\n%s", out)
		default:
		}
		if b, err := os.ReadFile(pidFile); err == nil {
			pid, _ = strconv.Atoi(string(b))
		} else if time.Now().After(deadline) {
			child.Process.Kill()
			t.Fatalf("the child wrote no pid:\n%s", out)
		} else {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if !devproc.Alive(pid) {
		t.Fatalf("server %d not running while the child test is", pid)
	}
	child.Process.Signal(syscall.SIGKILL)
	<-exited
	deadline = time.Now().Add(30 * time.Second)
	for devproc.Alive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("nats-server %d outlived the killed test binary", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
