//go:build js

package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// peerURL is the websocket peer TestJSConnUnderNode (ws_node_test.go) serves for
// these tests, which run under Node: a wasm cannot listen.
func peerURL(t *testing.T, path string) string {
	t.Helper()
	base := os.Getenv("TWINFRAME_WS_PEER")
	if base == "" {
		t.Skip("needs the peer that TestJSConnUnderNode (go test ./client/, native) serves and runs this test against")
	}
	return base + path
}

func dialPeer(t *testing.T, path string, readLimit int) *jsConn {
	t.Helper()
	c, err := dialWS(context.Background(), peerURL(t, path), readLimit)
	if err != nil {
		t.Fatalf("dial %s: %v", path, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func readWant(t *testing.T, c *jsConn, want []byte) {
	t.Helper()
	if b, err := c.Read(context.Background()); err != nil || !bytes.Equal(b, want) {
		t.Fatalf("read %d bytes %q, %v; want %q", len(b), clipBytes(b), err, clipBytes(want))
	}
}

func clipBytes(b []byte) []byte { return b[:min(len(b), 16)] }

// wantClosed checks that err is the close the peer sent.
func wantClosed(t *testing.T, err error, code int, reason string) {
	t.Helper()
	var ce wsCloseError
	if !errors.As(err, &ce) || ce.Code != code || ce.Reason != reason {
		t.Fatalf("error %v, want the close %d %q", err, code, reason)
	}
}

// TestJSConn runs the browser build's websocket against the real peers of
// ws_node_test.go, which also checks the close frames they received.
func TestJSConn(t *testing.T) {
	const limit = 1 << 10
	cases := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"echo", func(t *testing.T) {
			c := dialPeer(t, "/echo?case=echo", limit)
			big := bytes.Repeat([]byte{0, 1, 0xFE, 0xFF}, limit/4)
			for _, p := range [][]byte{[]byte("up"), big, {}} {
				if err := c.Write(context.Background(), p); err != nil {
					t.Fatal(err)
				}
				readWant(t, c, p)
			}
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			_, err := c.Read(context.Background())
			wantClosed(t, err, 1000, "")
			if err := c.Write(context.Background(), []byte("late")); err == nil {
				t.Error("a write after Close succeeded")
			}
			if err := c.Close(); err != nil {
				t.Errorf("closing again: %v", err)
			}
		}},
		{"the peer's close code and reason", func(t *testing.T) {
			c := dialPeer(t, "/close?case=close", limit)
			readWant(t, c, []byte("bye"))
			_, err := c.Read(context.Background())
			wantClosed(t, err, 4005, "kicked: replaced by a newer login")
			if !strings.Contains(err.Error(), "4005") || !strings.Contains(err.Error(), "replaced by a newer login") {
				t.Errorf("the error %q does not say the code and reason", err)
			}
			_, again := c.Read(context.Background())
			wantClosed(t, again, 4005, "kicked: replaced by a newer login")
		}},
		{"a slow reader gets every message before the close", func(t *testing.T) {
			c := dialPeer(t, "/burst?case=burst", limit)
			<-c.closed // everything has arrived and nothing was read
			for i := range 100 {
				readWant(t, c, []byte(fmt.Sprint(i)))
			}
			_, err := c.Read(context.Background())
			wantClosed(t, err, 4001, "done")
		}},
		{"a text message is refused", func(t *testing.T) {
			c := dialPeer(t, "/text?case=text", limit)
			readWant(t, c, []byte("first"))
			for range 2 {
				if _, err := c.Read(context.Background()); err == nil || !strings.Contains(err.Error(), "binary messages only") {
					t.Fatalf("read: %v, want the text message refused", err)
				}
			}
			<-c.closed
		}},
		{"a message over the read limit is refused", func(t *testing.T) {
			c := dialPeer(t, fmt.Sprintf("/big?case=big&n=%d", limit), limit)
			readWant(t, c, bytes.Repeat([]byte{7}, limit))
			if _, err := c.Read(context.Background()); err == nil || !strings.Contains(err.Error(), "over the read limit of 1024") {
				t.Fatalf("read: %v, want the message refused", err)
			}
			<-c.closed
		}},
		{"context cancellation", func(t *testing.T) {
			c := dialPeer(t, "/echo?case=cancel", limit)
			ctx, cancel := context.WithCancel(context.Background())
			res := make(chan error, 1)
			go func() {
				_, err := c.Read(ctx)
				res <- err
			}()
			cancel()
			if err := <-res; !errors.Is(err, context.Canceled) {
				t.Fatalf("read with a cancelled context: %v", err)
			}
			if err := c.Write(ctx, []byte("x")); !errors.Is(err, context.Canceled) {
				t.Fatalf("write with a cancelled context: %v", err)
			}
			// The connection is still open.
			if err := c.Write(context.Background(), []byte("again")); err != nil {
				t.Fatal(err)
			}
			readWant(t, c, []byte("again"))
		}},
		{"a dropped connection", func(t *testing.T) {
			c := dialPeer(t, "/drop?case=drop", limit)
			_, err := c.Read(context.Background())
			wantClosed(t, err, 1006, "")
		}},
		{"dial failures", func(t *testing.T) {
			for _, path := range []string{"/nowhere"} {
				if c, err := dialWS(context.Background(), peerURL(t, path), limit); err == nil {
					c.Close()
					t.Errorf("dial %s succeeded", path)
				}
			}
			bad := "ftp" + strings.TrimPrefix(peerURL(t, "/echo"), "ws") // the constructor throws a SyntaxError
			if _, err := dialWS(context.Background(), bad, limit); err == nil {
				t.Errorf("dial %s succeeded", bad)
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if _, err := dialWS(ctx, peerURL(t, "/echo?case=cancelled-dial"), limit); !errors.Is(err, context.Canceled) {
				t.Errorf("dial with a cancelled context: %v", err)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, tc.run)
	}
}

func TestTruncateReason(t *testing.T) {
	long := strings.Repeat("é", 70) // 140 bytes
	for _, tc := range []struct{ in, want string }{
		{"short", "short"},
		{strings.Repeat("a", 123), strings.Repeat("a", 123)},
		{strings.Repeat("a", 124), strings.Repeat("a", 123)},
		{long, strings.Repeat("é", 61)},
	} {
		if got := truncateReason(tc.in); got != tc.want {
			t.Errorf("truncateReason(%d bytes) = %d bytes, want %d", len(tc.in), len(got), len(tc.want))
		}
	}
}
