package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/twinframe/twinframe/internal/devproc"
	"github.com/twinframe/twinframe/server/internal/cli"
	"github.com/twinframe/twinframe/shared/world"
)

// Bounds on a dev cluster's start and stop: deadlines for a hung process, not
// performance expectations.
const (
	nodeStartTimeout = 60 * time.Second
	nodeStopTimeout  = 20 * time.Second
)

// clusterCommand runs `server cluster`: a cluster on this machine for
// development (make run-cluster). It starts nats-server and a throw-away
// PostgreSQL (internal/devproc, in temp dirs), then the nodes, each this binary
// re-executed as `serve -cluster ... -node nodeK`, with the default world's
// regions spread over them (-prefer); prints the nodes' URLs once every one
// serves; and on SIGINT or SIGTERM stops the nodes, then PostgreSQL and NATS, and
// removes the temp dirs. Every child gets a parent-death signal, so a kill -9 of
// this process leaves no process behind either; it runs in a process group of its
// own, so a Ctrl-C at the terminal reaches this process only, which stops the
// nodes while the services they save to still run. The temp dirs of a killed
// command are removed by the next one (removeStale).
func clusterCommand(args []string, stdout, stderr io.Writer) int {
	fl := cli.New("cluster", stderr)
	fl.Prefix = "server: cluster: "
	fl.Synopsis = "usage: server cluster [-nodes N] [-addr HOST:PORT] [-seed S] [-wasm-dir DIR]"
	nodes := fl.Int("nodes", 3, "`number` of nodes")
	addr := fl.String("addr", "127.0.0.1:8080", "listen `address` of node1; nodeK listens on PORT+K-1 (port 0: each node on a free port)")
	seed := fl.Uint64("seed", 1, "game `seed`")
	wasmDir := fl.String("wasm-dir", "web", "`directory` of viewer.wasm and wasm_exec.js (make wasm)")
	if status, ok := fl.Parse(args); !ok {
		return status
	}
	addrs, err := nodeAddrs(*addr, *nodes)
	if err != nil {
		fmt.Fprintf(stderr, "server: cluster: %v\n", err)
		return 2
	}
	w, err := world.LoadDefault()
	if err != nil {
		fmt.Fprintf(stderr, "server: cluster: %v\n", err)
		return 1
	}
	regions := make([]string, len(w.Regions))
	for i, r := range w.Regions {
		regions[i] = r.Name
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "server: cluster: %v\n", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// After the first signal, a second one ends this process at once: its children
	// die with it (parent-death signals) and the next run removes its temp dir.
	go func() { <-ctx.Done(); stop() }()
	// One deity token for every node, as `serve` chooses it: the environment's,
	// or random and printed.
	token := os.Getenv("TWINFRAME_DEITY_TOKEN")
	generated := token == ""
	if generated {
		var b [16]byte
		_, _ = rand.Read(b[:])
		token = hex.EncodeToString(b[:])
	}
	var mu sync.Mutex // one line at a time from the nodes and this command
	dc := &devCluster{exe: exe, token: token, tokenGenerated: generated, seed: *seed, wasmDir: *wasmDir, prefer: preferList(regions, *nodes),
		stdout: &lineWriter{mu: &mu, w: stdout}, stderr: &lineWriter{mu: &mu, w: stderr}}
	return dc.run(ctx, addrs)
}

// nodeAddrs are the listen addresses of n nodes, the first at addr and the
// others on the ports after it.
func nodeAddrs(addr string, n int) ([]string, error) {
	if n < 1 {
		return nil, fmt.Errorf("-nodes %d: want at least 1", n)
	}
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("-addr %q: %v", addr, err)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 0 || port+n-1 > 65535 {
		return nil, fmt.Errorf("-addr %q: want a port from 0 to %d for %d nodes", addr, 65536-n, n)
	}
	out := make([]string, n)
	for k := range out {
		q := 0
		if port != 0 {
			q = port + k
		}
		out[k] = net.JoinHostPort(host, strconv.Itoa(q))
	}
	return out, nil
}

// preferList is the -prefer value spreading the regions over n nodes in turn:
// region i to node (i mod n)+1.
func preferList(regions []string, n int) string {
	pairs := make([]string, len(regions))
	for i, r := range regions {
		pairs[i] = r + "=" + nodeName(i%n)
	}
	return strings.Join(pairs, ",")
}

// nodeName is the name of node k (from 0): node1, node2, ...
func nodeName(k int) string { return "node" + strconv.Itoa(k+1) }

// lineWriter writes whole lines to w under a lock shared with the other writers
// of the same terminal, so that lines of different processes do not interleave.
type lineWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lineWriter) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, format, args...)
}

// copyPrefixed copies r to w line by line, each line prefixed, until r ends; each
// line also goes to seen, when set.
func (l *lineWriter) copyPrefixed(r io.Reader, prefix string, seen func(line string)) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		l.printf("%s%s\n", prefix, sc.Text())
		if seen != nil {
			seen(sc.Text())
		}
	}
}

// devCluster is one run of `server cluster`.
type devCluster struct {
	exe            string
	token          string // the deity token every node shares
	tokenGenerated bool   // random, not from TWINFRAME_DEITY_TOKEN: printed
	seed           uint64
	wasmDir        string
	prefer         string
	stdout, stderr *lineWriter

	dir   string // temp dir: see clusterDirPrefix
	nats  *devproc.NATS
	pg    *devproc.Postgres
	nodes []*devNode
}

// devNode is one node process.
type devNode struct {
	name    string
	p       *devproc.Process
	url     chan string   // the URL it prints once it serves
	copied  chan struct{} // closed when its output has been copied to the end
	stopped bool          // sent SIGTERM by this command
}

// run starts the cluster, waits for a signal and stops it: 0 when everything
// started, and stopped cleanly when asked, 1 otherwise.
func (dc *devCluster) run(ctx context.Context, addrs []string) (status int) {
	defer func() {
		if err := dc.shutdown(); err != nil {
			dc.stderr.printf("server: cluster: %v\n", err)
			status = 1
		}
	}()
	urls, err := dc.start(ctx, addrs)
	if err != nil {
		if ctx.Err() != nil {
			dc.stderr.printf("server: cluster: interrupted while starting\n")
		} else {
			dc.stderr.printf("server: cluster: %v\n", err)
		}
		return 1
	}
	dc.stdout.printf("twinframe: cluster of %d nodes (NATS %s, PostgreSQL on port %d), regions %s\n",
		len(dc.nodes), dc.nats.URL(), dc.pg.Port, dc.prefer)
	dc.stdout.printf("twinframe: open %s (node1)\n", urls[0])
	for k, u := range urls[1:] {
		dc.stdout.printf("twinframe: %s at %s\n", nodeName(k+1), u)
	}
	if dc.tokenGenerated {
		dc.stdout.printf("twinframe: deity token %s\n", dc.token)
	}
	return dc.watch(ctx)
}

// start starts NATS, PostgreSQL and the nodes, and returns the nodes' URLs once
// every one answers /healthz.
func (dc *devCluster) start(ctx context.Context, addrs []string) ([]string, error) {
	dc.removeStale()
	var err error
	if dc.dir, err = os.MkdirTemp("", clusterDirPrefix); err != nil {
		return nil, err
	}
	// As root, PostgreSQL runs as the postgres user, who must reach its dir in here.
	if err := os.Chmod(dc.dir, 0o711); err != nil {
		return nil, err
	}
	if id, ok := devproc.Identity(os.Getpid()); ok {
		if err := os.WriteFile(filepath.Join(dc.dir, ownerFile), []byte(id+"\n"), 0o644); err != nil {
			return nil, err
		}
	}
	bin, err := devproc.BuildNATS("")
	if err != nil {
		return nil, err
	}
	if dc.nats, err = devproc.StartNATS(bin, dc.dir); err != nil {
		return nil, err
	}
	if dc.pg, err = devproc.StartPostgresIn(dc.dir); err != nil {
		return nil, err
	}
	dsn, err := dc.pg.CreateDatabase(ctx, "twinframe")
	if err != nil {
		return nil, err
	}
	for k, addr := range addrs {
		n, err := dc.startNode(nodeName(k), addr, dsn)
		if err != nil {
			return nil, err
		}
		dc.nodes = append(dc.nodes, n)
	}
	urls := make([]string, len(dc.nodes))
	deadline := time.Now().Add(nodeStartTimeout)
	for k, n := range dc.nodes {
		if urls[k], err = n.waitServing(ctx, deadline); err != nil {
			return nil, err
		}
	}
	return urls, nil
}

// The dev cluster's temp dir (os.TempDir()/twinframe-cluster-*) holds NATS's
// store and log, PostgreSQL's dir and ownerFile: the process identity
// (devproc.Identity) of the command that made it.
const (
	clusterDirPrefix = "twinframe-cluster-"
	ownerFile        = "owner"
)

// removeStale removes the temp dirs of dev clusters whose command no longer runs:
// a command killed with SIGKILL takes its processes with it (parent-death
// signals) but cannot remove its dir. A dir without an owner file is being made,
// or was made where processes have no identity: it is left alone.
func (dc *devCluster) removeStale() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), clusterDirPrefix+"*"))
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, ownerFile))
		if err != nil || devproc.Running(strings.TrimSpace(string(b))) {
			continue
		}
		if err := os.RemoveAll(d); err != nil {
			dc.stderr.printf("server: cluster: %v\n", err)
			continue
		}
		dc.stdout.printf("twinframe: removed %s, left by a dev cluster that was killed\n", d)
	}
}

// startNode starts one node, its output copied to this command's, each line
// prefixed with its name.
func (dc *devCluster) startNode(name, addr, dsn string) (*devNode, error) {
	cmd := exec.Command(dc.exe, "serve", "-cluster", dc.nats.URL(), "-node", name, "-store", dsn,
		"-addr", addr, "-prefer", dc.prefer, "-seed", strconv.FormatUint(dc.seed, 10), "-wasm-dir", dc.wasmDir)
	// The token goes by the environment: a flag would show in the process list.
	cmd.Env = append(os.Environ(), "TWINFRAME_DEITY_TOKEN="+dc.token)
	// Pipes of our own rather than Cmd's: Cmd.Wait closes its pipes when the
	// process exits, which would lose the last lines a dying node writes.
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	// SIGKILL when this process dies: its NATS and PostgreSQL die with it, so a
	// graceful stop would have nothing to save to.
	p, err := devproc.Start(cmd, syscall.SIGKILL)
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	n := &devNode{name: name, p: p, url: make(chan string, 1), copied: make(chan struct{})}
	var copying sync.WaitGroup
	copying.Add(2)
	prefix := name + ": "
	go func() {
		defer copying.Done()
		defer outR.Close()
		dc.stdout.copyPrefixed(outR, prefix, func(line string) {
			if u, ok := strings.CutPrefix(line, "twinframe: serving "); ok {
				select {
				case n.url <- u:
				default:
				}
			}
		})
	}()
	go func() {
		defer copying.Done()
		defer errR.Close()
		dc.stderr.copyPrefixed(errR, prefix, nil)
	}()
	go func() { copying.Wait(); close(n.copied) }()
	return n, nil
}

// waitServing waits until the node prints its URL and answers /healthz.
func (n *devNode) waitServing(ctx context.Context, deadline time.Time) (string, error) {
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	var url string
	select {
	case url = <-n.url:
	case <-n.p.Done():
		<-n.copied
		return "", fmt.Errorf("%s exited before serving: %s", n.name, exitDescription(n.p.Err()))
	case <-ctx.Done():
		return "", fmt.Errorf("%s: no URL printed: %w", n.name, ctx.Err())
	}
	client := &http.Client{Timeout: 2 * time.Second}
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"healthz", nil)
		if err != nil {
			return "", err
		}
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url, nil
			}
			err = errors.New(resp.Status)
		}
		select {
		case <-n.p.Done():
			<-n.copied
			return "", fmt.Errorf("%s exited before serving: %s", n.name, exitDescription(n.p.Err()))
		case <-ctx.Done():
			return "", fmt.Errorf("%s: %shealthz: %v (%w)", n.name, url, err, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// watch reports nodes that exit on their own, and returns when a signal comes
// (0), or when no node is left (1). A node that died was reported when it did,
// and a dev cluster goes on without it: the status then tells only whether the
// command ended as asked.
func (dc *devCluster) watch(ctx context.Context) int {
	exited := make(chan *devNode, len(dc.nodes))
	for _, n := range dc.nodes {
		go func() {
			select {
			case <-n.p.Done():
				exited <- n
			case <-ctx.Done():
			}
		}()
	}
	live := len(dc.nodes)
	for {
		select {
		case <-ctx.Done():
			return 0
		case n := <-exited:
			<-n.copied
			dc.stderr.printf("server: cluster: %s exited unexpectedly: %s; the other nodes go on\n", n.name, exitDescription(n.p.Err()))
			if live--; live == 0 {
				dc.stderr.printf("server: cluster: no node left; stopping\n")
				return 1
			}
		}
	}
}

// shutdown stops what start started, in order: the nodes (SIGTERM, which saves
// their players, while NATS and PostgreSQL still run), then PostgreSQL and NATS,
// and removes the temp dir.
func (dc *devCluster) shutdown() error {
	var errs []error
	for _, n := range dc.nodes {
		select {
		case <-n.p.Done():
		default:
			n.stopped = true
			_ = n.p.Signal(syscall.SIGTERM)
		}
	}
	deadline := time.After(nodeStopTimeout)
	for _, n := range dc.nodes {
		if !n.stopped {
			continue
		}
		select {
		case <-n.p.Done():
		case <-deadline:
			n.p.KillGroup()
			errs = append(errs, fmt.Errorf("%s did not stop in %v: killed", n.name, nodeStopTimeout))
			continue
		}
		<-n.copied
		if err := n.p.Err(); err != nil {
			errs = append(errs, fmt.Errorf("%s stopped with %s", n.name, exitDescription(err)))
		}
	}
	if dc.pg != nil {
		if err := dc.pg.Stop(); err != nil {
			errs = append(errs, err)
		}
	}
	if dc.nats != nil {
		if err := dc.nats.Stop(); err != nil {
			errs = append(errs, err)
		}
	}
	if dc.dir != "" {
		if err := os.RemoveAll(dc.dir); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 {
		dc.stdout.printf("twinframe: cluster stopped\n")
	}
	return errors.Join(errs...)
}

// exitDescription says how a process ended: "exit status 0" for a nil Wait error.
func exitDescription(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}
