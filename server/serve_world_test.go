package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeWorldFlags: -watch needs -world; -world loads the directory's
// .config files instead of the embedded world, so a bad one stops the server
// at its file and line, and a directory without any is refused.
func TestServeWorldFlags(t *testing.T) {
	t.Parallel()
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "10-region.config"),
		[]byte("config region\nid name min(0) min(1) max(0) max(1)\n 0 \"a\" 0 0 x 10\n/config\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"watch alone", []string{"-watch"}, 2, "-watch needs -world DIR"},
		{"bad file", []string{"-world", bad}, 1, "10-region.config:3:"},
		{"no config", []string{"-world", t.TempDir()}, 1, "no .config files"},
	} {
		args := append([]string{"serve", "-addr", "127.0.0.1:0", "-db", filepath.Join(t.TempDir(), "t.db")}, tc.args...)
		code, out, errs := runArgs(args...)
		if code != tc.code || !strings.Contains(errs, tc.want) || strings.Contains(out, "serving") {
			t.Errorf("%s: exit %d, stdout %q, stderr:\n%s\nwant exit %d and %q", tc.name, code, out, errs, tc.code, tc.want)
		}
	}
	if code, _, errs := runArgs("serve", "-h"); code != 0 || !strings.Contains(errs, "-world") || !strings.Contains(errs, "-watch") {
		t.Errorf("serve -h (exit %d) lacks -world or -watch:\n%s", code, errs)
	}
}
