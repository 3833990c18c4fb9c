// Command server is Twinframe's game server. For now it has one subcommand, xdump,
// which prints tables of the embedded default world in the machine-readable xdump
// language; the game server itself, headless and loadtest follow.
//
// Usage:
//
//	server xdump [-player N] [meta] TABLE [RECORDS] [?COND&COND...]
package main

import (
	"fmt"
	"io"
	"os"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

const usage = `usage: server COMMAND [ARGUMENTS]

Commands:
  xdump [-player N] [meta] TABLE [RECORDS] [?COND&COND...]
        print a table of the embedded default world (configuration and initial
        state) as a machine-readable xdump; "xdump table *" lists the tables
`

// run runs the command line args (without the program name) and returns the exit
// status: 0 on success, 1 when the command fails, 2 for a usage error.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "xdump":
		return xdumpCommand(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "server: unknown command %q\n%s", args[0], usage)
	return 2
}
