package main

import (
	"slices"
	"strings"
	"testing"
)

// TestServeFlags: serve -h lists the limits' flags; a wildcard -addr needs
// -allow-host; a token given as a flag draws a warning (it shows in ps).
func TestServeFlags(t *testing.T) {
	t.Parallel()
	code, _, errs := runArgs("serve", "-h")
	for _, flag := range []string{"-max-players", "-idle-timeout", "-allow-host", "-max-conns", "-max-conns-per-addr",
		"-metrics-token", "-workers", "TWINFRAME_DEITY_TOKEN", "TWINFRAME_METRICS_TOKEN"} {
		if code != 0 || !strings.Contains(errs, flag) {
			t.Errorf("serve -h (exit %d) lacks %s:\n%s", code, flag, errs)
		}
	}
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0"} {
		code, out, errs := runArgs("serve", "-addr", addr, "-deity-token", "secret", "-metrics-token", "m")
		if code != 2 || out != "" || !strings.Contains(errs, "-allow-host") {
			t.Errorf("serve -addr %s without -allow-host: exit %d\n%s", addr, code, errs)
		}
		for _, w := range []string{"-deity-token is visible", "TWINFRAME_DEITY_TOKEN instead", "-metrics-token is visible"} {
			if !strings.Contains(errs, w) {
				t.Errorf("no warning %q:\n%s", w, errs)
			}
		}
	}
}

func TestHostList(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr, extra string
		want        []string // beyond the loopback names
		err         bool
	}{
		{"127.0.0.1:8080", "", []string{"127.0.0.1"}, false},
		{"game.example.com:80", "", []string{"game.example.com"}, false},
		{"10.0.0.5:80", "game.example.com, www.example.com", []string{"10.0.0.5", "game.example.com", "www.example.com"}, false},
		{"0.0.0.0:80", "game.example.com", []string{"game.example.com"}, false},
		{":80", "*", []string{"*"}, false},
		{"0.0.0.0:80", "", nil, true},
		{"[::]:80", " , ", nil, true},
		{"nonsense", "", nil, true},
	} {
		got, err := hostList(tc.addr, tc.extra)
		if (err != nil) != tc.err {
			t.Errorf("hostList(%q, %q): %v", tc.addr, tc.extra, err)
			continue
		}
		if err == nil && !slices.Equal(got, append([]string{"localhost", "127.0.0.1", "::1"}, tc.want...)) {
			t.Errorf("hostList(%q, %q) = %q", tc.addr, tc.extra, got)
		}
	}
}
