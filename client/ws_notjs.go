//go:build !js

package client

import (
	"context"

	"github.com/coder/websocket"
	"github.com/twinframe/twinframe/client/internal/wsconn"
)

// dialWS opens a websocket with coder/websocket, which refuses (and closes on) a
// message of more than readLimit bytes.
func dialWS(ctx context.Context, url string, readLimit int) (*wsconn.Conn, error) {
	ws, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return nil, err
	}
	ws.SetReadLimit(int64(readLimit))
	return &wsconn.Conn{WS: ws}, nil
}
