package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/twinframe/twinframe/server/internal/cli"
	"github.com/twinframe/twinframe/shared/world"
	"github.com/twinframe/twinframe/shared/xdump"
)

// xdumpCommand runs `server xdump [-player N] ARGS...`: the xdump command ARGS on the
// default world, as the deity or as player N. Every error, including a bad flag, exits
// with status 1 (the command-line contract); -h prints help and exits 0.
func xdumpCommand(args []string, stdout, stderr io.Writer) int {
	fl := cli.New("xdump", stderr)
	fl.Synopsis = "usage: server xdump [-player N] " + strings.TrimPrefix(xdump.Usage, "xdump ")
	fl.BadStatus = 1
	fl.CheckArgs = func(args []string) bool { return len(args) > 0 }
	player := fl.Int("player", -1, "dump as player `N`: deity fields omitted, hidden fields masked (default: as the deity)")
	if status, ok := fl.Parse(args); !ok {
		return status
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
