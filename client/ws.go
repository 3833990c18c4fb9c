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
	return New(&wsConn{ws}, opt)
}

// wsConn is a websocket as a message Conn: binary messages only.
type wsConn struct{ c *websocket.Conn }

func (w *wsConn) Read(ctx context.Context) ([]byte, error) {
	typ, b, err := w.c.Read(ctx)
	if err != nil {
		return nil, err
	}
	if typ != websocket.MessageBinary {
		w.c.Close(websocket.StatusUnsupportedData, "binary messages only")
		return nil, fmt.Errorf("client: %v message from the server", typ)
	}
	return b, nil
}

func (w *wsConn) Write(ctx context.Context, p []byte) error {
	return w.c.Write(ctx, websocket.MessageBinary, p)
}

func (w *wsConn) Close() error { return w.c.Close(websocket.StatusNormalClosure, "") }
