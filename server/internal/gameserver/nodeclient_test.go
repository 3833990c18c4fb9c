package gameserver

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twinframe/twinframe/internal/testenv"
)

// TestNodeClient runs clients/node, a client written from docs/PROTOCOL.md and
// the .proto alone, against the real server: it checks the test vectors, is
// refused with an old protocol version, logs in, decodes every message and
// archive it gets, walks its avatar to a point and checks that it arrives,
// fires, resyncs and leaves; with the deity token, a deity session walks its
// avatar while the client walks it between the server's corrections and checks
// each, then teleports the client's avatar to another region and the client
// checks the region change (every old entity dropped, its avatar created again,
// frames going on). Its exit status is the verdict; its output says
// which check failed. Node and the client's npm packages come from make setup
// (scripts/setup.sh runs npm ci in clients/node).
func TestNodeClient(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a Node client against a 20 Hz server for several seconds")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		testenv.Missing(t, "node is not installed (make setup installs it)")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "clients", "node"))
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range []string{"ws", "protobufjs"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", dep, "package.json")); err != nil {
			testenv.Missing(t, "%s: npm package %s is not installed (make setup runs npm ci there)", dir, dep)
		}
	}
	s := startServer(t, "", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "client.mjs"), "--url", s.url, "--timeout", "60", "--deity-token", testToken)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	t.Logf("node client:\n%s", strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("node client: %v", err)
	}
}
