package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/twinframe/twinframe/internal/testenv"
)

// TestCommandLine builds the server and runs it as a user would (`go run ./server
// xdump ...`): output on stdout, errors on stderr, exit statuses 0, 1 and 2.
func TestCommandLine(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the binary; make test runs it")
	}
	t.Parallel()
	gobin, err := exec.LookPath("go")
	if err != nil {
		testenv.Missing(t, "no go command on PATH")
	}
	bin := filepath.Join(t.TempDir(), "server")
	build := exec.Command(gobin, "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cases := []struct {
		args   []string
		code   int
		stdout string // prefix
		stderr string // substring
	}{
		{[]string{"xdump", "table", "*"}, 0, "XDUMP table 0\n0 \"table\"\n", ""},
		{[]string{"xdump", "meta", "meta"}, 0, "XDUMP meta meta 0\n\"name\" 3 0 0 -1\n", ""},
		{[]string{"xdump", "nosuchtable"}, 1, "", "unknown table"},
		{[]string{"frobnicate"}, 2, "", "usage: server [COMMAND]"},
		{[]string{"-addr"}, 2, "", "flag needs an argument"},
	}
	for _, tc := range cases {
		var out, errb bytes.Buffer
		cmd := exec.Command(bin, tc.args...)
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tc.code || !strings.HasPrefix(out.String(), tc.stdout) || !strings.Contains(errb.String(), tc.stderr) {
			t.Errorf("server %q: exit %d\nstdout:\n%s\nstderr:\n%s\nwant exit %d, stdout starting %q, stderr containing %q",
				tc.args, code, out.String(), errb.String(), tc.code, tc.stdout, tc.stderr)
		}
	}
}

// TestServeBinary runs the built server as `make run` does (no command), reads the
// URL it prints, checks /healthz and stops it with SIGTERM: a graceful shutdown
// exits 0 after saying so.
func TestServeBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the binary; make test runs it")
	}
	t.Parallel()
	gobin, err := exec.LookPath("go")
	if err != nil {
		testenv.Missing(t, "no go command on PATH")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "server")
	if out, err := exec.Command(gobin, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-db", filepath.Join(dir, "t.db"), "-wasm-dir", dir)
	cmd.Env = append(os.Environ(), "TWINFRAME_DEITY_TOKEN=")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(stdout)
	var url string
	var lines []string
	for url == "" && sc.Scan() {
		lines = append(lines, sc.Text())
		if u, ok := strings.CutPrefix(sc.Text(), "twinframe: serving "); ok {
			url = u
		}
	}
	if url == "" {
		t.Fatalf("no URL printed; stdout %q, stderr:\n%s", lines, errb.String())
	}
	if !sc.Scan() || !strings.HasPrefix(sc.Text(), "twinframe: deity token ") {
		t.Errorf("no generated deity token printed after the URL")
	}
	resp, err := http.Get(url + "healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(string(body), "ok") {
		t.Errorf("healthz: %d %q", resp.StatusCode, body)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var rest []string
	for sc.Scan() {
		rest = append(rest, sc.Text())
	}
	if err := cmd.Wait(); err != nil || !slices.Contains(rest, "twinframe: stopped") {
		t.Errorf("after SIGTERM: %v, stdout %q, stderr:\n%s", err, rest, errb.String())
	}
}
