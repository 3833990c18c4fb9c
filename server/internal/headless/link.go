package headless

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/twinframe/twinframe/client/netsim"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
)

// This file holds the plumbing that lets the headless run hold every bot and the
// server in lockstep over real websockets: a virtual-time link between each
// client and its websocket (network conditions in game time, not wall time), and
// byte-counting TCP connections on both ends, so that the driver knows when every
// input a bot sent is in the server's session inbox.

// vtime is the headless run's virtual time: server frame f has been stepped at
// f × 50 ms. Clients and links read it; only the driver moves it.
type vtime struct {
	ns      atomic.Int64
	running atomic.Uint64 // the server frame granted last (running or done)
}

func (v *vtime) Now() time.Duration  { return time.Duration(v.ns.Load()) }
func (v *vtime) set(d time.Duration) { v.ns.Store(int64(d)) }

// sentAt is the virtual time of a server packet that carries no frame number (a
// login result and region change, which the server sends at the frame boundary
// that admits the client): the time of the frame being granted. The driver
// grants the next frame only once the packets of this one have been read, so
// this does not depend on when the socket's reader gets to it.
func (v *vtime) sentAt() time.Duration { return time.Duration(v.running.Load()) * framePeriod }

// timed is a message with the virtual time it arrives at.
type timed struct {
	at time.Duration
	b  []byte
}

// vlink is a netsim.Conn for client.New over a websocket, whose two directions
// pass through netsim Shapers on virtual time. The driver delivers what is due
// (deliver) and waits until the client has processed it (settled); the link
// peeks at each server packet's frame number so the driver knows the server's
// packet for a frame has arrived.
type vlink struct {
	ws       *websocket.Conn
	up, down *netsim.Shaper
	vt       *vtime
	notify   chan struct{} // shared by all links: poked on every state change

	mu        sync.Mutex
	cond      *sync.Cond
	inbound   []timed  // read from the socket, not yet due
	ready     [][]byte // due: Read returns them
	outbound  []timed  // written by the client, not yet due
	lastFrame uint64   // newest server frame read from the socket
	waiting   bool     // the client's reader is blocked in Read with nothing ready
	err       error
	closed    bool
	lastSent  time.Duration // Deliver needs non-decreasing times
	done      chan struct{}
}

func newVlink(ws *websocket.Conn, up, down netsim.Conditions, seed uint64, vt *vtime, notify chan struct{}) *vlink {
	l := &vlink{ws: ws, up: netsim.NewShaper(up, seed), down: netsim.NewShaper(down, seed+1), vt: vt,
		notify: notify, done: make(chan struct{})}
	l.cond = sync.NewCond(&l.mu)
	go l.readSocket()
	return l
}

func (l *vlink) poke() {
	select {
	case l.notify <- struct{}{}:
	default:
	}
}

var idServerFrame, _ = protocol.IDOf(&pb.NetMessageServerFrame{})

// frameOf returns the frame of a server packet (its NetMessageServerFrame), or 0.
func frameOf(rd *protocol.Reader, b []byte) uint64 {
	if _, err := rd.Reset(b); err != nil {
		return 0
	}
	for rd.Next() {
		if rd.ID() == idServerFrame {
			var m pb.NetMessageServerFrame
			if rd.UnmarshalTo(&m) == nil {
				return m.GetFrame()
			}
			return 0
		}
	}
	return 0
}

func (l *vlink) readSocket() {
	defer close(l.done)
	rd := protocol.Reader{Limits: protocolReadLimits, From: protocol.ServerToClient}
	for {
		typ, b, err := l.ws.Read(context.Background())
		if err == nil && typ != websocket.MessageBinary {
			err = errors.New("headless: text message from the server")
		}
		l.mu.Lock()
		if err != nil {
			l.err = err
			l.cond.Broadcast()
			l.mu.Unlock()
			l.poke()
			return
		}
		sent := l.vt.sentAt()
		if f := frameOf(&rd, b); f > 0 {
			// The server sent frame f's packet when it stepped f: at f × 50 ms.
			sent = time.Duration(f) * framePeriod
			l.lastFrame = max(l.lastFrame, f)
		}
		sent = max(sent, l.lastSent)
		l.lastSent = sent
		at := l.down.Deliver(time.Unix(0, int64(sent)), len(b)).UnixNano()
		l.inbound = append(l.inbound, timed{time.Duration(at), b})
		l.mu.Unlock()
		l.poke()
	}
}

// Read implements netsim.Conn for the client's reader goroutine: it returns the
// next delivered message. Calling Read again means the client has processed the
// previous one.
func (l *vlink) Read(ctx context.Context) ([]byte, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for len(l.ready) == 0 && !l.closed && (l.err == nil || len(l.inbound) > 0) {
		if !l.waiting {
			l.waiting = true
			l.poke()
		}
		l.cond.Wait()
	}
	l.waiting = false
	if len(l.ready) > 0 {
		b := l.ready[0]
		l.ready[0] = nil
		l.ready = l.ready[1:]
		return b, nil
	}
	if l.closed {
		return nil, netsim.ErrClosed
	}
	return nil, l.err
}

// Write implements netsim.Conn: the message leaves when the up shaper says, in
// virtual time; due at once, it is written now.
func (l *vlink) Write(ctx context.Context, p []byte) error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return netsim.ErrClosed
	}
	now := l.vt.Now()
	at := time.Duration(l.up.Deliver(time.Unix(0, int64(now)), len(p)).UnixNano())
	if at > now || len(l.outbound) > 0 {
		l.outbound = append(l.outbound, timed{at, append([]byte(nil), p...)})
		l.mu.Unlock()
		return nil
	}
	l.mu.Unlock()
	return l.ws.Write(ctx, websocket.MessageBinary, p)
}

// Close implements netsim.Conn.
func (l *vlink) Close() error {
	l.mu.Lock()
	already := l.closed
	l.closed = true
	l.cond.Broadcast()
	l.mu.Unlock()
	if already {
		return nil
	}
	err := l.ws.Close(websocket.StatusNormalClosure, "")
	<-l.done
	return err
}

// deliver moves what is due at now to the client and writes what is due to the
// server.
func (l *vlink) deliver(ctx context.Context, now time.Duration) error {
	l.mu.Lock()
	n := 0
	for n < len(l.inbound) && l.inbound[n].at <= now {
		l.ready = append(l.ready, l.inbound[n].b)
		n++
	}
	if n > 0 {
		l.inbound = append(l.inbound[:0], l.inbound[n:]...)
		l.cond.Broadcast()
	}
	var out []timed
	n = 0
	for n < len(l.outbound) && l.outbound[n].at <= now {
		n++
	}
	out = append(out, l.outbound[:n]...)
	l.outbound = append(l.outbound[:0], l.outbound[n:]...)
	l.mu.Unlock()
	for _, m := range out {
		if err := l.ws.Write(ctx, websocket.MessageBinary, m.b); err != nil {
			return err
		}
	}
	return nil
}

// pendingOut returns the number of messages the client wrote that are not due
// yet.
func (l *vlink) pendingOut() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.outbound)
}

// state reports the newest frame read from the socket, and whether the client has
// processed everything delivered to it (or the link failed).
func (l *vlink) state() (frame uint64, settled bool, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lastFrame, len(l.ready) == 0 && l.waiting, l.err
}

// countConn is one end of a TCP connection that counts bytes and, on the server
// side, whether a Read is in progress: a websocket reader blocked in Read with
// every byte the client wrote consumed has handed every message to its session.
type countConn struct {
	net.Conn
	key   string // the client end's address
	table *connTable

	read, written int64 // under table.mu
	reading       int
	closed        bool
}

func (c *countConn) Read(p []byte) (int, error) {
	c.table.mu.Lock()
	c.reading++
	c.table.mu.Unlock()
	n, err := c.Conn.Read(p)
	c.table.mu.Lock()
	c.reading--
	c.read += int64(n)
	if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
		c.closed = true // not a deadline: net/http aborts its background read with one
	}
	c.table.mu.Unlock()
	c.table.poke()
	return n, err
}

func (c *countConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.table.mu.Lock()
	c.written += int64(n)
	c.table.mu.Unlock()
	return n, err
}

func (c *countConn) Close() error {
	c.table.mu.Lock()
	c.closed = true
	c.table.mu.Unlock()
	c.table.poke()
	return c.Conn.Close()
}

// connTable pairs the clients' and the server's ends of each connection by the
// client end's address.
type connTable struct {
	mu      sync.Mutex
	clients map[string]*countConn
	servers map[string]*countConn
	notify  chan struct{}
}

func newConnTable(notify chan struct{}) *connTable {
	return &connTable{clients: map[string]*countConn{}, servers: map[string]*countConn{}, notify: notify}
}

func (t *connTable) poke() {
	select {
	case t.notify <- struct{}{}:
	default:
	}
}

// dial is a net.Dialer.DialContext for the clients' HTTP transport.
func (t *connTable) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	cc := &countConn{Conn: c, key: c.LocalAddr().String(), table: t}
	t.mu.Lock()
	t.clients[cc.key] = cc
	t.mu.Unlock()
	return cc, nil
}

// countListener wraps the server's listener.
type countListener struct {
	net.Listener
	table *connTable
}

func (l countListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	cc := &countConn{Conn: c, key: c.RemoteAddr().String(), table: l.table}
	l.table.mu.Lock()
	l.table.servers[cc.key] = cc
	l.table.mu.Unlock()
	return cc, nil
}

// received reports whether the server has read, and its session readers have
// handled, every byte the clients wrote.
func (t *connTable) received() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, c := range t.clients {
		s := t.servers[k]
		if c.closed || s != nil && s.closed {
			continue
		}
		if s == nil || s.read != c.written || s.reading == 0 {
			return false
		}
	}
	return true
}
