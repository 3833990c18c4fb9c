package client

import (
	"context"
	"fmt"
)

// Dial connects to a server's websocket endpoint (e.g. "ws://127.0.0.1:8080/ws")
// and logs in. Natively the websocket is coder/websocket's; in the browser
// (GOOS=js) it is the page's own WebSocket, driven through syscall/js, so the
// viewer's wasm links no HTTP client (docs/ARCHITECTURE.md §2). Either way a
// message larger than ReadLimits.MaxPacketSize ends the connection, and when the
// server closes it, Err says with which close code and reason.
func Dial(ctx context.Context, url string, opt *Options) (*Client, error) {
	conn, err := dialWS(ctx, url, ReadLimits.MaxPacketSize)
	if err != nil {
		return nil, fmt.Errorf("client: dial %s: %w", url, err)
	}
	return New(conn, opt)
}
