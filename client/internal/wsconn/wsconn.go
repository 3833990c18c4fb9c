// Package wsconn is a coder/websocket connection as the client's message transport
// (netsim.Conn): the native client's websocket, and the server end of the scripted
// test server (client/clienttest). The client's browser build does not use it: it
// drives the page's WebSocket itself (client/ws_js.go), so that the viewer's wasm
// links no HTTP client (docs/ARCHITECTURE.md §2).
package wsconn

import (
	"context"
	"fmt"

	"github.com/coder/websocket"
)

// Conn is a websocket as a message Conn (netsim.Conn): binary messages only. A
// text message is an error, and closes the websocket with StatusUnsupportedData.
type Conn struct {
	WS *websocket.Conn
	// Abrupt makes Close drop the connection at once (CloseNow) rather than run the
	// close handshake, which waits for the peer: for a server end that closes
	// sessions while it holds a lock.
	Abrupt bool
}

// Read returns the next binary message.
func (w *Conn) Read(ctx context.Context) ([]byte, error) {
	typ, b, err := w.WS.Read(ctx)
	if err != nil {
		return nil, err
	}
	if typ != websocket.MessageBinary {
		w.WS.Close(websocket.StatusUnsupportedData, "binary messages only")
		return nil, fmt.Errorf("client: %v message from the peer (binary messages only)", typ)
	}
	return b, nil
}

// Write sends p as one binary message.
func (w *Conn) Write(ctx context.Context, p []byte) error {
	return w.WS.Write(ctx, websocket.MessageBinary, p)
}

// Close closes the websocket: with a normal closure, or at once when Abrupt.
func (w *Conn) Close() error {
	if w.Abrupt {
		return w.WS.CloseNow()
	}
	return w.WS.Close(websocket.StatusNormalClosure, "")
}
