//go:build js

package client

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"syscall/js"
	"time"
)

// The browser build's websocket is the page's own WebSocket object, driven through
// syscall/js: a websocket library would link net/http and crypto/tls into the wasm
// for an HTTP handshake the browser does itself (docs/ARCHITECTURE.md §2).

// closeWait bounds how long Close waits for the browser's close event after it
// asked for the close handshake (the browser ends the connection itself if the
// server never answers; this only keeps Close from hanging on a host that does
// not).
const closeWait = 5 * time.Second

// WebSocket readyState values (the WebSocket API).
const (
	wsConnecting = 0
	wsOpen       = 1
	wsClosed     = 3
)

// The close code the page sends. The WebSocket API lets a page send only 1000 or
// 3000–4999, so a message the client refuses (text, or over the read limit) also
// closes with 1000, the refusal in the reason; the peer sees the reason, and the
// Read that met the message returns the refusal.
const closeNormal = 1000

// wsCloseError is how a websocket ended, as the browser's close event reports it: the
// close code and reason of the close frame (a server's error closes with 4000 plus
// the error code, docs/PROTOCOL.md §10), or 1006 when the connection dropped
// without one.
type wsCloseError struct {
	Code   int
	Reason string
}

func (e wsCloseError) Error() string {
	if e.Code == 1006 {
		return "websocket closed abnormally (status 1006: no close frame)"
	}
	return fmt.Sprintf("websocket closed with status %d and reason %q", e.Code, e.Reason)
}

// jsConn is the page's WebSocket as a message Conn (netsim.Conn): binary messages
// only, each at most readLimit bytes. The browser reads the socket whatever the
// Go side does, so messages wait here, in order, until Read takes them: a reader
// that is slow (the page drawing a frame) delays them, never loses them. A text
// message or one over the limit closes the connection; Read returns every message
// before it, then the refusal.
type jsConn struct {
	ws        js.Value
	readLimit int
	handlers  []js.Func
	closed    chan struct{} // closed when the connection ended (finish)

	mu       sync.Mutex
	queue    [][]byte      // received, not yet read
	end      error         // why reading ends once queue is empty; nil while open
	changed  chan struct{} // closed and replaced when queue or end changes
	finished bool
}

// dialWS opens a WebSocket to url in the page and waits until it is open, the
// attempt fails, or ctx ends (which abandons the attempt).
func dialWS(ctx context.Context, url string, readLimit int) (*jsConn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ctor := js.Global().Get("WebSocket")
	if ctor.Type() != js.TypeFunction {
		return nil, errors.New("this JavaScript host has no WebSocket")
	}
	var ws js.Value
	if err := jsCatch(func() { ws = ctor.New(url) }); err != nil {
		return nil, err // a malformed URL, a scheme other than ws: or wss:
	}
	ws.Set("binaryType", "arraybuffer")
	c := &jsConn{ws: ws, readLimit: readLimit, closed: make(chan struct{}), changed: make(chan struct{})}
	opened := make(chan struct{})
	c.handle("open", func(js.Value) { close(opened) })
	c.handle("message", c.onMessage)
	c.handle("error", c.onError)
	c.handle("close", c.onClose)
	select {
	case <-opened:
		return c, nil
	case <-c.closed:
		return nil, fmt.Errorf("websocket failed to open: %w", c.readEnd())
	case <-ctx.Done():
		// The close (or error) event that follows releases the handlers.
		_ = jsCatch(func() { ws.Call("close") })
		return nil, ctx.Err()
	}
}

// handle sets the WebSocket's on<event> to f. Handlers run on the page's event
// loop and never block: they only queue and signal.
func (c *jsConn) handle(event string, f func(ev js.Value)) {
	fn := js.FuncOf(func(_ js.Value, args []js.Value) any {
		f(args[0])
		return nil
	})
	c.handlers = append(c.handlers, fn)
	c.ws.Set("on"+event, fn)
}

func (c *jsConn) onMessage(ev js.Value) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.end != nil {
		return // refused earlier, or closed: nothing after it is read
	}
	data := ev.Get("data")
	var refused error
	switch {
	case data.Type() == js.TypeString:
		refused = errors.New("client: text message from the peer (binary messages only)")
	case data.Get("byteLength").Int() > c.readLimit:
		refused = fmt.Errorf("client: message of %d bytes from the peer, over the read limit of %d", data.Get("byteLength").Int(), c.readLimit)
	}
	if refused != nil {
		c.end = refused
		_ = jsCatch(func() { c.ws.Call("close", closeNormal, truncateReason(refused.Error())) })
		c.signal()
		return
	}
	b := make([]byte, data.Get("byteLength").Int())
	js.CopyBytesToGo(b, js.Global().Get("Uint8Array").New(data))
	c.queue = append(c.queue, b)
	c.signal()
}

func (c *jsConn) onClose(ev js.Value) {
	c.finish(wsCloseError{Code: ev.Get("code").Int(), Reason: ev.Get("reason").String()})
}

// onError ends an attempt that fails before the connection opened. A browser
// follows the error event with a close event (1006), but not every host does
// (Node 20's WebSocket sends none after a refused handshake). Once open, the close
// event that follows an error says how the connection ended.
func (c *jsConn) onError(js.Value) {
	if c.ws.Get("readyState").Int() != wsConnecting {
		return
	}
	c.finish(wsCloseError{Code: 1006})
}

// finish ends the connection with end (unless a refused message ended reading
// first) and releases the event handlers: no event of the WebSocket matters after.
func (c *jsConn) finish(end error) {
	c.mu.Lock()
	if c.finished {
		c.mu.Unlock()
		return
	}
	c.finished = true
	if c.end == nil {
		c.end = end
	}
	c.signal()
	c.mu.Unlock()
	for _, ev := range []string{"onopen", "onmessage", "onerror", "onclose"} {
		c.ws.Set(ev, js.Null())
	}
	for _, fn := range c.handlers {
		fn.Release()
	}
	close(c.closed)
}

// signal wakes the readers; c.mu is held.
func (c *jsConn) signal() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// readEnd is why reading ended, nil while the connection is open.
func (c *jsConn) readEnd() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.end
}

// Read returns the next binary message. When ctx ends first it returns ctx's error
// and the connection stays open: the message, when it comes, waits for the next
// Read. After the connection closed (or refused a message) it returns the messages
// received before, then why it ended: the close code and reason, or the refusal.
func (c *jsConn) Read(ctx context.Context) ([]byte, error) {
	for {
		c.mu.Lock()
		if len(c.queue) > 0 {
			b := c.queue[0]
			c.queue[0] = nil
			c.queue = c.queue[1:]
			c.mu.Unlock()
			return b, nil
		}
		end, changed := c.end, c.changed
		c.mu.Unlock()
		if end != nil {
			return nil, end
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Write sends p as one binary message. The browser queues it without blocking, so
// ctx only refuses a write asked for after it ended.
func (c *jsConn) Write(ctx context.Context, p []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if st := c.ws.Get("readyState").Int(); st != wsOpen {
		if end := c.readEnd(); end != nil {
			return fmt.Errorf("client: write on a closed websocket: %w", end)
		}
		return errors.New("client: write on a closing websocket")
	}
	a := js.Global().Get("Uint8Array").New(len(p))
	js.CopyBytesToJS(a, p)
	return jsCatch(func() { c.ws.Call("send", a) })
}

// Close closes the websocket with a normal closure and waits for the browser's
// close event (at most closeWait). Closing a closed connection does nothing.
func (c *jsConn) Close() error {
	select {
	case <-c.closed:
		return nil
	default:
	}
	if err := jsCatch(func() { c.ws.Call("close", closeNormal, "") }); err != nil {
		return err
	}
	t := time.NewTimer(closeWait)
	defer t.Stop()
	select {
	case <-c.closed:
		return nil
	case <-t.C:
		return fmt.Errorf("client: no close event %v after closing the websocket", closeWait)
	}
}

// truncateReason cuts a close reason to the 123 bytes a close frame can carry (the
// WebSocket API throws on a longer one), on a rune boundary.
func truncateReason(s string) string {
	const maxReason = 123
	if len(s) <= maxReason {
		return s
	}
	n := maxReason
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// jsCatch runs f and returns a JavaScript exception it throws as an error.
func jsCatch(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			jerr, ok := r.(js.Error)
			if !ok {
				panic(r)
			}
			err = jerr
		}
	}()
	f()
	return nil
}
