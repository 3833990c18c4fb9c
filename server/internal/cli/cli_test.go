package cli

import (
	"bytes"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	const synopsis = "usage: server thing [-n N] [ARG]"
	const defaults = "  -n N\n    \tthe N (default 3)\n"
	cases := []struct {
		name      string
		synopsis  string
		badStatus int // 0: the default
		checkArgs func([]string) bool
		args      []string
		ok        bool
		status    int
		n         int    // the flag's value when ok
		stderr    string // exactly
	}{
		{name: "no flags", args: nil, ok: true, n: 3},
		{name: "a flag", args: []string{"-n", "5"}, ok: true, n: 5},
		{name: "help with synopsis", synopsis: synopsis, args: []string{"-h"}, status: 0,
			stderr: synopsis + "\n" + defaults},
		{name: "help without synopsis", args: []string{"-help"}, status: 0,
			stderr: "Usage of thing:\n" + defaults},
		{name: "bad flag", synopsis: synopsis, args: []string{"-bogus"}, status: 2,
			stderr: "flag provided but not defined: -bogus\n" + synopsis + "\n" + defaults},
		{name: "bad flag, documented status", synopsis: synopsis, badStatus: 1, args: []string{"-bogus"}, status: 1,
			stderr: "flag provided but not defined: -bogus\n" + synopsis + "\n" + defaults},
		{name: "missing value", args: []string{"-n"}, status: 2,
			stderr: "flag needs an argument: -n\nUsage of thing:\n" + defaults},
		{name: "unexpected argument", synopsis: synopsis, args: []string{"-n", "4", "extra", "more"}, status: 2,
			stderr: "server: thing: unexpected argument \"extra\"\n" + synopsis + "\n"},
		{name: "unexpected argument without synopsis", args: []string{"extra"}, status: 2,
			stderr: "server: thing: unexpected argument \"extra\"\n"},
		{name: "arguments accepted", synopsis: synopsis, checkArgs: func(a []string) bool { return len(a) == 1 },
			args: []string{"-n", "7", "arg"}, ok: true, n: 7},
		{name: "arguments rejected", synopsis: synopsis, badStatus: 1, checkArgs: func(a []string) bool { return len(a) == 1 },
			args: []string{"a", "b"}, status: 1, stderr: synopsis + "\n" + defaults},
		{name: "help before arguments", synopsis: synopsis, checkArgs: func(a []string) bool { return len(a) == 1 },
			args: []string{"-h", "a", "b"}, status: 0, stderr: synopsis + "\n" + defaults},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stderr bytes.Buffer
			fl := New("thing", &stderr)
			fl.Synopsis, fl.Prefix, fl.CheckArgs = tc.synopsis, "server: thing: ", tc.checkArgs
			if tc.badStatus != 0 {
				fl.BadStatus = tc.badStatus
			}
			n := fl.Int("n", 3, "the `N`")
			status, ok := fl.Parse(tc.args)
			if ok != tc.ok || status != tc.status || stderr.String() != tc.stderr {
				t.Errorf("Parse(%q) = %d, %v; stderr:\n%s\nwant %d, %v; stderr:\n%s", tc.args, status, ok, stderr.String(), tc.status, tc.ok, tc.stderr)
			}
			if ok && *n != tc.n {
				t.Errorf("-n = %d, want %d", *n, tc.n)
			}
		})
	}
}
