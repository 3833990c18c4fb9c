// Command server is Twinframe's game server: without a command (or with serve) it
// runs the game over HTTP and websocket; xdump prints tables of the embedded
// default world in the machine-readable xdump language; headless (lockstep, with
// checks) and loadtest (real time, with measurements) run it with bot clients.
//
// Usage:
//
//	server [serve] [-addr HOST:PORT] [-db FILE] [-allow-host NAME,...] [-max-players N] [-idle-timeout D] ...
//	server xdump [-player N] [meta] TABLE [RECORDS] [?COND&COND...]
//	server headless -frames N -bots M [-seed S] [-net CONDITIONS] [-report FILE] [-realtime]
//	server headless -nodes N -frames F -bots M [-seed S] [-report FILE]
//	server loadtest -bots N -duration D [-report FILE] [-find-max] [-overload X]
//	server account [-db FILE] reset NAME
//
// # Design note
//
// The game itself is server/internal/gameserver; the headless run and the load
// test are server/internal/headless and server/internal/loadtest. This package
// parses flags and dispatches the commands; for serve it opens the store,
// listens, prints the URL and turns SIGINT/SIGTERM into a graceful shutdown
// (sessions closed, avatars saved, store closed).
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/twinframe/twinframe/server/internal/headless"
	"github.com/twinframe/twinframe/server/internal/loadtest"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

const usage = `usage: server [COMMAND] [ARGUMENTS]

Commands:
  serve [-addr HOST:PORT] [-db FILE] [-allow-host NAME,...] [-allow-origin P,...]
        [-max-players N] [-idle-timeout D] [-max-conns N] [-max-conns-per-addr N] [-save-every D]
        run the game server (the default command; "server serve -h" lists the flags);
        the deity token comes from TWINFRAME_DEITY_TOKEN (random and printed when unset)
  xdump [-player N] [meta] TABLE [RECORDS] [?COND&COND...]
        print a table of the embedded default world (configuration and initial
        state) as a machine-readable xdump; "xdump table *" lists the tables
  headless -frames N -bots M [-seed S] [-net latency=80ms,jitter=20ms] [-report FILE] [-realtime]
        run the server in-process with M bot clients over loopback websockets for N
        frames, check invariants, AOI, drift and the schedule every frame; exit 1 on
        any violation ("server headless -h" lists the flags); with -nodes N, a
        cluster of N nodes (nats-server and PostgreSQL started as processes, the
        nodes in-process) whose bots travel between nodes, in real time
  loadtest -bots N -duration D [-report FILE] [-find-max] [-overload X]
        run the server at 20 Hz in real time with N bot clients over loopback
        websockets for D; report frame duration and lateness, dropped frames,
        CPU, peak memory, bytes per client and disconnects; -find-max finds the
        largest N that holds 20 Hz; -overload injects X× the frame budget of work
        for 2 s and reports the recovery ("server loadtest -h" lists the flags)
  account [-db FILE] reset NAME
        clear the secret of NAME's account (a lost password or issued token): the
        next login under that name sets a new one; works while the server runs
`

// run runs the command line args (without the program name) and returns the exit
// status: 0 on success, 1 when the command fails, 2 for a usage error.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") && !isHelp(args[0]) {
		return serveCommand(args, stdout, stderr)
	}
	switch args[0] {
	case "serve":
		return serveCommand(args[1:], stdout, stderr)
	case "xdump":
		return xdumpCommand(args[1:], stdout, stderr)
	case "headless":
		return headless.Command(args[1:], stdout, stderr)
	case "loadtest":
		return loadtest.Command(args[1:], stdout, stderr)
	case "account":
		return accountCommand(args[1:], stdout, stderr)
	case "cluster": // a dev cluster: make run-cluster
		return clusterCommand(args[1:], stdout, stderr)
	case "loadtest-bots": // the load test's child process; not in the usage
		return loadtest.BotsCommand(args[1:], os.Stdin, stdout, stderr)
	case "help", "-h", "-help", "--help": // see isHelp
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "server: unknown command %q\n%s", args[0], usage)
	return 2
}

func isHelp(arg string) bool { return arg == "-h" || arg == "-help" || arg == "--help" }
