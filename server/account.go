package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/twinframe/twinframe/server/internal/cli"
	"github.com/twinframe/twinframe/server/internal/store"
)

// accountCommand runs `server account -db FILE reset NAME`: it clears the secret
// of NAME's account so that the next login under that name sets a new one (a
// player who lost the secret, or whose first login dropped before the issued
// token arrived). It works while the server runs on the same file; a session
// playing under that name plays on.
func accountCommand(args []string, stdout, stderr io.Writer) int {
	fl := cli.New("account", stderr)
	fl.Synopsis = "usage: server account [-db FILE] reset NAME"
	fl.CheckArgs = func(args []string) bool { return len(args) == 2 && args[0] == "reset" }
	db := fl.String("db", "twinframe.db", "SQLite database `file` of the server")
	if status, ok := fl.Parse(args); !ok {
		return status
	}
	// Open would create a missing file: a typo in -db must not make a new store.
	if _, err := os.Stat(*db); err != nil {
		fmt.Fprintf(stderr, "server: %v\n", err)
		return 1
	}
	ctx := context.Background()
	st, err := store.Open(ctx, *db)
	if err != nil {
		fmt.Fprintf(stderr, "server: %v\n", err)
		return 1
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
