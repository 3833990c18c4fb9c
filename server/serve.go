package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/twinframe/twinframe/server/internal/gameserver"
	"github.com/twinframe/twinframe/server/internal/store"
	"github.com/twinframe/twinframe/web"
)

// serveCommand runs `server [serve] [flags]`: the game server until SIGINT or
// SIGTERM, then a graceful shutdown (sessions closed, avatars saved, store closed).
func serveCommand(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("serve", flag.ContinueOnError)
	fl.SetOutput(stderr)
	addr := fl.String("addr", envOr("ADDR", "127.0.0.1:8080"), "listen `address` (env ADDR)")
	db := fl.String("db", "twinframe.db", "SQLite database `file` (WAL)")
	token := fl.String("deity-token", os.Getenv("TWINFRAME_DEITY_TOKEN"),
		"deity `token` (env TWINFRAME_DEITY_TOKEN; random and printed when unset)")
	origins := fl.String("allow-origin", "", "comma-separated cross-origin host `patterns` allowed to open /ws (same origin always is)")
	saveEvery := fl.Duration("save-every", 5*time.Minute, "save every avatar this `often`")
	seed := fl.Uint64("seed", 1, "game `seed`")
	wasmDir := fl.String("wasm-dir", "web", "`directory` of viewer.wasm and wasm_exec.js (make wasm)")
	everyFrame := fl.Bool("every-frame-updates", false, "send moving entities' locomotion every frame instead of when clients' walked copies stray")
	verbose := fl.Bool("v", false, "log debug messages")
	openLogin := fl.Bool("open-login", false, "let any login take a name and its avatar without the account's secret (local debugging only)")
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "server: unexpected argument %q\n", fl.Arg(0))
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
	st, err := store.Open(ctx, *db)
	if err != nil {
		fmt.Fprintf(stderr, "server: %v\n", err)
		return 1
	}
	defer st.Close()
	var patterns []string
	for _, p := range strings.Split(*origins, ",") {
		if p = strings.TrimSpace(p); p != "" {
			patterns = append(patterns, p)
		}
	}
	srv, err := gameserver.New(gameserver.Config{Store: st, Seed: *seed, DeityToken: *token,
		OriginPatterns: patterns, SaveEvery: *saveEvery, EveryFrameUpdates: *everyFrame, Logger: log, OpenLogin: *openLogin})
	if err != nil {
		fmt.Fprintf(stderr, "server: %v\n", err)
		return 1
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "server: %v\n", err)
		return 1
	}
	hs := &http.Server{Handler: srv.Handler(web.Handler(web.Options{WasmDir: *wasmDir})), ReadHeaderTimeout: 10 * time.Second}
	runDone := make(chan error, 1)
	go func() { runDone <- srv.Run(ctx) }()
	httpDone := make(chan error, 1)
	go func() { httpDone <- hs.Serve(ln) }()
	// The URL is a promise that the server answers: print it once the loop runs.
	<-srv.Started()
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

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}
