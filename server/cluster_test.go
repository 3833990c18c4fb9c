package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	tfclient "github.com/twinframe/twinframe/client"
	"github.com/twinframe/twinframe/internal/devproc"
)

func TestNodeAddrs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr string
		n    int
		want []string
		err  bool
	}{
		{"127.0.0.1:8080", 3, []string{"127.0.0.1:8080", "127.0.0.1:8081", "127.0.0.1:8082"}, false},
		{"127.0.0.1:0", 2, []string{"127.0.0.1:0", "127.0.0.1:0"}, false},
		{"localhost:65534", 2, []string{"localhost:65534", "localhost:65535"}, false},
		{"[::1]:9000", 1, []string{"[::1]:9000"}, false},
		{"127.0.0.1:65535", 2, nil, true},
		{"127.0.0.1:8080", 0, nil, true},
		{"127.0.0.1", 3, nil, true},
		{"127.0.0.1:http", 3, nil, true},
	} {
		got, err := nodeAddrs(tc.addr, tc.n)
		if (err != nil) != tc.err || !slices.Equal(got, tc.want) {
			t.Errorf("nodeAddrs(%q, %d) = %q, %v; want %q (error %v)", tc.addr, tc.n, got, err, tc.want, tc.err)
		}
	}
}

func TestPreferList(t *testing.T) {
	t.Parallel()
	regions := []string{"downtown", "wilds", "vault"}
	for _, tc := range []struct {
		n    int
		want string
	}{
		{1, "downtown=node1,wilds=node1,vault=node1"},
		{2, "downtown=node1,wilds=node2,vault=node1"},
		{3, "downtown=node1,wilds=node2,vault=node3"},
		{5, "downtown=node1,wilds=node2,vault=node3"},
	} {
		if got := preferList(regions, tc.n); got != tc.want {
			t.Errorf("preferList(%d nodes) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestClusterFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"cluster", "-h"}, 0, "usage: server cluster [-nodes N]"},
		{[]string{"cluster", "-nodes", "0"}, 2, "server: cluster: -nodes 0: want at least 1"},
		{[]string{"cluster", "-addr", "127.0.0.1:65535"}, 2, `server: cluster: -addr "127.0.0.1:65535": want a port from 0 to 65533 for 3 nodes`},
		{[]string{"cluster", "extra"}, 2, `server: cluster: unexpected argument "extra"`},
	} {
		code, out, errs := runArgs(tc.args...)
		if code != tc.code || out != "" || !strings.Contains(errs, tc.stderr) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d, stderr with %q", tc.args, code, out, errs, tc.code, tc.stderr)
		}
	}
}

// lines collects a process's output lines for waiting on them.
type lines struct {
	mu      sync.Mutex
	all     []string
	changed chan struct{} // closed and replaced at each line
	done    bool
}

func newLines(r io.Reader) *lines {
	l := &lines{changed: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			l.mu.Lock()
			l.all = append(l.all, sc.Text())
			close(l.changed)
			l.changed = make(chan struct{})
			l.mu.Unlock()
		}
		l.mu.Lock()
		l.done = true
		close(l.changed)
		l.mu.Unlock()
	}()
	return l
}

// wait returns the submatches of the first line matching re, waiting for it.
func (l *lines) wait(t *testing.T, re *regexp.Regexp, d time.Duration) []string {
	t.Helper()
	timeout := time.After(d)
	for {
		l.mu.Lock()
		for _, s := range l.all {
			if m := re.FindStringSubmatch(s); m != nil {
				l.mu.Unlock()
				return m
			}
		}
		changed, done := l.changed, l.done
		l.mu.Unlock()
		if done {
			t.Fatalf("the output ended without a line matching %q:\n%s", re, l)
		}
		select {
		case <-changed:
		case <-timeout:
			t.Fatalf("no line matching %q after %v:\n%s", re, d, l)
		}
	}
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.all, "\n")
}

// proc is a process of the tree under test, known by its pid and start time (so
// that a pid reused by a newer process is not taken for it).
type proc struct {
	pid, ppid int
	start     string
	comm      string
	cmdline   []string
}

func readProc(pid int) (proc, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return proc{}, false
	}
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return proc{}, false
	}
	// After "pid (comm) ": state ppid pgrp session tty tpgid flags minflt cminflt
	// majflt cmajflt utime stime cutime cstime priority nice threads itrealvalue
	// starttime.
	f := strings.Fields(s[end+1:])
	if len(f) < 20 {
		return proc{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	p := proc{pid: pid, ppid: ppid, start: f[19], comm: s[open+1 : end]}
	if c, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); err == nil {
		p.cmdline = strings.Split(strings.TrimRight(string(c), "\x00"), "\x00")
	}
	return p, true
}

// descendants are the running processes under root (not root itself).
func descendants(t *testing.T, root int) []proc {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	children := map[int][]proc{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readProc(pid); ok {
			children[p.ppid] = append(children[p.ppid], p)
		}
	}
	var out []proc
	queue := []int{root}
	for len(queue) > 0 {
		for _, c := range children[queue[0]] {
			out = append(out, c)
			queue = append(queue, c.pid)
		}
		queue = queue[1:]
	}
	return out
}

// stillRuns reports whether p (the same process, not a reuse of its pid) runs.
func stillRuns(p proc) bool {
	now, ok := readProc(p.pid)
	return ok && now.start == p.start && devproc.Alive(p.pid)
}

var regionRow = regexp.MustCompile(`<tr><td>\d+</td><td>(\w+)</td><td>\d+</td><td>\d+</td><td>([^<]*)</td>`)

// regionNodes is the region → node column of a /status page.
func regionNodes(t *testing.T, url, token string) (map[string]string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url+"status", nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
	if err != nil {
		return nil, err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	m := map[string]string{}
	for _, row := range regionRow.FindAllStringSubmatch(string(body), -1) {
		m[row[1]] = row[2]
	}
	return m, string(body)
}

// TestClusterCommand runs `server cluster` as a user does, a child process of
// its own: every node's /status shows the three regions each on its node, a
// player logs in through node1, a node killed with SIGKILL is reported while the
// others go on, and a SIGINT stops everything — the nodes gracefully, exit 0, no
// process it started left, its temp dirs removed, and those of an earlier
// cluster whose command was killed as well.
func TestClusterCommand(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(filepath.Join(devproc.PostgresBinDir, "postgres")); err != nil {
		t.Skipf("PostgreSQL 15 is not installed: %v", err)
	}
	began := time.Now()
	phase := func(what string) { t.Logf("%6.1fs %s", time.Since(began).Seconds(), what) }
	bin := filepath.Join(t.TempDir(), "server")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	phase("built")
	// The command's temp dirs go here, to check they are removed. As root,
	// PostgreSQL runs as the postgres user, who must reach its dir inside.
	tmp := t.TempDir()
	for _, d := range []string{filepath.Dir(tmp), tmp} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Dirs of earlier dev clusters: one whose command was killed (its pid now
	// names another process, this one, started at another time), one whose
	// command still runs, one being made (no owner yet). Only the first goes.
	self, ok := devproc.Identity(os.Getpid())
	if !ok {
		t.Fatal("no identity for this process")
	}
	pid, _, _ := strings.Cut(self, " ")
	for name, owner := range map[string]string{"stale": pid + " 1", "live": self, "new": ""} {
		d := filepath.Join(tmp, clusterDirPrefix+name)
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if owner != "" {
			if err := os.WriteFile(filepath.Join(d, ownerFile), []byte(owner+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	cmd := exec.Command(bin, "cluster", "-nodes", "3", "-addr", "127.0.0.1:0", "-wasm-dir", t.TempDir())
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "TWINFRAME_DEITY_TOKEN=")
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	p, err := devproc.Start(cmd, syscall.SIGKILL) // a test that dies takes the cluster with it
	outW.Close()
	errW.Close()
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr := newLines(outR), newLines(errR)
	t.Cleanup(func() {
		select {
		case <-p.Done():
		default:
			p.Signal(syscall.SIGKILL)
			<-p.Done()
		}
	})
	const slow = time.Minute // bounds a broken run; nothing is timed

	url1 := stdout.wait(t, regexp.MustCompile(`^twinframe: open (http://127\.0\.0\.1:\d+/) \(node1\)$`), slow)[1]
	urls := map[string]string{"node1": url1}
	for _, n := range []string{"node2", "node3"} {
		urls[n] = stdout.wait(t, regexp.MustCompile(`^twinframe: `+n+` at (http://127\.0\.0\.1:\d+/)$`), slow)[1]
	}
	token := stdout.wait(t, regexp.MustCompile(`^twinframe: deity token ([0-9a-f]{32})$`), slow)[1]
	phase("serving")

	// Every node shows every region on its node.
	want := map[string]string{"downtown": "node1", "wilds": "node2", "vault": "node3"}
	for _, n := range []string{"node1", "node2", "node3"} {
		deadline := time.Now().Add(slow)
		for {
			got, body := regionNodes(t, urls[n], "")
			if fmt.Sprint(got) == fmt.Sprint(want) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s /status: regions %v, want %v:\n%s", n, got, want, body)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	phase("regions on their nodes")

	// A player logs in through node1.
	ctx, cancel := context.WithTimeout(context.Background(), slow)
	defer cancel()
	c, err := tfclient.Dial(ctx, "ws"+strings.TrimPrefix(url1, "http")+"ws", &tfclient.Options{Name: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	if _, region := c.Region(); region != "downtown" {
		t.Errorf("ana is in %q, want downtown", region)
	}
	// The printed token is every node's deity token: with it, node1 lists ana.
	if _, body := regionNodes(t, url1, token); !strings.Contains(body, "<td>ana</td>") {
		t.Errorf("node1 /status with the printed token does not list ana:\n%s", body)
	}
	if _, body := regionNodes(t, urls["node3"], token); !strings.Contains(body, "<th>session</th>") {
		t.Errorf("node3 /status with the printed token is not the deity's:\n%s", body)
	}

	// What the command started: NATS, PostgreSQL (and its backends), three nodes.
	procs := descendants(t, p.Pid())
	var nats, pg int
	nodes := map[string]int{}
	for _, q := range procs {
		switch {
		case q.comm == "nats-server":
			nats++
		case q.comm == "postgres" && q.ppid == p.Pid():
			pg++
		case len(q.cmdline) > 1 && q.cmdline[1] == "serve":
			if i := slices.Index(q.cmdline, "-node"); i > 0 && i+1 < len(q.cmdline) {
				nodes[q.cmdline[i+1]] = q.pid
			}
		}
	}
	if nats != 1 || pg != 1 || len(nodes) != 3 {
		t.Fatalf("the command runs %d nats-server, %d postgres, nodes %v; want 1, 1 and node1-3: %+v", nats, pg, nodes, procs)
	}

	// A node that dies is reported; the others go on.
	if err := syscall.Kill(nodes["node3"], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	stderr.wait(t, regexp.MustCompile(`^server: cluster: node3 exited unexpectedly: signal: killed; the other nodes go on$`), slow)
	resp, err := http.Get(url1 + "healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("node1 /healthz after node3 died: %s", resp.Status)
	}
	c.Close()

	phase("node3 reported")
	// SIGINT to the command's process group, as a Ctrl-C at its terminal sends.
	if err := syscall.Kill(-p.Pid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Done():
	case <-time.After(slow):
		t.Fatalf("the command did not exit after SIGINT:\n%s\n%s", stdout, stderr)
	}
	if err := p.Err(); err != nil {
		t.Errorf("the command ended with %v after SIGINT:\n%s\n%s", err, stdout, stderr)
	}
	phase("stopped")
	stdout.wait(t, regexp.MustCompile(`^twinframe: cluster stopped$`), slow)
	for _, n := range []string{"node1", "node2"} { // stopped gracefully: their players saved
		stdout.wait(t, regexp.MustCompile(`^`+n+`: twinframe: stopped$`), slow)
	}
	for _, q := range procs {
		if stillRuns(q) {
			t.Errorf("%d (%s %q) still runs after the command exited", q.pid, q.comm, q.cmdline)
			_ = syscall.Kill(q.pid, syscall.SIGKILL)
		}
	}
	stdout.wait(t, regexp.MustCompile(`^twinframe: removed .*/`+clusterDirPrefix+`stale, left by a dev cluster that was killed$`), slow)
	var left []string
	if ents, err := os.ReadDir(tmp); err != nil {
		t.Error(err)
	} else {
		for _, e := range ents {
			left = append(left, e.Name())
		}
	}
	if want := []string{clusterDirPrefix + "live", clusterDirPrefix + "new"}; !slices.Equal(left, want) {
		t.Errorf("the temp dir holds %q after the command; want %q", left, want)
	}
}
