package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/twinframe/twinframe/server/internal/cli"
	"github.com/twinframe/twinframe/server/internal/gameserver"
	"github.com/twinframe/twinframe/server/internal/store"
	"github.com/twinframe/twinframe/web"
)

// serveCommand runs `server [serve] [flags]`: the game server until SIGINT or
// SIGTERM, then a graceful shutdown (sessions closed, avatars saved, store closed).
func serveCommand(args []string, stdout, stderr io.Writer) int {
	fl := cli.New("serve", stderr)
	fl.Prefix = "server: "
	addr := fl.String("addr", envOr("ADDR", "127.0.0.1:8080"), "listen `address` (env ADDR)")
	stores := addStoreFlags(fl, "SQLite database `file` (WAL)")
	// The tokens' environment variables are read after parsing, so that -h
	// does not print them as defaults.
	token := fl.String("deity-token", "",
		"deity `token`; prefer the env TWINFRAME_DEITY_TOKEN: a flag shows in the process list (random and printed when unset)")
	metricsToken := fl.String("metrics-token", "",
		"if set, /metrics needs this bearer `token` (or the deity token); prefer the env TWINFRAME_METRICS_TOKEN")
	origins := fl.String("allow-origin", "", "comma-separated cross-origin host `patterns` allowed to open /ws (same origin always is)")
	hosts := fl.String("allow-host", "", "comma-separated `names` clients reach the server by, checked against the Host header (421 otherwise;\n"+
		"localhost, 127.0.0.1, ::1 and the -addr host always; *.example.com for subdomains, * for any); required with a wildcard -addr")
	maxPlayers := fl.Int("max-players", gameserver.DefaultMaxPlayers, "players in the game at once, the deity not counted; one more gets \"server full\" (-1: no limit)")
	idle := fl.Duration("idle-timeout", gameserver.DefaultIdleTimeout, "log out a player who sends no input for this `duration` (-1s: never)")
	maxConns := fl.Int("max-conns", gameserver.DefaultMaxConns, "open HTTP and websocket connections in all (-1: no limit)")
	maxPerAddr := fl.Int("max-conns-per-addr", gameserver.DefaultMaxConnsPerAddr, "open connections per client IP address (-1: no limit)")
	saveEvery := fl.Duration("save-every", 30*time.Second, "save every online avatar that changed this `often` (bounds what a crash loses)")
	seed := fl.Uint64("seed", 1, "game `seed`")
	workers := fl.Int("workers", 0, "regions stepped at once, each region being its own game (0: GOMAXPROCS)")
	wasmDir := fl.String("wasm-dir", "web", "`directory` of viewer.wasm and wasm_exec.js (make wasm)")
	everyFrame := fl.Bool("every-frame-updates", false, "send moving entities' locomotion every frame instead of when clients' walked copies stray")
	verbose := fl.Bool("v", false, "log debug messages")
	worldDir := fl.String("world", "", "load the world from the .config files of `directory` instead of the embedded one")
	watch := fl.Bool("watch", false, "with -world: apply a saved file of the directory through the live-edit path (errors at file:line in the log and the deity's page; nothing half applied)")
	openLogin := fl.Bool("open-login", false, "let any login take a name and its avatar without the account's secret (local debugging only)")
	clusterURL := fl.String("cluster", "", "join the cluster of the NATS server(s) at `URL` (nats://HOST:PORT, comma-separated);\n"+
		"the store must then be shared: -store postgres://... (docs/ARCHITECTURE.md §10)")
	node := fl.String("node", "", "this node's `name` in the cluster: letters, digits, '-', '_' (required with -cluster)")
	prefer := fl.String("prefer", "", "comma-separated region=node `pairs`: the node that claims a region first (others take it over when it is gone)")
	lease := fl.Duration("lease", 0, "region lease `period` in the cluster: a dead node's regions move after about this long (0: 3s)")
	if status, ok := fl.Parse(args); !ok {
		return status
	}
	var onCommandLine []string
	fl.Visit(func(f *flag.Flag) {
		if f.Name == "deity-token" || f.Name == "metrics-token" {
			onCommandLine = append(onCommandLine, f.Name)
		}
	})
	for _, name := range onCommandLine {
		env := "TWINFRAME_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		fmt.Fprintf(stderr, "server: warning: -%s is visible to every user of this machine in the process list; set %s instead\n", name, env)
	}
	if *watch && *worldDir == "" {
		fmt.Fprintln(stderr, "server: -watch needs -world DIR")
		return 2
	}
	if *token == "" {
		*token = os.Getenv("TWINFRAME_DEITY_TOKEN")
	}
	if *metricsToken == "" {
		*metricsToken = os.Getenv("TWINFRAME_METRICS_TOKEN")
	}
	allowHosts, err := hostList(*addr, *hosts)
	if err != nil {
		fmt.Fprintf(stderr, "server: %v\n", err)
		return 2
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	generated := *token == ""
	if generated {
		var b [16]byte
		_, _ = rand.Read(b[:])
		*token = hex.EncodeToString(b[:])
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	clusterCfg, err := clusterConfig(*clusterURL, *node, *prefer, *lease, stores)
	if err != nil {
		fmt.Fprintf(stderr, "server: %v\n", err)
		return 2
	}
	st, err := stores.open(ctx, false)
	if err != nil {
		fmt.Fprintf(stderr, "server: %v\n", err)
		return exitStatus(err)
	}
	defer st.Close()
	var files fs.FS // the embedded world
	if *worldDir != "" {
		files = os.DirFS(*worldDir)
	}
	srv, err := gameserver.New(gameserver.Config{Store: st, Files: files, Seed: *seed, DeityToken: *token,
		OriginPatterns: splitList(*origins), SaveEvery: *saveEvery, EveryFrameUpdates: *everyFrame, Logger: log,
		MaxPlayers: *maxPlayers, IdleTimeout: *idle, AllowHosts: allowHosts, MaxConns: *maxConns,
		MaxConnsPerAddr: *maxPerAddr, MetricsToken: *metricsToken, OpenLogin: *openLogin, Workers: *workers,
		Cluster: clusterCfg})
	if err != nil {
		fmt.Fprintf(stderr, "server: %v\n", err)
		return 1
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "server: %v\n", err)
		return 1
	}
	hs := srv.HTTPServer(web.Handler(web.Options{WasmDir: *wasmDir}))
	runDone := make(chan error, 1)
	go func() { runDone <- srv.Run(ctx) }()
	httpDone := make(chan error, 1)
	go func() { httpDone <- hs.Serve(ln) }()
	// The URL is a promise that the server answers: print it once the loop runs.
	<-srv.Started()
	if clusterCfg != nil {
		fmt.Fprintf(stdout, "twinframe: node %s of the cluster at %s\n", clusterCfg.Node, clusterCfg.URL)
	}
	if *watch {
		go func() {
			if err := srv.WatchWorld(ctx, *worldDir, gameserver.DefaultWatchPeriod); err != nil {
				log.Error("world directory: no longer watched", "dir", *worldDir, "err", err)
			}
		}()
	}
	fmt.Fprintf(stdout, "twinframe: serving http://%s/\n", ln.Addr())
	if generated {
		fmt.Fprintf(stdout, "twinframe: deity token %s\n", *token)
	}
	runErr := <-runDone
	shutCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = hs.Shutdown(shutCtx)
	if err := <-httpDone; err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Error("http", "err", err)
	}
	if runErr != nil {
		fmt.Fprintf(stderr, "server: %v\n", runErr)
		return 1
	}
	if err := st.Close(); err != nil {
		fmt.Fprintf(stderr, "server: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, "twinframe: stopped")
	return 0
}

// clusterConfig is the server's cluster membership from the flags: nil without
// -cluster. A cluster needs a store every node reaches, so an SQLite file is
// refused rather than letting each node keep players of its own.
func clusterConfig(url, node, prefer string, lease time.Duration, stores *storeFlags) (*gameserver.ClusterConfig, error) {
	if url == "" {
		if node != "" || prefer != "" {
			return nil, errors.New("-node and -prefer need -cluster")
		}
		return nil, nil
	}
	if node == "" {
		return nil, errors.New("-cluster needs -node NAME, this node's name in the cluster")
	}
	loc, err := stores.location()
	if err != nil {
		return nil, err
	}
	if _, sqlite := store.SQLitePath(loc); sqlite {
		return nil, fmt.Errorf("-cluster needs a store the nodes share: -store postgres://USER@HOST:PORT/DATABASE, not the SQLite file %s", loc)
	}
	cfg := &gameserver.ClusterConfig{URL: url, Node: node, Lease: lease}
	for _, pair := range splitList(prefer) {
		region, n, ok := strings.Cut(pair, "=")
		if !ok || region == "" || n == "" {
			return nil, fmt.Errorf("-prefer %q: want region=node pairs", pair)
		}
		if cfg.Preferred == nil {
			cfg.Preferred = map[string]string{}
		}
		cfg.Preferred[region] = n
	}
	return cfg, nil
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// hostList is the Host allow-list of a server listening on addr: the loopback
// names, addr's host unless it is every interface, and the -allow-host names. A
// server listening on every interface cannot know the names it is reached by,
// so the operator must list them (or "*").
func hostList(addr, extra string) ([]string, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("-addr %q: %v", addr, err)
	}
	listed := splitList(extra)
	if gameserver.IsWildcardHost(host) && len(listed) == 0 {
		return nil, fmt.Errorf("-addr %q listens on every interface: list the names clients reach the server by with -allow-host (\"*\" accepts any Host, which leaves the server open to DNS rebinding)", addr)
	}
	hosts := append([]string(nil), gameserver.LoopbackHosts...)
	if !gameserver.IsWildcardHost(host) {
		hosts = append(hosts, host)
	}
	return append(hosts, listed...), nil
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}
