//go:build !js

package client_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/twinframe/twinframe/internal/testenv"
)

// jsPeer is the native end of TestJSConn's websockets (ws_js_test.go), one
// behaviour per path, coder/websocket as the server uses it. It keeps, per case (the
// ?case= of the request), the close the client sent: "code reason", or "dropped".
type jsPeer struct {
	wg     sync.WaitGroup
	mu     sync.Mutex
	closes map[string]string
}

func (p *jsPeer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("case")
	switch r.URL.Path {
	case "/echo", "/close", "/burst", "/text", "/big", "/drop":
	default:
		http.NotFound(w, r)
		return
	}
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	p.wg.Add(1)
	defer p.wg.Done()
	ctx, cancel := context.WithTimeout(r.Context(), time.Minute)
	defer cancel()
	send := func(typ websocket.MessageType, b []byte) bool { return ws.Write(ctx, typ, b) == nil }
	switch r.URL.Path {
	case "/close":
		if send(websocket.MessageBinary, []byte("bye")) {
			ws.Close(4005, "kicked: replaced by a newer login")
		}
		return
	case "/burst":
		for i := range 100 {
			if !send(websocket.MessageBinary, []byte(strconv.Itoa(i))) {
				return
			}
		}
		ws.Close(4001, "done")
		return
	case "/drop":
		ws.CloseNow()
		return
	case "/text":
		_ = send(websocket.MessageBinary, []byte("first")) && send(websocket.MessageText, []byte("hi"))
	case "/big":
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		_ = send(websocket.MessageBinary, bytes.Repeat([]byte{7}, n)) && send(websocket.MessageBinary, make([]byte, n+1))
	}
	for { // echo until the client closes
		typ, b, err := ws.Read(ctx)
		if err != nil {
			got := "dropped"
			var ce websocket.CloseError
			if errors.As(err, &ce) {
				got = fmt.Sprintf("%d %s", ce.Code, ce.Reason)
			}
			p.mu.Lock()
			p.closes[name] = got
			p.mu.Unlock()
			return
		}
		if !send(typ, b) {
			return
		}
	}
}

// TestJSConnUnderNode runs the browser build's websocket (ws_js.go) where it can
// run outside a browser: the client's tests compiled to wasm, under Node, whose
// WebSocket is the browser's API (the WHATWG one, as in Chromium), against jsPeer
// on a loopback port. Then it checks what the peer saw of the client's closes.
func TestJSConnUnderNode(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the client's tests for wasm (tens of seconds cold)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		testenv.Missing(t, "node is not installed (make setup installs it)")
	}
	// Node 22 has WebSocket by default; 20.10 and later behind this flag, which 22
	// still accepts.
	nodeArgs := []string{"--experimental-websocket", "--stack-size=8192"}
	if out, err := exec.Command(node, append(nodeArgs, "-e", `process.exit(typeof WebSocket === "function" ? 0 : 1)`)...).CombinedOutput(); err != nil {
		testenv.Missing(t, "node has no WebSocket (Node 20.10 or later has one): %v %s", err, out)
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	wasm := filepath.Join(t.TempDir(), "client.test.wasm")
	build := exec.Command("go", "test", "-c", "-o", wasm, ".")
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the client's tests for wasm: %v\n%s", err, out)
	}

	peer := &jsPeer{closes: map[string]string{}}
	srv := httptest.NewServer(peer)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args := append(nodeArgs, filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec_node.js"),
		wasm, "-test.v", "-test.count=1", "-test.run", "^(TestJSConn|TestTruncateReason)$")
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Env = append(os.Environ(), "TWINFRAME_WS_PEER=ws"+strings.TrimPrefix(srv.URL, "http"))
	out, err := cmd.CombinedOutput()
	t.Logf("under node:\n%s", out)
	if err != nil {
		t.Fatalf("the wasm tests failed: %v", err)
	}
	// Every case ran and passed: a skip (no peer URL) would pass too.
	passed := regexp.MustCompile(`(?m)^    --- PASS: TestJSConn/`).FindAll(out, -1)
	if len(passed) != 8 || bytes.Contains(out, []byte("--- SKIP")) {
		t.Fatalf("%d of TestJSConn's 8 cases passed under node", len(passed))
	}
	peer.wg.Wait()
	want := map[string]string{
		"echo":   "1000 ",
		"cancel": "1000 ",
		"text":   "1000 client: text message from the peer (binary messages only)",
		"big":    "1000 client: message of 1025 bytes from the peer, over the read limit of 1024",
	}
	for name, w := range want {
		if got := peer.closes[name]; got != w {
			t.Errorf("case %s: the peer saw the client close with %q, want %q", name, got, w)
		}
	}
}
