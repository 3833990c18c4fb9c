package main

import (
	"context"
	"fmt"
	"io"

	"github.com/twinframe/twinframe/server/internal/cli"
)

// accountCommand runs `server account -db FILE reset NAME` (or -store URL): it
// clears the secret of NAME's account so that the next login under that name
// sets a new one (a player who lost the secret, or whose first login dropped
// before the issued token arrived). It works while the server runs on the same
// store; a session playing under that name plays on.
func accountCommand(args []string, stdout, stderr io.Writer) int {
	fl := cli.New("account", stderr)
	fl.Synopsis = "usage: server account [-db FILE] reset NAME"
	fl.CheckArgs = func(args []string) bool { return len(args) == 2 && args[0] == "reset" }
	stores := addStoreFlags(fl, "SQLite database `file` of the server")
	if status, ok := fl.Parse(args); !ok {
		return status
	}
	ctx := context.Background()
	st, err := stores.open(ctx, true)
	if err != nil {
		fmt.Fprintf(stderr, "server: %v\n", err)
		return exitStatus(err)
	}
	defer st.Close()
	a, err := st.ResetSecret(ctx, fl.Arg(1))
	if err != nil {
		fmt.Fprintf(stderr, "server: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "twinframe: the secret of %q is cleared; the next login under that name sets a new one\n", a.Name)
	return 0
}
