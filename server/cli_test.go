package main

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandLine builds the server and runs it as a user would (`go run ./server
// xdump ...`): output on stdout, errors on stderr, exit statuses 0, 1 and 2.
func TestCommandLine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
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
		{nil, 2, "", "usage: server COMMAND"},
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
