// Package clienttest runs a scripted Twinframe server (shared/replication/replicationtest)
// behind a real websocket on a loopback httptest server, for tests of the client
// and of anything built on it, until they run against the real server.
//
// The server speaks the protocol of docs/ARCHITECTURE.md §5: the first client message must
// be NetMessageLogin; it answers with the login result and the region change in
// one packet, then sends every session one packet per frame. It keeps accounts
// as the real server does, in memory: a name's first login sets its password
// (the login's secret) or is issued a token; later logins under the name must
// present it, else the server sends ERROR_CODE_BAD_SECRET and closes.
package clienttest

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/twinframe/twinframe/client/internal/wsconn"
	"github.com/twinframe/twinframe/client/netsim"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replication/replicationtest"
	"google.golang.org/protobuf/proto"
)

// Server is a scripted server. Sessions come over a websocket (Listen) or an
// in-memory pipe (Connect).
type Server struct {
	URL  string // ws://127.0.0.1:port/ws after Listen
	HTTP *httptest.Server

	mu       sync.Mutex // guards Sim and sessions
	Sim      *replicationtest.Server
	sessions []*session
	spawns   int
	secrets  map[string]string // account name → password or issued token
	wg       sync.WaitGroup
	closed   bool
}

type session struct {
	conn netsim.Conn
	c    *replicationtest.Client
	pkt  protocol.Packet
	in   int64
	out  int64
	dead bool
}

// NewServer returns a server of a replicationtest game built with opt.
func NewServer(opt *replicationtest.Options) (*Server, error) {
	sim, err := replicationtest.NewServer(opt)
	if err != nil {
		return nil, err
	}
	return &Server{Sim: sim, secrets: map[string]string{}}, nil
}

// Listen starts the websocket endpoint on a loopback port and sets URL.
func (s *Server) Listen() {
	mux := http.NewServeMux()
	mux.HandleFunc("/ws", func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		ws.SetReadLimit(64 << 10)
		s.Serve(&wsconn.Conn{WS: ws, Abrupt: true})
	})
	s.HTTP = httptest.NewServer(mux)
	s.URL = "ws" + s.HTTP.URL[len("http"):] + "/ws"
}

// Connect returns the client end of an in-memory connection whose server end a
// new goroutine serves.
func (s *Server) Connect() netsim.Conn {
	a, b := netsim.Pipe()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.Serve(b)
	}()
	return a
}

// Close disconnects every session and stops the HTTP server, if any.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	for _, ss := range s.sessions {
		ss.conn.Close()
	}
	s.mu.Unlock()
	if s.HTTP != nil {
		s.HTTP.Close()
	}
	s.wg.Wait()
}

// Serve serves one session over conn until it ends.
func (s *Server) Serve(conn netsim.Conn) {
	s.wg.Add(1)
	defer s.wg.Done()
	ctx := context.Background()
	rd := protocol.Reader{Limits: protocol.Limits{MaxPacketSize: 64 << 10, MaxMessages: 64}, From: protocol.ClientToServer}
	var ss *session
	defer func() {
		conn.Close()
		if ss != nil {
			s.mu.Lock()
			ss.dead = true
			s.Sim.Logout(ss.c)
			s.sessions = slices.DeleteFunc(s.sessions, func(x *session) bool { return x == ss })
			s.mu.Unlock()
		}
	}()
	for {
		b, err := conn.Read(ctx)
		if err != nil {
			return
		}
		if _, err := rd.Reset(b); err != nil {
			return
		}
		for rd.Next() {
			m, err := rd.Message()
			if err != nil {
				return
			}
			if ss == nil {
				if ss, err = s.login(ctx, conn, m); err != nil {
					return
				}
				continue
			}
			s.mu.Lock()
			ss.in += int64(len(b))
			err = s.Sim.Receive(ss.c, m)
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
		if rd.Err() != nil {
			return
		}
	}
}

func (s *Server) login(ctx context.Context, conn netsim.Conn, m proto.Message) (*session, error) {
	login, ok := m.(*pb.NetMessageLogin)
	if !ok {
		return nil, fmt.Errorf("clienttest: %T before login", m)
	}
	if login.GetProtocolVersion() != protocol.Version {
		return nil, errors.New("clienttest: protocol version")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("clienttest: closed")
	}
	name, secret := login.GetName(), login.GetSecret()
	want, known := s.secrets[name]
	if known && subtle.ConstantTimeCompare([]byte(secret), []byte(want)) != 1 {
		ss := &session{conn: conn}
		_ = ss.send(ctx, []proto.Message{&pb.NetMessageError{Code: pb.ErrorCode_ERROR_CODE_BAD_SECRET, Text: "wrong or missing secret for " + name}})
		return nil, errors.New("clienttest: bad secret")
	}
	c, msgs, err := s.Sim.Login(name, s.spawns)
	if err != nil {
		return nil, err
	}
	s.spawns++
	if !known {
		if secret == "" {
			var b [32]byte
			_, _ = rand.Read(b[:])
			secret = base64.RawURLEncoding.EncodeToString(b[:])
			for _, m := range msgs {
				if lr, ok := m.(*pb.NetMessageLoginResult); ok {
					lr.IssuedToken = secret
				}
			}
		}
		s.secrets[name] = secret
	}
	ss := &session{conn: conn, c: c}
	if err := ss.send(ctx, msgs); err != nil {
		return nil, err
	}
	s.sessions = append(s.sessions, ss)
	return ss, nil
}

func (ss *session) send(ctx context.Context, msgs []proto.Message) error {
	ss.pkt.Reset(protocol.MuxGame, protocol.CommandData)
	for _, m := range msgs {
		if err := ss.pkt.Append(m); err != nil {
			return err
		}
	}
	return ss.write(ctx, ss.pkt.Bytes())
}

// write sends one packet as it is.
func (ss *session) write(ctx context.Context, b []byte) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	ss.out += int64(len(b))
	return ss.conn.Write(ctx, b)
}

// Step runs one frame and sends each session its packet. A session that cannot
// take its packet within 2 s is disconnected.
func (s *Server) Step() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.Sim.Step(); err != nil {
		return err
	}
	for _, ss := range s.sessions {
		if ss.dead {
			continue
		}
		// The packets as the scripted server built them: a resync's answer
		// goes on its own before the frame's, as the real server sends it.
		pks, err := s.Sim.FramePackets(ss.c)
		if err != nil {
			return err
		}
		for _, b := range pks {
			if err := ss.write(context.Background(), b); err != nil {
				ss.dead = true
				ss.conn.Close()
				break
			}
		}
	}
	return nil
}

// Run steps the server every period until ctx ends (20 Hz: replica.FrameDuration).
func (s *Server) Run(ctx context.Context, period time.Duration) error {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if err := s.Step(); err != nil {
				return err
			}
		}
	}
}

// Kick disconnects every session; the server keeps listening (clients
// reconnect, as after a network failure).
func (s *Server) Kick() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ss := range s.sessions {
		ss.conn.Close()
	}
}

// Sessions returns the number of logged-in sessions.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}

// Traffic returns the bytes received from and sent to the sessions still open.
func (s *Server) Traffic() (in, out int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ss := range s.sessions {
		in += ss.in
		out += ss.out
	}
	return in, out
}

// Do runs fn with the scripted server under its lock.
func (s *Server) Do(fn func(sim *replicationtest.Server)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(s.Sim)
}
