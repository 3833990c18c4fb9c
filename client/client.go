package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/client/netsim"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replica"
	"google.golang.org/protobuf/proto"
)

// Errors.
var (
	ErrClosed       = errors.New("client: closed")
	ErrLoginRefused = errors.New("client: login refused")
)

// ReadLimits are the limits a client reads the server's packets with: a region
// change carries the region's configuration tables (up to 4 MiB).
var ReadLimits = protocol.Limits{MaxPacketSize: 8 << 20, MaxMessageSize: 4 << 20}

// Options configure a client.
type Options struct {
	Name       string
	DeityToken string // empty: a player
	// Secret is the account's password, or the token the server issued at the
	// name's first login (IssuedToken); empty at a first login, which is then
	// issued a token. With a secret, a first login sets it as the password.
	Secret  string
	Replica *replica.Options
	// Up and Down, when set, simulate network conditions on the connection (what the
	// client sends and what it receives), seeded with Seed. SetNet changes them.
	Up, Down *netsim.Conditions
	Seed     uint64
	// PingInterval is how often Update pings (default 1 s; the first at once).
	PingInterval time.Duration
	// WriteTimeout bounds each write (default 5 s).
	WriteTimeout time.Duration
	// Now is the client's clock for the replica (default: monotonic time since the
	// client was made).
	Now func() time.Duration
	// OnMessage, if set, receives every decoded server message after the replica
	// (xdump and live-edit responses, debug draw, errors), on the reader goroutine.
	OnMessage func(proto.Message)
	Logger    *slog.Logger
}

// Stats counts a client's traffic.
type Stats struct {
	BytesIn, BytesOut     int64
	PacketsIn, PacketsOut int64
	DecodeErrors          int64
}

// Client is a connection to a server with its replica. Its methods are safe for
// concurrent use.
type Client struct {
	opt  Options
	conn netsim.Conn
	link *netsim.Link // nil without simulated conditions

	mu       sync.Mutex // guards r, lastPing, loginErr, issued
	r        *replica.Replica
	issued   string
	answered bool // the login result came
	lastPing time.Duration
	pinged   bool
	loginErr error
	readyCh  chan struct{}
	ready    bool
	frames   frameStatsLog // the server's loop timings (NetMessageServerFrameStats)

	wmu sync.Mutex
	pkt protocol.Packet

	bytesIn, bytesOut, packetsIn, packetsOut, decodeErrs atomic.Int64
	xdumpID                                              atomic.Uint32 // the last xdump request's id

	done    chan struct{}
	errOnce sync.Once
	err     error
}

// New logs in over conn (a message transport such as the websocket Dial opens, or
// a netsim.Pipe) and starts reading. Use WaitReady to wait for the avatar.
func New(conn netsim.Conn, opt *Options) (*Client, error) {
	c := &Client{done: make(chan struct{}), readyCh: make(chan struct{})}
	if opt != nil {
		c.opt = *opt
	}
	if c.opt.PingInterval <= 0 {
		c.opt.PingInterval = time.Second
	}
	if c.opt.WriteTimeout <= 0 {
		c.opt.WriteTimeout = 5 * time.Second
	}
	if c.opt.Logger == nil {
		c.opt.Logger = slog.New(slog.DiscardHandler)
	}
	if c.opt.Now == nil {
		start := time.Now()
		c.opt.Now = func() time.Duration { return time.Since(start) }
	}
	ropt := replica.Options{}
	if c.opt.Replica != nil {
		ropt = *c.opt.Replica
	}
	if ropt.Logger == nil {
		ropt.Logger = c.opt.Logger
	}
	c.r = replica.New(&ropt)
	c.conn = conn
	if c.opt.Up != nil || c.opt.Down != nil {
		up, down := netsim.Conditions{}, netsim.Conditions{}
		if c.opt.Up != nil {
			up = *c.opt.Up
		}
		if c.opt.Down != nil {
			down = *c.opt.Down
		}
		c.link = netsim.Wrap(conn, netsim.NewShaper(up, c.opt.Seed), netsim.NewShaper(down, c.opt.Seed+1), nil)
		c.conn = c.link
	}
	login := &pb.NetMessageLogin{Name: c.opt.Name, ProtocolVersion: protocol.Version}
	if c.opt.DeityToken != "" {
		login.DeityToken = proto.String(c.opt.DeityToken)
	}
	if c.opt.Secret != "" {
		login.Secret = proto.String(c.opt.Secret)
	}
	if err := c.Send(login); err != nil {
		c.conn.Close()
		return nil, err
	}
	go c.read()
	return c, nil
}

// SetNet changes the simulated network conditions; it does nothing for a client
// made without them.
func (c *Client) SetNet(up, down netsim.Conditions) {
	if c.link != nil {
		c.link.Up.Set(up)
		c.link.Down.Set(down)
	}
}

func (c *Client) fail(err error) {
	c.errOnce.Do(func() {
		c.err = err
		close(c.done)
	})
}

// Done is closed when the connection ends; Err then says why.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err returns why the connection ended, or nil while it is up.
func (c *Client) Err() error {
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

// Close closes the connection and waits for the reader to stop.
func (c *Client) Close() error {
	err := c.conn.Close()
	<-c.done
	return err
}

func (c *Client) read() {
	ctx := context.Background()
	rd := protocol.Reader{Limits: ReadLimits, From: protocol.ServerToClient}
	var msgs []proto.Message
	stamped, _ := c.conn.(netsim.StampedConn)
	for {
		var b []byte
		var err error
		var late time.Duration // how long ago the message arrived
		if stamped != nil {
			var at time.Time
			b, at, err = stamped.ReadStamped(ctx)
			late = max(time.Since(at), 0)
		} else {
			b, err = c.conn.Read(ctx)
		}
		if err != nil {
			c.fail(fmt.Errorf("%w: %w", ErrClosed, err))
			return
		}
		// The packet's time is when it was delivered: taken before decoding it and
		// before waiting for the replica's lock, which the viewer holds while it
		// draws, so that neither counts in the round trip or the server clock.
		now := c.opt.Now() - late
		c.bytesIn.Add(int64(len(b)))
		c.packetsIn.Add(1)
		msgs = msgs[:0]
		if _, err := rd.Reset(b); err != nil {
			c.decodeError(err)
			continue
		}
		for rd.Next() {
			m, err := rd.Message()
			if err != nil {
				c.decodeError(err)
				continue
			}
			msgs = append(msgs, m)
		}
		if err := rd.Err(); err != nil {
			c.decodeError(err)
		}
		if req := c.receive(now, msgs); req != nil {
			// The replica found inconsistent data: ask for a fresh copy of the
			// world (once; the answer resets the replica). A failed write ends the
			// connection, which the next read reports.
			if err := c.Send(req); err != nil {
				c.opt.Logger.Warn("client: resync request", "err", err)
			}
		}
		if c.opt.OnMessage != nil {
			for _, m := range msgs {
				c.opt.OnMessage(m)
			}
		}
	}
}

func (c *Client) decodeError(err error) {
	c.decodeErrs.Add(1)
	c.opt.Logger.Error("client: bad packet from the server", "err", err)
}

// receive applies a packet's messages, delivered at now, to the replica; it returns
// the resync request to send when the replica found them inconsistent.
func (c *Client) receive(now time.Duration, msgs []proto.Message) *pb.NetMessageResyncRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range msgs {
		if lr, ok := m.(*pb.NetMessageLoginResult); ok {
			if t := lr.GetIssuedToken(); t != "" {
				c.issued = t
			}
			c.answered = true
		}
		// An error before the login result refuses the login (a wrong secret,
		// a full server): the server closes the connection after it.
		if e, ok := m.(*pb.NetMessageError); ok && !c.answered && c.loginErr == nil {
			c.loginErr = fmt.Errorf("%w: %v: %s", ErrLoginRefused, e.GetCode(), e.GetText())
		}
		if fs, ok := m.(*pb.NetMessageServerFrameStats); ok {
			c.frames.add(fs)
		}
	}
	c.r.Receive(now, msgs...)
	c.r.Advance(now)
	if !c.ready && (c.r.Ready() || c.loginErr != nil) {
		c.ready = true
		close(c.readyCh)
	}
	return c.r.TakeResyncRequest()
}

// IssuedToken returns the token the server issued at this login (the name's
// first), once WaitReady has returned, or "". The server sends it once and keeps
// only its hash: keep it, and log in with it as Options.Secret from then on.
func (c *Client) IssuedToken() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.issued
}

// Ready reports, without waiting, whether WaitReady would return: the server has
// sent the avatar or refused the login.
func (c *Client) Ready() bool {
	select {
	case <-c.readyCh:
		return true
	default:
		return false
	}
}

// WaitReady waits until the server has sent the avatar (or refused the login).
func (c *Client) WaitReady(ctx context.Context) error {
	select {
	case <-c.readyCh:
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.loginErr
	case <-c.done:
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.loginErr != nil {
			return c.loginErr // why the server closed
		}
		return c.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Send writes one message in its own packet.
func (c *Client) Send(m proto.Message) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.pkt.Reset(protocol.MuxGame, protocol.CommandData)
	if err := c.pkt.Append(m); err != nil {
		return err
	}
	b := c.pkt.Bytes()
	ctx, cancel := context.WithTimeout(context.Background(), c.opt.WriteTimeout)
	defer cancel()
	if err := c.conn.Write(ctx, b); err != nil {
		return fmt.Errorf("%w: %w", ErrClosed, err)
	}
	c.bytesOut.Add(int64(len(b)))
	c.packetsOut.Add(1)
	return nil
}

// Update advances the prediction to now and pings when a ping is due. Call it once
// per frame (the viewer's Update, a bot's tick).
func (c *Client) Update() error {
	c.mu.Lock()
	now := c.opt.Now()
	c.r.Advance(now)
	var ping proto.Message
	if !c.pinged || now-c.lastPing >= c.opt.PingInterval {
		c.pinged, c.lastPing = true, now
		ping = c.r.Ping(now)
	}
	c.mu.Unlock()
	if ping != nil {
		return c.Send(ping)
	}
	return nil
}

// MoveTo walks the avatar to p: predicted at once, sent to the server.
func (c *Client) MoveTo(p mgl32.Vec2) error {
	c.mu.Lock()
	m, err := c.r.MoveTo(c.opt.Now(), p)
	c.mu.Unlock()
	if err != nil {
		return err
	}
	return c.Send(m)
}

// Stop stops the avatar.
func (c *Client) Stop() error {
	c.mu.Lock()
	m, err := c.r.Stop(c.opt.Now())
	c.mu.Unlock()
	if err != nil {
		return err
	}
	return c.Send(m)
}

// Fire fires a bolt at p.
func (c *Client) Fire(p mgl32.Vec2) error {
	c.mu.Lock()
	m, err := c.r.Fire(c.opt.Now(), p)
	c.mu.Unlock()
	if err != nil {
		return err
	}
	return c.Send(m)
}

// View appends the entities as they should be drawn now (replica.View).
func (c *Client) View(dst []replica.View) []replica.View {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.r.View(c.opt.Now(), dst)
}

// With runs fn with the replica under the client's lock: read what the viewer
// needs (drift log, stats, the world) without racing the reader. fn must not keep
// r or call the client's methods.
func (c *Client) With(fn func(r *replica.Replica)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fn(c.r)
}

// Region returns the region the client is in: its id and name ("" before the
// first region change).
func (c *Client) Region() (id int32, name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.r.RegionID(), c.r.RegionName(c.r.RegionID())
}

// TakeRegionChanges appends the region changes since the last call (the first
// region, travel, resyncs; replica.TakeRegionChanges), oldest first, to dst. One
// user of the client should take them.
func (c *Client) TakeRegionChanges(dst []replica.RegionChange) []replica.RegionChange {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.r.TakeRegionChanges(dst)
}

// Now returns the client's clock.
func (c *Client) Now() time.Duration { return c.opt.Now() }

// Stats returns the traffic counters.
func (c *Client) Stats() Stats {
	return Stats{BytesIn: c.bytesIn.Load(), BytesOut: c.bytesOut.Load(), PacketsIn: c.packetsIn.Load(),
		PacketsOut: c.packetsOut.Load(), DecodeErrors: c.decodeErrs.Load()}
}
