package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

func runArgs(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestRun(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args       []string
		code       int
		out        string // stdout starts with this
		errContent string // stderr contains this
	}{
		{[]string{"serve", "extra"}, 2, "", "unexpected argument"},
		{[]string{"frobnicate"}, 2, "", `unknown command "frobnicate"`},
		{[]string{"help"}, 0, "usage: server [COMMAND]", ""},
		{[]string{"xdump"}, 1, "", "usage: server xdump [-player N]"},
		{[]string{"xdump", "-h"}, 0, "", "usage: server xdump"},
		{[]string{"xdump", "-bogus", "table"}, 1, "", "flag provided but not defined"},
		{[]string{"xdump", "nosuchtable"}, 1, "", `unknown table "nosuchtable"`},
		{[]string{"xdump", "meta"}, 1, "", "bad command"},
		{[]string{"xdump", "entity", "?nosuchfield=1"}, 1, "", `no field "nosuchfield"`},
		{[]string{"xdump", "table", "*"}, 0, "XDUMP table 0\n0 \"table\"\n1 \"meta\"\n", ""},
		{[]string{"xdump", "meta", "meta"}, 0, "XDUMP meta meta 0\n\"name\" 3 0 0 -1\n\"type\" 1 0 0 2\n\"flags\" 1 8 0 3\n\"len\" 1 0 0 -1\n\"table\" 1 0 0 0\n/5\n", ""},
		{[]string{"xdump", "meta-type", "*"}, 0, "XDUMP meta-type 0\n1 \"d\"\n2 \"g\"\n3 \"s\"\n4 \"c\"\n/4\n", ""},
		{[]string{"xdump", "meta-flags", "*"}, 0, "XDUMP meta-flags 0\n1 \"deity\"\n8 \"bits\"\n16 \"hidden\"\n/3\n", ""},
		{[]string{"xdump", "region", "*"}, 0, "XDUMP region 0\n0 \"downtown\" 0 0 192 192\n1 \"wilds\" 256 0 640 384\n2 \"vault\" 704 0 832 64\n/3\n", ""},
		{[]string{"xdump", "entity", "2?timestamp>-1"}, 0, "XDUMP entity 0\n2 4 0 20 55 0 0 0 16 20 55 -1 ", ""},
		{[]string{"xdump", "-player", "1", "entity", "2"}, 0, "XDUMP entity 0\n2 4 0 20 55 0 0 0 16 -1 -1 -1 0\n/1\n", ""},
		{[]string{"xdump", "-player", "1", "meta", "entity", "?name=seed"}, 0, "XDUMP meta entity 0\n/0\n", ""},
		{[]string{"xdump", "lost", "*"}, 0, "XDUMP lost 0\n/0\n", ""},
		// The harnesses live in their own packages: main dispatches to them.
		{[]string{"headless", "-h"}, 0, "", "usage: server headless"},
		{[]string{"headless", "-frames", "0"}, 2, "", "server: headless: -frames"},
		{[]string{"loadtest", "extra"}, 2, "", `server: loadtest: unexpected argument "extra"`},
		{[]string{"loadtest-bots"}, 2, "", "usage: server loadtest-bots"},
		// Every command parses its flags through cli.Flags: -h exits 0, a bad flag
		// or bad arguments exit 2 (xdump: 1), with the usage on stderr.
		{[]string{"serve", "-h"}, 0, "", "Usage of serve:\n  -addr address"},
		{[]string{"serve", "-bogus"}, 2, "", "flag provided but not defined: -bogus"},
		{[]string{"account", "-h"}, 0, "", "usage: server account [-db FILE] reset NAME\n  -db file"},
		{[]string{"account", "reset"}, 2, "", "usage: server account [-db FILE] reset NAME"},
		{[]string{"account", "-bogus"}, 2, "", "flag provided but not defined: -bogus"},
		{[]string{"headless", "extra"}, 2, "", "server: headless: unexpected argument \"extra\"\nusage: server headless"},
		{[]string{"loadtest", "-h"}, 0, "", "usage: server loadtest -bots N"},
		{[]string{"loadtest", "-bots"}, 2, "", "flag needs an argument: -bots"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, "_"), func(t *testing.T) {
			t.Parallel()
			code, out, errs := runArgs(tc.args...)
			if code != tc.code || !strings.HasPrefix(out, tc.out) || !strings.Contains(errs, tc.errContent) {
				t.Errorf("run(%q) = %d\nstdout:\n%s\nstderr:\n%s\nwant %d, stdout starting %q, stderr containing %q",
					tc.args, code, out, errs, tc.code, tc.out, tc.errContent)
			}
			if code != 0 && out != "" {
				t.Errorf("run(%q) failed but wrote to stdout: %q", tc.args, out)
			}
		})
	}
}

// TestWalk is a client that knows only names: it reads the table of tables, then for
// every table its meta dump and its data, checking each footer against its records and
// each record against the meta (fields with len > 0 take len values).
func TestWalk(t *testing.T) {
	t.Parallel()
	code, out, errs := runArgs("xdump", "table", "*")
	if code != 0 {
		t.Fatalf("xdump table *: %d %s", code, errs)
	}
	tables := records(t, out)
	if len(tables) < 15 {
		t.Fatalf("only %d tables", len(tables))
	}
	for _, rec := range tables {
		uid, name := rec[0], strings.Trim(rec[1], `"`)
		code, meta, errs := runArgs("xdump", "meta", uid)
		if code != 0 || !strings.HasPrefix(meta, "XDUMP meta "+name+" ") {
			t.Fatalf("xdump meta %s: %d %s %s", uid, code, meta, errs)
		}
		width := 0
		for _, f := range records(t, meta) {
			n, err := strconv.Atoi(f[3]) // len
			if err != nil {
				t.Fatalf("meta %s: bad len in %q", name, f)
			}
			if n == 0 || f[1] == "4" { // scalar, or a character array (one string)
				n = 1
			}
			width += n
		}
		code, data, errs := runArgs("xdump", uid, "*")
		if code != 0 || !strings.HasPrefix(data, "XDUMP "+name+" ") {
			t.Fatalf("xdump %s *: %d %s %s", uid, code, data, errs)
		}
		for _, r := range records(t, data) {
			if len(r) != width {
				t.Errorf("table %s: record %q has %d fields, meta says %d", name, r, len(r), width)
			}
		}
	}
}

// records splits a machine-readable dump into records of fields, checking header and
// footer. Strings of the machine dialect contain no spaces.
func records(t *testing.T, dump string) [][]string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(dump, "\n"), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "XDUMP ") {
		t.Fatalf("not a dump: %q", dump)
	}
	body := lines[1 : len(lines)-1]
	if foot := lines[len(lines)-1]; foot != "/"+strconv.Itoa(len(body)) {
		t.Fatalf("footer %q for %d records", foot, len(body))
	}
	out := make([][]string, len(body))
	for i, l := range body {
		out[i] = strings.Split(l, " ")
	}
	return out
}
