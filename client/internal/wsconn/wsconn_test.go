//go:build !js

// Native only: the tests serve websockets (client/clienttest), which a wasm cannot.

package wsconn_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/twinframe/twinframe/client/internal/wsconn"
)

// wsPair returns the two ends of a loopback websocket: the dialling end as a
// WSConn with the close handshake, and the raw accepting end.
func wsPair(t *testing.T) (*wsconn.Conn, *websocket.Conn) {
	t.Helper()
	accepted := make(chan *websocket.Conn, 1)
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		accepted <- ws
		<-done // the handler's return would end the connection
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(done) })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.CloseNow() })
	peer := <-accepted
	t.Cleanup(func() { peer.CloseNow() })
	return &wsconn.Conn{WS: ws}, peer
}

func TestConn(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		// run drives the pair and returns what the client end still does; want is the
		// status the peer's next Read ends with (-1: no close frame, the connection
		// was dropped).
		run  func(t *testing.T, ctx context.Context, c *wsconn.Conn, peer *websocket.Conn) <-chan error
		want websocket.StatusCode
	}{
		{"binary both ways, then a normal closure", func(t *testing.T, ctx context.Context, c *wsconn.Conn, peer *websocket.Conn) <-chan error {
			if err := c.Write(ctx, []byte("up")); err != nil {
				t.Fatal(err)
			}
			if typ, b, err := peer.Read(ctx); err != nil || typ != websocket.MessageBinary || !bytes.Equal(b, []byte("up")) {
				t.Fatalf("peer read %v %q %v, want a binary \"up\"", typ, b, err)
			}
			if err := peer.Write(ctx, websocket.MessageBinary, []byte("down")); err != nil {
				t.Fatal(err)
			}
			if b, err := c.Read(ctx); err != nil || !bytes.Equal(b, []byte("down")) {
				t.Fatalf("read %q %v, want \"down\"", b, err)
			}
			// The handshake needs the peer reading: Close runs while the test's
			// final peer.Read answers it.
			return async(c.Close)
		}, websocket.StatusNormalClosure},
		{"a text message is refused", func(t *testing.T, ctx context.Context, c *wsconn.Conn, peer *websocket.Conn) <-chan error {
			if err := peer.Write(ctx, websocket.MessageText, []byte("hi")); err != nil {
				t.Fatal(err)
			}
			return async(func() error {
				if b, err := c.Read(ctx); err == nil || !strings.Contains(err.Error(), "binary messages only") {
					return fmt.Errorf("read %q %v, want the text message refused", b, err)
				}
				return nil
			})
		}, websocket.StatusUnsupportedData},
		{"abrupt close", func(t *testing.T, ctx context.Context, c *wsconn.Conn, peer *websocket.Conn) <-chan error {
			c.Abrupt = true
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			return async(func() error { return nil })
		}, -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c, peer := wsPair(t)
			end := tc.run(t, ctx, c, peer)
			_, _, err := peer.Read(ctx)
			if got := websocket.CloseStatus(err); err == nil || got != tc.want {
				t.Errorf("the peer's read ended with %v (status %v), want status %v", err, got, tc.want)
			}
			if err := <-end; err != nil {
				t.Error(err)
			}
		})
	}
}

// async runs fn on its own goroutine and delivers its error.
func async(fn func() error) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- fn() }()
	return ch
}
