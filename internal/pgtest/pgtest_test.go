package pgtest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// alive reports whether process pid exists (and is not a zombie).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// pid (comm) STATE ...
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

// waitGone waits until pid has exited; the bound only keeps a broken run from
// hanging, nothing is timed.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); alive(pid); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("postgres %d still runs", pid)
		}
	}
}

func TestDBAndStop(t *testing.T) {
	dsn := DB(t)
	ctx := context.Background()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	var enc string
	if err := c.QueryRow(ctx, "SHOW server_encoding").Scan(&enc); err != nil || enc != "UTF8" {
		t.Errorf("encoding %q %v", enc, err)
	}
	c.Close(ctx)
	if other := DB(t); other == dsn {
		t.Errorf("two databases at %s", dsn)
	}
	// A server of its own, stopped: its process and its directory are gone.
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	pid := s.Pid()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if alive(pid) {
		t.Errorf("postgres %d runs after Stop", pid)
	}
	if _, err := os.Stat(s.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s after Stop: %v", s.Dir, err)
	}
}

// TestChildServer is the process TestNoLeakWhenKilled kills.
func TestChildServer(t *testing.T) {
	if os.Getenv("PGTEST_CHILD") == "" {
		t.Skip("not a test of its own: the process TestNoLeakWhenKilled starts and kills")
	}
	s, err := Start()
	if err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	fmt.Println("started", s.Pid(), s.Dir)
	select {} // until killed
}

// TestNoLeakWhenKilled: a test process killed with SIGKILL (no cleanup runs)
// leaves no PostgreSQL running.
func TestNoLeakWhenKilled(t *testing.T) {
	if _, err := Shared(); errors.Is(err, ErrMissing) {
		t.Skip(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildServer$", "-test.count=1")
	cmd.Env = append(os.Environ(), "PGTEST_CHILD=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	var pid int
	var dir string
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 3 && f[0] == "started" {
			pid, _ = strconv.Atoi(f[1])
			dir = f[2]
			break
		} else if len(f) > 0 && f[0] == "error" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal(sc.Text())
		}
	}
	if pid == 0 || !alive(pid) {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child reported no running server (pid %d)", pid)
	}
	t.Cleanup(func() { os.RemoveAll(dir) }) // the killed process cannot
	cmd.Process.Kill()
	cmd.Wait()
	waitGone(t, pid)
}
