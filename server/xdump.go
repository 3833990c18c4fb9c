package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/twinframe/twinframe/shared/world"
	"github.com/twinframe/twinframe/shared/xdump"
)

// xdumpCommand runs `server xdump [-player N] ARGS...`: the xdump command ARGS on the
// default world, as the deity or as player N. Every error, including a bad flag, exits
// with status 1 (the command-line contract); -h prints help and exits 0.
func xdumpCommand(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("xdump", flag.ContinueOnError)
	fl.SetOutput(stderr)
	player := fl.Int("player", -1, "dump as player `N`: deity fields omitted, hidden fields masked (default: as the deity)")
	fl.Usage = func() {
		fmt.Fprintf(fl.Output(), "usage: server xdump [-player N] %s\n", strings.TrimPrefix(xdump.Usage, "xdump "))
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 1
	}
	if fl.NArg() == 0 {
		fl.Usage()
		return 1
	}
	v := xdump.Viewer{Deity: true}
	if *player >= 0 {
		v = xdump.Viewer{ID: *player}
	}
	w, err := world.LoadDefault()
	if err != nil {
		fmt.Fprintf(stderr, "server: default world: %v\n", err)
		return 1
	}
	var out bytes.Buffer
	if err := w.Xdump(&out, strings.Join(fl.Args(), " "), v); err != nil {
		fmt.Fprintf(stderr, "server: %v\n", err)
		return 1
	}
	if _, err := stdout.Write(out.Bytes()); err != nil {
		fmt.Fprintf(stderr, "server: %v\n", err)
		return 1
	}
	return 0
}
