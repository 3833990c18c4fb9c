package gameserver

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"
	"github.com/twinframe/twinframe/server/internal/store"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replication"
	"github.com/twinframe/twinframe/shared/sim"
	"google.golang.org/protobuf/proto"
)

// CloseCodeBase is added to a pb.ErrorCode to make the websocket close code the
// server closes a connection with (4000 + code: 4001 bad packet ... 4012 internal).
const CloseCodeBase = 4000

// session is one websocket connection. Fields after the comment are owned by the
// frame loop.
type session struct {
	id       uint64
	conn     *websocket.Conn
	srv      *Server
	ctx      context.Context // cancelled when the session must end
	cancel   context.CancelFunc
	out      chan []byte
	free     chan []byte // packet buffers the writer is done with, for the loop to refill
	name     string
	playerID int64
	role     pb.Role
	addr     string // the client's host: the key of per-address rate limits
	issued   string // the token this login issued, for the login result (account)

	mu        sync.Mutex
	inbox     []proto.Message
	dumped    []*pb.NetMessageXDumpResponse // finished dumps for the next packet (dump.go)
	code      pb.ErrorCode                  // why it ended (NONE: the client left)
	why       string
	slow      bool
	everEnded bool
	// Cluster (clusternet.go). A websocket session of this front door whose player
	// runs on another node relays to route; the packets of that node carry the
	// player record's revision routeRev. playerRev: the revision this node's
	// ownership of the player was written at (0: none). moved: the player went to
	// another node, which speaks to the front door from then on.
	route     string
	routeInc  string // route's incarnation ("" until its first word)
	routeRev  uint64
	strayed   int // looks in a row that found the player's record not naming route (watchNodes' own)
	unheld    int // looks in a row that found the front door not relaying this remote session here (watchNodes' own)
	playerRev uint64
	released  bool // releasePlayer has given up the record at playerRev
	moved     bool
	// A session run here for another front door: its node, the connection's id
	// there, and the reader of the packets it relays.
	door     string
	doorInc  string // the door's incarnation
	doorConn uint64
	rd       protocol.Reader

	// Loop-owned.
	joined  bool
	transit *transit // the avatar is on its way to another node
	// A refused handoff puts the avatar back inside the portal it entered, which
	// the next step sees as an entry: that one departure (the step after this
	// frame of its region) is not travel. Walking out and in again is.
	backFrame uint64
	reg       *region // where the avatar is
	avatar    sim.EntityID
	view      replication.View // inputs and what the client holds
	replies   []proto.Message
	draw      bool
	rs        resyncState // resync.go
	// Rate limits: xdump requests (dump.go) and inputs (drain).
	dumpBucket  tokenBucket
	dumpRefused int    // xdump requests refused since the last one taken
	inTokens    int    // inputs the session may still have applied
	inStarted   bool   // inTokens has been filled
	inDropSec   uint64 // 1 + the loop's second in which an input was last dropped (0: never)
	inFloodSecs int    // consecutive seconds with inputs dropped
	// admission.go: the ack last seen by kickIdle, and when it changed.
	idleSeen bool
	idleAck  uint32
	activeAt time.Duration
}

// fail ends the session with code and reason (the first call wins).
func (c *session) fail(code pb.ErrorCode, why string) {
	c.mu.Lock()
	if !c.everEnded {
		c.everEnded = true
		c.code, c.why = code, why
		c.slow = code == pb.ErrorCode_ERROR_CODE_SLOW_CONSUMER
	}
	slow := c.slow
	c.mu.Unlock()
	c.cancel()
	if slow && c.conn != nil {
		// Abort a write in progress: the writer's context is not the session's, so
		// that ending a session for any other reason lets the packet being written
		// finish and the error and close frame follow it.
		c.conn.CloseNow()
	}
}

func (c *session) closed() bool { return c.ctx.Err() != nil }

// reason is the metrics label of why the session ended.
func (c *session) reason() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.code == pb.ErrorCode_ERROR_CODE_UNSPECIFIED {
		if c.why != "" {
			return c.why
		}
		return "client_closed"
	}
	return strings.ToLower(strings.TrimPrefix(c.code.String(), "ERROR_CODE_"))
}

func (c *session) reasonText() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.why
}

// send queues a packet for the writer without blocking; a full queue makes the
// session a slow consumer.
func (s *Server) send(c *session, p []byte, msgs int) {
	select {
	case c.out <- p:
		s.metrics.bytesOut.Add(float64(len(p)))
		s.metrics.messagesOut.Add(float64(msgs))
	default:
		c.fail(pb.ErrorCode_ERROR_CODE_SLOW_CONSUMER,
			fmt.Sprintf("output queue full (%d packets)", cap(c.out)))
	}
}

// queue copies the packet built in pk into a buffer the writer has finished
// with (or a new one) and queues it with send.
func (s *Server) queue(c *session, pk *protocol.Packet) {
	var buf []byte
	select {
	case buf = <-c.free:
	default:
	}
	s.send(c, append(buf[:0], pk.Bytes()...), pk.Len())
}

// recycle hands a written packet's buffer back to the loop, unless enough wait.
func (c *session) recycle(p []byte) {
	select {
	case c.free <- p:
	default:
	}
}

// serveWS is the /ws handler: it runs the session's reader, and starts its writer.
func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: s.cfg.OriginPatterns})
	if err != nil {
		s.log.Info("websocket accept", "remote", r.RemoteAddr, "err", err)
		return
	}
	s.conns.Add(1)
	defer s.conns.Done()
	conn.SetReadLimit(-1) // the reader caps each message itself, with a reason
	ctx, cancel := context.WithCancel(context.Background())
	c := &session{id: s.nextID.Add(1), conn: conn, srv: s, ctx: ctx, cancel: cancel,
		out: make(chan []byte, s.cfg.OutboxSize), free: make(chan []byte, s.cfg.OutboxSize), addr: clientAddr(r)}
	readCtx, stopRead := context.WithCancel(context.Background())
	defer stopRead()
	writerDone := make(chan struct{})
	go func() { s.writeLoop(c); close(writerDone) }()
	s.readLoop(readCtx, c)
	s.doorClosed(c)
	s.dropDoor(c)
	s.discard(readCtx, c)
	<-writerDone
	s.metrics.disconnect(c.reason())
}

// discard reads and drops what a failed client still sends while the writer
// closes the connection, so that the close handshake completes (unread data at
// close would make the kernel reset the connection, losing the close frame).
// It reads at most maxSkip bytes, and stops when the connection is closed.
func (s *Server) discard(ctx context.Context, c *session) {
	c.mu.Lock()
	failed := c.code != pb.ErrorCode_ERROR_CODE_UNSPECIFIED && !c.slow
	c.mu.Unlock()
	if !failed {
		return
	}
	budget := int64(maxSkip)
	for budget > 0 {
		_, rd, err := c.conn.Reader(ctx)
		if err != nil {
			return
		}
		n, err := io.Copy(io.Discard, io.LimitReader(rd, budget))
		budget -= n
		if err != nil {
			return
		}
	}
	c.conn.CloseNow()
}

// readMessage reads one websocket message of at most the client packet limit.
func (s *Server) readMessage(ctx context.Context, c *session) ([]byte, error) {
	typ, rd, err := c.conn.Reader(ctx)
	if err != nil {
		return nil, err
	}
	if typ != websocket.MessageBinary {
		c.fail(pb.ErrorCode_ERROR_CODE_BAD_PACKET, "text message")
		return nil, errBadInput
	}
	max := clientPacketLimits.MaxPacketSize
	b, err := io.ReadAll(io.LimitReader(rd, int64(max)+1))
	if err != nil {
		return nil, err
	}
	s.metrics.bytesIn.Add(float64(len(b)))
	if len(b) > max {
		// Skip the rest of the message (up to a bound), so that the close
		// handshake reads frames, not the middle of a payload.
		_, _ = io.Copy(io.Discard, io.LimitReader(rd, maxSkip))
		c.fail(pb.ErrorCode_ERROR_CODE_TOO_LARGE, fmt.Sprintf("packet over %d bytes", max))
		return nil, errBadInput
	}
	return b, nil
}

// maxSkip bounds what the reader discards of an oversized message.
const maxSkip = 8 << 20

var errBadInput = errors.New("gameserver: bad input")

func (s *Server) readLoop(ctx context.Context, c *session) {
	defer c.cancel()
	rd := protocol.Reader{Limits: clientPacketLimits, From: protocol.ClientToServer}
	// Login: the first packet must hold NetMessageLogin, or be a mux Connect
	// (answered with ConnectAck) followed by the packet that does; both within
	// the login timeout.
	lctx, cancel := context.WithTimeout(ctx, s.cfg.LoginTimeout)
	b, err := s.readMessage(lctx, c)
	if err == nil && isConnect(b) {
		s.send(c, protocol.AppendHeader(nil, protocol.Header{Mux: protocol.MuxGame, Command: protocol.CommandConnectAck}), 0)
		b, err = s.readMessage(lctx, c)
	}
	cancel()
	if err != nil {
		if !errors.Is(err, errBadInput) {
			if lctx.Err() != nil && ctx.Err() == nil {
				c.fail(pb.ErrorCode_ERROR_CODE_NOT_LOGGED_IN, "no login in time")
			} else {
				c.fail(pb.ErrorCode_ERROR_CODE_UNSPECIFIED, "")
			}
		}
		return
	}
	login, ok := s.decodeLogin(c, &rd, b)
	if !ok {
		return
	}
	if !s.login(c, login) {
		return
	}
	for {
		b, err := s.readMessage(ctx, c)
		if err != nil {
			if !errors.Is(err, errBadInput) {
				var ce websocket.CloseError
				if errors.As(err, &ce) {
					c.fail(pb.ErrorCode_ERROR_CODE_UNSPECIFIED, "")
				} else if !c.closed() {
					c.fail(pb.ErrorCode_ERROR_CODE_UNSPECIFIED, "read_error")
				}
			}
			return
		}
		if !s.receive(c, &rd, b) || c.closed() {
			return
		}
	}
}

// isConnect reports whether packet b is a well-formed mux Connect.
func isConnect(b []byte) bool {
	h, err := protocol.ConsumeHeader(b)
	return err == nil && h.Command == protocol.CommandConnect && len(b) == protocol.HeaderSize
}

// muxCommand checks the mux command of a client packet (see protocol.Command):
// it reports false, ending the session, for a Disconnect (the client leaves:
// a normal close) and for a command a client may not send at this point.
func muxCommand(c *session, h protocol.Header, loggedIn bool) bool {
	switch h.Command {
	case protocol.CommandData:
		return true
	case protocol.CommandConnectWithData:
		if !loggedIn {
			return true
		}
	case protocol.CommandDisconnect:
		c.fail(pb.ErrorCode_ERROR_CODE_UNSPECIFIED, "")
		return false
	}
	when := "before the login"
	if loggedIn {
		when = "after the login"
	}
	c.fail(pb.ErrorCode_ERROR_CODE_BAD_PACKET, fmt.Sprintf("mux command %v %s", h.Command, when))
	return false
}

func (s *Server) decodeLogin(c *session, rd *protocol.Reader, b []byte) (*pb.NetMessageLogin, bool) {
	h, err := rd.Reset(b)
	if err != nil {
		c.fail(protocol.Code(err), err.Error())
		return nil, false
	}
	if !muxCommand(c, h, false) {
		return nil, false
	}
	if !rd.Next() {
		err := rd.Err()
		if err == nil {
			c.fail(pb.ErrorCode_ERROR_CODE_NOT_LOGGED_IN, "empty first packet")
		} else {
			c.fail(protocol.Code(err), err.Error())
		}
		return nil, false
	}
	s.metrics.messagesIn.Inc()
	if rd.ID() != 1 {
		c.fail(pb.ErrorCode_ERROR_CODE_NOT_LOGGED_IN, "first message is "+rd.ID().String()+", not a login")
		return nil, false
	}
	var m pb.NetMessageLogin
	if err := rd.UnmarshalTo(&m); err != nil {
		c.fail(protocol.Code(err), err.Error())
		return nil, false
	}
	// The login comes alone: what followed it would otherwise be read before
	// the session exists, or silently lost.
	if rd.Next() {
		c.fail(pb.ErrorCode_ERROR_CODE_BAD_PACKET, "the login packet holds "+rd.ID().String()+" after the login; send it alone")
		return nil, false
	}
	if err := rd.Err(); err != nil {
		c.fail(protocol.Code(err), err.Error())
		return nil, false
	}
	return &m, true
}

// login checks a login and hands the session to the loop. It runs on the
// connection's goroutine: the store and the secret's hash (argon2id, memory-hard,
// a few at a time) never hold up the frame loop.
func (s *Server) login(c *session, m *pb.NetMessageLogin) bool {
	if !protocol.Supported(m.GetProtocolVersion()) {
		c.fail(pb.ErrorCode_ERROR_CODE_PROTOCOL_VERSION, protocol.VersionError(m.GetProtocolVersion()))
		return false
	}
	if err := store.CheckName(m.GetName()); err != nil {
		c.fail(pb.ErrorCode_ERROR_CODE_BAD_LOGIN, err.Error())
		return false
	}
	if len(m.GetSecret()) > maxSecret {
		c.fail(pb.ErrorCode_ERROR_CODE_BAD_LOGIN, fmt.Sprintf("secret over %d bytes", maxSecret))
		return false
	}
	c.role = pb.Role_ROLE_PLAYER
	if m.DeityToken != nil {
		if !s.checkToken(m.GetDeityToken()) {
			c.fail(pb.ErrorCode_ERROR_CODE_NOT_AUTHORIZED, "bad deity token")
			return false
		}
		c.role = pb.Role_ROLE_DEITY
	}
	a, ok := s.account(c, m.GetName(), m.GetSecret())
	if !ok {
		return false
	}
	// The stored name: every form of the name (case, width) is one session.
	c.name, c.playerID = a.Name, a.ID
	if s.cl != nil {
		return s.clusterLogin(c, a)
	}
	if err := s.do(c.ctx, func() { s.join(c, a.Avatar) }); err != nil {
		c.fail(pb.ErrorCode_ERROR_CODE_SHUTDOWN, "server shutting down")
		return false
	}
	return !c.closed()
}

// account returns the login's account, created or claimed with the secret (a
// password) or an issued token (c.issued) when it has none, or checked against
// the secret it has. A failure ends the session.
func (s *Server) account(c *session, name, secret string) (store.Account, bool) {
	internal := func(err error) (store.Account, bool) {
		c.fail(pb.ErrorCode_ERROR_CODE_INTERNAL, "store: "+err.Error())
		return store.Account{}, false
	}
	if s.cfg.OpenLogin {
		a, _, err := s.cfg.Store.Claim(c.ctx, name, "")
		if err != nil {
			return internal(err)
		}
		return a, true
	}
	addr := c.addr
	if s.acct.limited(addr) {
		c.fail(pb.ErrorCode_ERROR_CODE_RATE_LIMITED, "too many failed logins from this address; wait")
		return store.Account{}, false
	}
	// Waiting for a hashing slot is bounded like the login itself.
	ctx, cancel := context.WithTimeout(c.ctx, s.cfg.LoginTimeout)
	defer cancel()
	a, err := s.cfg.Store.Account(ctx, name)
	if errors.Is(err, store.ErrNotFound) || err == nil && a.Secret == "" {
		// A new account, one from before accounts or from an open login: this
		// login claims it.
		var stored, issued string
		if secret == "" {
			issued, stored = newToken()
		} else if stored, err = s.acct.hashPassword(ctx, secret); err != nil {
			c.fail(pb.ErrorCode_ERROR_CODE_SERVER_FULL, err.Error())
			return store.Account{}, false
		}
		a, _, err = s.cfg.Store.Claim(ctx, name, stored)
		if err == nil {
			c.issued = issued
			s.log.Info("account claimed", "session", c.id, "name", a.Name, "password", secret != "")
			return a, true
		}
		if !errors.Is(err, store.ErrClaimed) {
			return internal(err)
		}
		// Another login claimed it first: check against its secret.
	} else if err != nil {
		return internal(err)
	}
	switch err := s.acct.verify(ctx, a.Secret, secret); {
	case errors.Is(err, errBadSecret):
		s.acct.failed(addr)
		s.log.Info("bad secret", "session", c.id, "name", a.Name, "remote", addr)
		c.fail(pb.ErrorCode_ERROR_CODE_BAD_SECRET, "wrong or missing secret for "+a.Name)
		return store.Account{}, false
	case errors.Is(err, errBusy):
		c.fail(pb.ErrorCode_ERROR_CODE_SERVER_FULL, err.Error())
		return store.Account{}, false
	case err != nil:
		return internal(fmt.Errorf("account %q: %w", a.Name, err))
	}
	return a, true
}

func (s *Server) checkToken(t string) bool {
	return subtle.ConstantTimeCompare([]byte(t), []byte(s.cfg.DeityToken)) == 1
}

// receive decodes a packet into the session's inbox.
func (s *Server) receive(c *session, rd *protocol.Reader, b []byte) bool {
	if node, _ := c.routeOf(); node != "" {
		return s.forward(c, node, b)
	}
	h, err := rd.Reset(b)
	if err != nil {
		c.fail(protocol.Code(err), err.Error())
		return false
	}
	if !muxCommand(c, h, true) {
		return false
	}
	var msgs []proto.Message
	for rd.Next() {
		info, _ := protocol.Lookup(rd.ID())
		if !info.AllowedFor(c.role) {
			c.fail(pb.ErrorCode_ERROR_CODE_NOT_AUTHORIZED, info.Name()+" needs the deity role")
			return false
		}
		m, err := rd.Message()
		if err != nil {
			c.fail(protocol.Code(err), err.Error())
			return false
		}
		msgs = append(msgs, m)
	}
	if err := rd.Err(); err != nil {
		c.fail(protocol.Code(err), err.Error())
		return false
	}
	s.metrics.messagesIn.Add(float64(len(msgs)))
	c.mu.Lock()
	over := len(c.inbox)+len(msgs) > s.cfg.InboxSize
	if !over {
		c.inbox = append(c.inbox, msgs...)
	}
	c.mu.Unlock()
	if over {
		c.fail(pb.ErrorCode_ERROR_CODE_FLOOD, fmt.Sprintf("more than %d messages in one frame", s.cfg.InboxSize))
		return false
	}
	return true
}

// writeLoop sends queued packets until the session ends, then closes the
// connection: with a NetMessageError and close code 4000+code, or at once for a
// slow consumer.
//
// A write that takes longer than WriteTimeout makes the session a slow consumer.
// One timer per connection, armed around each write, enforces that: a context
// with a deadline per write would cost a timer, a context and an AfterFunc
// registration in the websocket library for every packet.
func (s *Server) writeLoop(c *session) {
	wd := newWriteWatchdog(c)
	defer wd.stop()
	for {
		select {
		case p := <-c.out:
			if c.closed() {
				s.closeConn(c)
				return
			}
			wd.arm(s.cfg.WriteTimeout)
			err := c.conn.Write(context.Background(), websocket.MessageBinary, p)
			if !wd.disarm() {
				// The watchdog fired, closing the connection, even if the write
				// completed just before: the session ends as a slow consumer.
				err = errWriteTimeout
			}
			if err != nil {
				if !c.closed() {
					c.fail(pb.ErrorCode_ERROR_CODE_SLOW_CONSUMER, "write: "+err.Error())
				}
				c.conn.CloseNow()
				return
			}
			c.recycle(p)
		case <-c.ctx.Done():
			s.closeConn(c)
			return
		}
	}
}

var errWriteTimeout = errors.New("timed out")

// writeWatchdog aborts a session's write in progress when its time is up, by
// closing the connection (what the websocket library does itself when a write's
// context expires).
type writeWatchdog struct{ t *time.Timer }

func newWriteWatchdog(c *session) writeWatchdog {
	t := time.AfterFunc(time.Hour, func() { c.conn.CloseNow() })
	t.Stop()
	return writeWatchdog{t}
}

// arm starts the countdown of one write.
func (w writeWatchdog) arm(d time.Duration) { w.t.Reset(d) }

// disarm stops the countdown; it reports false when the timer had fired.
func (w writeWatchdog) disarm() bool { return w.t.Stop() }

func (w writeWatchdog) stop() { w.t.Stop() }

// closeConn closes an ended session's connection.
func (s *Server) closeConn(c *session) {
	c.mu.Lock()
	code, why, slow := c.code, c.why, c.slow
	c.mu.Unlock()
	if slow {
		c.conn.CloseNow()
		return
	}
	if code == pb.ErrorCode_ERROR_CODE_UNSPECIFIED {
		c.conn.Close(websocket.StatusNormalClosure, "")
		return
	}
	var pk protocol.Packet
	if pk.Append(&pb.NetMessageError{Code: code, Text: why}) == nil {
		ctx, cancel := context.WithTimeout(context.Background(), s.cfg.WriteTimeout)
		_ = c.conn.Write(ctx, websocket.MessageBinary, pk.Bytes())
		cancel()
	}
	c.conn.Close(websocket.StatusCode(CloseCodeBase+int(code)), closeReason(why))
}

// drain moves the session's inbox into the loop: inputs are queued for the frame
// they are stamped with; requests are answered in this frame's packet.
func (s *Server) drain(c *session) {
	if c.transit != nil {
		return // its messages wait for the answer of the node it is going to
	}
	c.takeDumped()
	c.mu.Lock()
	msgs := c.inbox
	c.inbox = nil
	c.mu.Unlock()
	capIn := s.cfg.MaxInputsPerFrame
	if !c.inStarted {
		c.inTokens, c.inStarted = 2*capIn, true
	} else {
		c.inTokens = min(2*capIn, c.inTokens+capIn)
	}
	for _, m := range msgs {
		in, ok := replication.DecodeInput(m)
		if !ok {
			if !s.request(c, m) {
				return
			}
			continue
		}
		if !c.view.InSequence(in.Seq) {
			c.replies = append(c.replies, &pb.NetMessageError{Code: pb.ErrorCode_ERROR_CODE_BAD_PACKET,
				Text: fmt.Sprintf("input %d out of sequence", in.Seq), InputSeq: in.Seq})
			continue
		}
		if c.inTokens == 0 {
			if !s.dropInput(c) {
				return
			}
			continue
		}
		c.inTokens--
		if c.view.Pending() >= s.cfg.InboxSize {
			c.fail(pb.ErrorCode_ERROR_CODE_FLOOD, "too many pending inputs")
			return
		}
		if err := c.view.Queue(in, c.reg.game.Frame()+1, s.cfg.MaxInputLead); err != nil {
			c.fail(pb.ErrorCode_ERROR_CODE_INTERNAL, err.Error()) // InSequence said yes
			return
		}
	}
}

// request answers a message that is not an input; it reports false when the
// session failed.
func (s *Server) request(c *session, m proto.Message) bool {
	switch m := m.(type) {
	case *pb.NetMessagePing:
		c.replies = append(c.replies, &pb.NetMessagePong{ClientTimeMicros: m.GetClientTimeMicros(),
			ClientFrame: m.GetClientFrame(), ServerFrame: c.reg.game.Frame()})
	case *pb.NetMessageXDumpRequest:
		s.xdumpRequest(c, m)
	case *pb.NetMessageDebugCommand:
		s.debugCommand(c, m)
	case *pb.NetMessageLiveEditRequest:
		c.replies = append(c.replies, s.liveEdit(c, m))
	case *pb.NetMessageResyncRequest:
		s.resync(c, m)
	default:
		id, _ := protocol.IDOf(m)
		c.fail(pb.ErrorCode_ERROR_CODE_BAD_PACKET, fmt.Sprintf("%v (id %d) is not taken after the login", id, id))
	}
	return !c.closed()
}

// dropInput drops an input over the session's rate (in drain) and counts it; a
// session that has inputs dropped in InputFloodSeconds consecutive seconds is
// disconnected as a flood, and dropInput returns false.
func (s *Server) dropInput(c *session) bool {
	s.metrics.inputsDropped.WithLabelValues("rate").Inc()
	perSec := max(1, uint64(time.Second/s.cfg.Period))
	sec := s.loopFrame/perSec + 1
	switch c.inDropSec {
	case sec:
		return true
	case sec - 1:
		c.inFloodSecs++
	default:
		c.inFloodSecs = 1
	}
	c.inDropSec = sec
	if c.inFloodSecs >= s.cfg.InputFloodSeconds {
		c.fail(pb.ErrorCode_ERROR_CODE_FLOOD, fmt.Sprintf("more than %d inputs a frame for %d s",
			s.cfg.MaxInputsPerFrame, s.cfg.InputFloodSeconds))
		return false
	}
	return true
}

// applyInputs enqueues the session's inputs due at frame f, in sequence order.
func (s *Server) applyInputs(c *session, f uint64) {
	c.view.Apply(c.reg.game, c.avatar, f, func(in *replication.Input, err error) {
		if err != nil {
			c.refuseInput(in.Seq, err)
		}
	})
}

// reportRejected tells the session which of the inputs applyInputs gave the
// region's last step the game rejected, and why.
func (s *Server) reportRejected(c *session) {
	c.view.Rejected(c.reg.game, c.refuseInput)
}

// refuseInput tells the client that its input seq was not carried out, and why:
// a non-fatal error in the next frame packet.
func (c *session) refuseInput(seq uint32, err error) {
	c.replies = append(c.replies, &pb.NetMessageError{Code: pb.ErrorCode_ERROR_CODE_BAD_PACKET,
		Text: fmt.Sprintf("input %d: %v", seq, err), InputSeq: seq})
}

// maxCloseReason is the longest close reason the server sends: a close frame is
// a control frame of at most 125 bytes, two of them the code.
const maxCloseReason = 120

// closeReason cuts why to maxCloseReason bytes at a character boundary: a
// close reason must be valid UTF-8, and a client that checks it would fail the
// connection (1007) instead of reading the server's code.
func closeReason(why string) string {
	if len(why) <= maxCloseReason {
		return why
	}
	n := maxCloseReason
	for n > 0 && !utf8.RuneStart(why[n]) {
		n--
	}
	return strings.ToValidUTF8(why[:n], "")
}
