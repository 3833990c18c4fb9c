// Package devproc runs the services a Twinframe cluster needs as child processes of
// the calling program: the real nats-server built from the module's pinned
// github.com/nats-io/nats-server/v2 (a tool line in go.mod), and a throw-away
// PostgreSQL 15 server (Debian's, /usr/lib/postgresql/15/bin) initialised in a temp
// dir. Both listen on free 127.0.0.1 ports. The dev cluster (server cluster) runs
// them, and the test helpers internal/natstest and internal/pgtest wrap them.
//
// Every process started here (Start, and through it StartNATS and StartPostgres)
// is started so that the kernel signals it when the starting program dies
// (Pdeathsig on Linux), and in a process group of its own, so that a Ctrl-C at the
// terminal reaches only the program, which then stops its children in order: a
// program killed with SIGKILL leaves no process behind, and one interrupted stops
// the game servers before the services they save to.
package devproc
