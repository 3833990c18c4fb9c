package gameserver

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/twinframe/twinframe/server/internal/store"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/sim"
	"go.uber.org/goleak"
	"google.golang.org/protobuf/proto"
)

const testToken = "test-deity-token"

// testServer is a Server behind an httptest server, with its store.
type testServer struct {
	*Server
	ts     *httptest.Server
	url    string // ws://.../ws
	db     string
	cancel context.CancelFunc
	ran    chan error
}

// startServer starts a server on db (a new file in t.TempDir when empty) with cfg
// adjusted by mod. The server stops at cleanup (or by stop).
func startServer(t testing.TB, db string, mod func(*Config), mods ...func(*httptest.Server)) *testServer {
	t.Helper()
	if db == "" {
		db = filepath.Join(t.TempDir(), "test.db")
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Store: st, DeityToken: testToken, Seed: 7}
	if testing.Verbose() {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	if mod != nil {
		mod(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(nil)
	ts.Config = s.HTTPServer(nil) // the timeouts and connection limits of every command
	for _, m := range mods {
		m(ts)
	}
	ts.Start()
	ctx, cancel := context.WithCancel(context.Background())
	r := &testServer{Server: s, ts: ts, url: "ws" + strings.TrimPrefix(ts.URL, "http") + "/ws", db: db,
		cancel: cancel, ran: make(chan error, 1)}
	go func() { r.ran <- s.Run(ctx) }()
	t.Cleanup(func() {
		r.stop(t)
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	})
	return r
}

// stop shuts the server down and waits for it (idempotent).
func (s *testServer) stop(t testing.TB) {
	t.Helper()
	if s.cancel == nil {
		return
	}
	s.cancel()
	s.cancel = nil
	select {
	case err := <-s.ran:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return")
	}
	s.ts.Close()
}

// inLoop runs fn in the frame loop.
func (s *testServer) inLoop(t testing.TB, fn func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.do(ctx, fn); err != nil {
		t.Fatal(err)
	}
}

// checkLeaks fails the test if goroutines started during it outlive it. Register it
// first so that it runs after every other cleanup: by then Run has awaited its
// connections and httptest.Server.Close its handlers, so nothing may be left. goleak
// retries for a while, so a goroutine that is already returning (seen in
// runtime.goexit1 by a single snapshot) is not reported. Goroutines that ran before
// the test (IgnoreCurrent) are not its own: parallel tests paused in t.Parallel, and
// those of earlier tests, which their own checks cover.
func checkLeaks(t *testing.T) {
	verify := leakCheck()
	t.Cleanup(func() { verify(t) })
}

// leakCheck snapshots the goroutines now and returns a check that reports, on t, every
// goroutine started since that is still running after goleak's retries.
func leakCheck() func(t goleak.TestingT) {
	ignore := goleak.IgnoreCurrent()
	return func(t goleak.TestingT) { goleak.VerifyNone(t, ignore) }
}

// client is a test client over a real websocket: a reader goroutine decodes each
// packet into a slice of messages.
type client struct {
	t       testing.TB
	bytes   atomic.Int64 // websocket message bytes received
	conn    *websocket.Conn
	packets chan []proto.Message
	done    chan struct{}
	err     error // why reading stopped; valid after done
	seq     uint32
}

type dialOpt struct {
	readBuffer int // client socket receive buffer (0: default)
	noRead     bool
}

func dial(t testing.TB, url string, o dialOpt) *client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var hc *http.Client
	if o.readBuffer > 0 {
		d := &net.Dialer{Control: nil}
		hc = &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, n, a string) (net.Conn, error) {
			c, err := d.DialContext(ctx, n, a)
			if err == nil {
				_ = c.(*net.TCPConn).SetReadBuffer(o.readBuffer)
			}
			return c, err
		}}}
	}
	conn, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	conn.SetReadLimit(protocol.HeaderSize + protocol.MaxBodySize)
	c := &client{t: t, conn: conn, packets: make(chan []proto.Message, 4096), done: make(chan struct{})}
	if o.noRead {
		close(c.done)
	} else {
		go c.read()
	}
	t.Cleanup(c.close)
	return c
}

func (c *client) read() {
	defer close(c.done)
	var rd protocol.Reader
	for {
		_, b, err := c.conn.Read(context.Background())
		if err != nil {
			c.err = err
			return
		}
		c.bytes.Add(int64(len(b)))
		_, msgs, err := rd.ReadAll(b)
		if err != nil {
			c.err = err
			return
		}
		select {
		case c.packets <- msgs:
		default:
			c.err = errors.New("test client: packet buffer full")
			return
		}
	}
}

func (c *client) close() {
	c.conn.CloseNow()
	<-c.done
}

// send sends one packet of msgs.
func (c *client) send(msgs ...proto.Message) error {
	var pk protocol.Packet
	for _, m := range msgs {
		if err := pk.Append(m); err != nil {
			return err
		}
	}
	return c.sendRaw(pk.Bytes())
}

func (c *client) sendRaw(b []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return c.conn.Write(ctx, websocket.MessageBinary, b)
}

func (c *client) login(name string, token *string) {
	c.t.Helper()
	c.loginSecret(name, "", token)
}

// loginSecret logs in with the account's secret (a password, or the token the
// first login was issued; "": none).
func (c *client) loginSecret(name, secret string, token *string) {
	c.t.Helper()
	m := &pb.NetMessageLogin{Name: name, DeityToken: token, ProtocolVersion: protocol.Version}
	if secret != "" {
		m.Secret = proto.String(secret)
	}
	if err := c.send(m); err != nil {
		c.t.Fatal(err)
	}
}

// next returns the next packet, failing the test after timeout.
func (c *client) next(timeout time.Duration) []proto.Message {
	c.t.Helper()
	select {
	case p := <-c.packets:
		return p
	case <-c.done:
		select {
		case p := <-c.packets:
			return p
		default:
		}
		c.t.Fatalf("connection ended: %v", c.err)
	case <-time.After(timeout):
		c.t.Fatalf("no packet in %v", timeout)
	}
	return nil
}

// closedWith waits for the server to close the connection and returns the close
// code and the NetMessageError it sent before, if any.
func (c *client) closedWith(timeout time.Duration) (websocket.StatusCode, *pb.NetMessageError) {
	c.t.Helper()
	var last *pb.NetMessageError
	deadline := time.After(timeout)
	for {
		select {
		case p := <-c.packets:
			for _, m := range p {
				if e, ok := m.(*pb.NetMessageError); ok {
					last = e
				}
			}
		case <-c.done:
			for {
				select {
				case p := <-c.packets:
					for _, m := range p {
						if e, ok := m.(*pb.NetMessageError); ok {
							last = e
						}
					}
				default:
					return websocket.CloseStatus(c.err), last
				}
			}
		case <-deadline:
			c.t.Fatalf("connection not closed in %v", timeout)
		}
	}
}

func (c *client) nextSeq() uint32 {
	c.seq++
	return c.seq
}

// waitFrame waits until the game has stepped frame f.
func (s *testServer) waitFrame(t testing.TB, f uint64) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		var now uint64
		s.inLoop(t, func() { now = s.hub().Frame() })
		if now >= f {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("frame %d not reached (at %d)", f, now)
		}
	}
}

// hub returns the game of the first region, where players enter.
func (s *Server) hub() *sim.Game { return s.regions[0].game }

// hubID returns the first region's id.
func (s *Server) hubID() int32 { return s.regions[0].id }
