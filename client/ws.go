package client

import (
	"context"
	"fmt"

	"github.com/coder/websocket"
)

// Dial connects to a server's websocket endpoint (e.g. "ws://127.0.0.1:8080/ws")
// and logs in. In the browser (GOOS=js) it uses the page's WebSocket.
func Dial(ctx context.Context, url string, opt *Options) (*Client, error) {
	ws, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return nil, fmt.Errorf("client: dial %s: %w", url, err)
	}
	ws.SetReadLimit(int64(ReadLimits.MaxPacketSize))
	return New(&WSConn{WS: ws}, opt)
}

// WSConn is a websocket as a message Conn (netsim.Conn): binary messages only. A
// text message is an error, and closes the websocket with StatusUnsupportedData.
type WSConn struct {
	WS *websocket.Conn
	// Abrupt makes Close drop the connection at once (CloseNow) rather than run the
	// close handshake, which waits for the peer: for a server end that closes
	// sessions while it holds a lock.
	Abrupt bool
}

// Read returns the next binary message.
func (w *WSConn) Read(ctx context.Context) ([]byte, error) {
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
func (w *WSConn) Write(ctx context.Context, p []byte) error {
	return w.WS.Write(ctx, websocket.MessageBinary, p)
}

// Close closes the websocket: with a normal closure, or at once when Abrupt.
func (w *WSConn) Close() error {
	if w.Abrupt {
		return w.WS.CloseNow()
	}
	return w.WS.Close(websocket.StatusNormalClosure, "")
}
