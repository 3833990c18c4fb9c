package gameserver

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/coder/websocket"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"google.golang.org/protobuf/proto"
)

// rawConn is a websocket client that sends and reads packets as bytes, for the
// mux layer the test client's helpers hide.
type rawConn struct {
	t      *testing.T
	conn   *websocket.Conn
	logins int // login results closed read
}

func dialRaw(t *testing.T, url string) *rawConn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	conn.SetReadLimit(protocol.HeaderSize + protocol.MaxBodySize)
	t.Cleanup(func() { conn.CloseNow() })
	return &rawConn{t: t, conn: conn}
}

func (c *rawConn) send(b []byte) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := c.conn.Write(ctx, websocket.MessageBinary, b); err != nil {
		c.t.Fatal(err)
	}
}

// next returns the next packet the server sends.
func (c *rawConn) next() []byte {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	_, b, err := c.conn.Read(ctx)
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	return b
}

// closed reads until the server closes the connection and returns the close
// code and the errors the server sent before it; it counts the login results.
func (c *rawConn) closed() (websocket.StatusCode, []*pb.NetMessageError) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	var errs []*pb.NetMessageError
	var rd protocol.Reader
	for {
		_, b, err := c.conn.Read(ctx)
		if err != nil {
			if ctx.Err() != nil {
				c.t.Fatalf("connection not closed in %v", wait)
			}
			return websocket.CloseStatus(err), errs
		}
		_, msgs, err := rd.ReadAll(b)
		if err != nil {
			c.t.Fatalf("server packet: %v", err)
		}
		for _, m := range msgs {
			switch m := m.(type) {
			case *pb.NetMessageError:
				errs = append(errs, m)
			case *pb.NetMessageLoginResult:
				c.logins++
			}
		}
	}
}

// muxPacket is a packet on mux with command cmd and msgs in its body.
func muxPacket(t *testing.T, mux uint16, cmd protocol.Command, msgs ...proto.Message) []byte {
	t.Helper()
	var body []byte
	for _, m := range msgs {
		var err error
		if body, err = protocol.AppendMessage(body, m); err != nil {
			t.Fatal(err)
		}
	}
	return append(protocol.AppendHeader(nil, protocol.Header{Mux: mux, Size: len(body), Command: cmd}), body...)
}

// firstMessage is the first message of server packet b.
func firstMessage(t *testing.T, b []byte) proto.Message {
	t.Helper()
	var rd protocol.Reader
	_, msgs, err := rd.ReadAll(b)
	if err != nil || len(msgs) == 0 {
		t.Fatalf("server packet % x: %d messages, %v", b[:min(len(b), 16)], len(msgs), err)
	}
	return msgs[0]
}

// TestMuxCommands: what the server does with each mux command and mux id a
// client sends (protocol.Command): Connect is answered with ConnectAck and the
// login follows; a login in Data or ConnectWithData gets no ConnectAck;
// Disconnect is a normal close; a command out of place or a mux id other than
// the game's ends the session as a bad packet.
func TestMuxCommands(t *testing.T) {
	checkLeaks(t)
	s := startServer(t, "", nil)
	game, data := protocol.MuxGame, protocol.CommandData
	login := func(name string) *pb.NetMessageLogin {
		return &pb.NetMessageLogin{Name: name, ProtocolVersion: protocol.Version}
	}
	cases := []struct {
		name    string
		connect bool                // open with a Connect and expect a ConnectAck
		first   func(string) []byte // the packet with the login (nil: none)
		then    []byte              // sent after the login result
		code    websocket.StatusCode
		text    string // in the NetMessageError before the close
	}{
		{name: "login in Data", first: func(n string) []byte { return muxPacket(t, game, data, login(n)) }, code: -1},
		{name: "Connect, then the login", connect: true,
			first: func(n string) []byte { return muxPacket(t, game, data, login(n)) }, code: -1},
		{name: "login in ConnectWithData",
			first: func(n string) []byte { return muxPacket(t, game, protocol.CommandConnectWithData, login(n)) }, code: -1},
		{name: "Disconnect after the login", first: func(n string) []byte { return muxPacket(t, game, data, login(n)) },
			then: muxPacket(t, game, protocol.CommandDisconnect), code: websocket.StatusNormalClosure},
		{name: "Disconnect first", first: func(string) []byte { return muxPacket(t, game, protocol.CommandDisconnect) },
			code: websocket.StatusNormalClosure},
		{name: "Connect after the login", first: func(n string) []byte { return muxPacket(t, game, data, login(n)) },
			then: muxPacket(t, game, protocol.CommandConnect), code: 4001, text: "mux command Connect after the login"},
		{name: "ConnectWithData after the login", first: func(n string) []byte { return muxPacket(t, game, data, login(n)) },
			then: muxPacket(t, game, protocol.CommandConnectWithData, &pb.NetMessagePing{}), code: 4001,
			text: "mux command ConnectWithData after the login"},
		{name: "Connect twice", connect: true, first: func(string) []byte { return muxPacket(t, game, protocol.CommandConnect) },
			code: 4001, text: "mux command Connect before the login"},
		{name: "ConnectAck from the client", first: func(string) []byte { return muxPacket(t, game, protocol.CommandConnectAck) },
			code: 4001, text: "mux command ConnectAck before the login"},
		{name: "mux id 2 with the login", first: func(n string) []byte { return muxPacket(t, 2, data, login(n)) },
			code: 4001, text: "unknown mux id"},
		{name: "mux id 0 after the login", first: func(n string) []byte { return muxPacket(t, game, data, login(n)) },
			then: muxPacket(t, 0, data, &pb.NetMessagePing{}), code: 4001, text: "unknown mux id"},
		{name: "a message after the login in its packet", first: func(n string) []byte { return muxPacket(t, game, data, login(n), &pb.NetMessagePing{}) },
			code: 4001, text: "the login packet holds NetMessagePing after the login; send it alone"},
		{name: "a second login", first: func(n string) []byte { return muxPacket(t, game, data, login(n)) },
			then: muxPacket(t, game, data, login("again")), code: 4001, text: "NetMessageLogin (id 1) is not taken after the login"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := dialRaw(t, s.url)
			name := fmt.Sprintf("mux%d", i)
			if tc.connect {
				c.send(muxPacket(t, game, protocol.CommandConnect))
				ack := protocol.AppendHeader(nil, protocol.Header{Mux: game, Command: protocol.CommandConnectAck})
				if got := c.next(); !bytes.Equal(got, ack) {
					t.Fatalf("answer to Connect % x, want ConnectAck % x", got, ack)
				}
			}
			c.send(tc.first(name))
			if tc.code == -1 || tc.then != nil {
				// The login's answer is the next packet: no ConnectAck before it.
				if m := firstMessage(t, c.next()); proto.MessageName(m) != "twinframe.v1.NetMessageLoginResult" {
					t.Fatalf("answer to the login starts with %v", proto.MessageName(m))
				}
			}
			if tc.then != nil {
				c.send(tc.then)
			}
			if tc.code == -1 {
				return
			}
			code, errs := c.closed()
			if code != tc.code {
				t.Errorf("closed with %d, want %d", code, tc.code)
			}
			switch {
			case tc.text == "" && len(errs) > 0:
				t.Errorf("a normal close after errors %v", errs)
			case tc.text != "" && (len(errs) == 0 || errs[len(errs)-1].GetCode() != pb.ErrorCode_ERROR_CODE_BAD_PACKET ||
				!strings.Contains(errs[len(errs)-1].GetText(), tc.text)):
				t.Errorf("errors before the close %v, want a bad packet saying %q", errs, tc.text)
			}
		})
	}
}

// TestLoginProtocolVersion: the server takes a login of every version it
// supports and refuses any other with ERROR_CODE_PROTOCOL_VERSION and close
// code 4008, naming the client's version and the server's.
func TestLoginProtocolVersion(t *testing.T) {
	checkLeaks(t)
	s := startServer(t, "", nil)
	versions := []uint32{0, protocol.MinVersion - 1, protocol.MinVersion, protocol.Version, protocol.Version + 1, 1<<32 - 1}
	for i, v := range versions {
		t.Run(strconv.Itoa(int(v)), func(t *testing.T) {
			c := dialRaw(t, s.url)
			c.send(muxPacket(t, protocol.MuxGame, protocol.CommandData,
				&pb.NetMessageLogin{Name: fmt.Sprintf("v%d", i), ProtocolVersion: v}))
			if v >= protocol.MinVersion && v <= protocol.Version {
				m, ok := firstMessage(t, c.next()).(*pb.NetMessageLoginResult)
				if !ok || m.GetProtocolVersion() != protocol.Version {
					t.Fatalf("version %d: answer %v, want a login result of version %d", v, m, protocol.Version)
				}
				return
			}
			code, errs := c.closed()
			want := websocket.StatusCode(CloseCodeBase + int(pb.ErrorCode_ERROR_CODE_PROTOCOL_VERSION))
			if code != want || len(errs) != 1 || errs[0].GetCode() != pb.ErrorCode_ERROR_CODE_PROTOCOL_VERSION || c.logins != 0 {
				t.Fatalf("version %d: closed with %d after %v and %d login results, want %d after a protocol version error and no login result",
					v, code, errs, c.logins, want)
			}
			text := errs[0].GetText()
			for _, n := range []uint32{v, protocol.Version} {
				if !strings.Contains(text, strconv.FormatUint(uint64(n), 10)) {
					t.Errorf("version %d: %q does not name version %d", v, text, n)
				}
			}
			t.Logf("%q", text)
		})
	}
}

// TestPacketShapes: the login answer and the resync answer are each a packet of
// exactly NetMessageLoginResult and NetMessageRegionChange, with no
// NetMessageServerFrame; every other packet starts with a NetMessageServerFrame
// (twinframe.proto says so to a client written from it).
func TestPacketShapes(t *testing.T) {
	checkLeaks(t)
	s := startServer(t, "", nil)
	c := dial(t, s.url, dialOpt{})
	c.login("shapes", nil)
	answer := func(p []proto.Message) bool {
		t.Helper()
		if len(p) > 0 {
			if _, ok := p[0].(*pb.NetMessageLoginResult); ok {
				_, region := p[len(p)-1].(*pb.NetMessageRegionChange)
				if len(p) != 2 || !region {
					t.Fatalf("answer packet %v, want a login result and a region change", names(p))
				}
				return true
			}
		}
		if len(p) == 0 {
			t.Fatal("an empty packet")
		}
		if _, ok := p[0].(*pb.NetMessageServerFrame); !ok {
			t.Fatalf("packet %v does not start with a server frame", names(p))
		}
		return false
	}
	if !answer(c.next(wait)) {
		t.Fatal("the first packet is not the login answer")
	}
	for range 5 {
		if answer(c.next(wait)) {
			t.Fatal("a second login answer without a resync request")
		}
	}
	if err := c.send(&pb.NetMessageResyncRequest{Reason: pb.ResyncReason_RESYNC_REASON_OTHER}); err != nil {
		t.Fatal(err)
	}
	for n := 0; !answer(c.next(wait)); n++ {
		if n == 100 {
			t.Fatal("no resync answer in 100 packets")
		}
	}
	for range 5 {
		answer(c.next(wait))
	}
}

func names(p []proto.Message) []string {
	var out []string
	for _, m := range p {
		out = append(out, string(proto.MessageName(m).Name()))
	}
	return out
}

// TestInputSequence: input numbers start at 1 and each must be above the last
// (gaps allowed); 0 or a number not above the last is dropped with a non-fatal
// ERROR_CODE_BAD_PACKET, as twinframe.proto's input_seq says.
func TestInputSequence(t *testing.T) {
	checkLeaks(t)
	s := startServer(t, "", nil)
	c := dial(t, s.url, dialOpt{})
	c.login("seq", nil)
	steps := []struct {
		seq     uint32
		ack     uint32 // last_input_seq once the input is handled
		refused bool
	}{
		{0, 0, true},
		{1, 1, false},
		{1, 1, true},
		{4, 4, false}, // a gap
		{3, 4, true},
		{5, 5, false},
	}
	for _, st := range steps {
		if err := c.send(&pb.NetMessageStop{InputSeq: st.seq}); err != nil {
			t.Fatal(err)
		}
		var refusal *pb.NetMessageError
		for n := 0; ; n++ {
			if n == 200 {
				t.Fatalf("input %d: no acknowledgement of %d and no refusal in 200 packets", st.seq, st.ack)
			}
			var ack uint32
			acked := false
			for _, m := range c.next(wait) {
				switch m := m.(type) {
				case *pb.NetMessageServerFrame:
					ack, acked = m.GetLastInputSeq(), true
				case *pb.NetMessageError:
					refusal = m
				}
			}
			if refusal != nil || acked && ack == st.ack && !st.refused {
				if acked && ack != st.ack {
					t.Fatalf("input %d: acknowledged %d, want %d", st.seq, ack, st.ack)
				}
				break
			}
		}
		want := fmt.Sprintf("input %d out of sequence", st.seq)
		switch {
		case st.refused && (refusal == nil || refusal.GetCode() != pb.ErrorCode_ERROR_CODE_BAD_PACKET || refusal.GetText() != want || refusal.GetInputSeq() != st.seq):
			t.Fatalf("input %d: refusal %v, want a bad packet %q", st.seq, refusal, want)
		case !st.refused && refusal != nil:
			t.Fatalf("input %d: refused: %v", st.seq, refusal)
		}
	}
}

// TestRejectedInputReported: an input the game rejects in its step (the second of
// two fires in one frame meets the cooldown) is acknowledged, and the client is
// told which input and why by a non-fatal error carrying its input_seq.
func TestRejectedInputReported(t *testing.T) {
	checkLeaks(t)
	s := startServer(t, "", nil)
	c := dial(t, s.url, dialOpt{})
	c.login("rejected", nil)
	r := newReceived()
	for !r.rep.Ready() || r.frames < 2 {
		r.apply(t, c.next(wait))
	}
	own, ok := r.rep.State(r.rep.Player())
	if !ok {
		t.Fatal("the client holds no avatar")
	}
	at := own.Position
	target := &pb.NetStructPoint3{X: at[0] + 6, Y: at[1] + 1}
	stamp := r.rep.ServerFrame() + 2
	if err := c.send(&pb.NetMessageFire{InputSeq: 1, ClientFrame: stamp, Target: target},
		&pb.NetMessageFire{InputSeq: 2, ClientFrame: stamp, Target: target}); err != nil {
		t.Fatal(err)
	}
	var errs []*pb.NetMessageError
	for n := 0; ; n++ {
		if n == 200 {
			t.Fatalf("no acknowledgement of input 2 in 200 packets (errors %v)", errs)
		}
		acked := false
		for _, m := range c.next(wait) {
			switch m := m.(type) {
			case *pb.NetMessageServerFrame:
				acked = m.GetLastInputSeq() >= 2
			case *pb.NetMessageError:
				errs = append(errs, m)
			}
		}
		if acked {
			break
		}
	}
	if len(errs) != 1 || errs[0].GetInputSeq() != 2 || errs[0].GetCode() != pb.ErrorCode_ERROR_CODE_BAD_PACKET ||
		!strings.HasPrefix(errs[0].GetText(), "input 2: ") || !strings.Contains(errs[0].GetText(), "cooldown") {
		t.Fatalf("errors %v; want one for input 2, the cooldown", errs)
	}
}

// TestCloseReason: a close reason fits a control frame and stays valid UTF-8,
// cut at a character boundary, so a client that checks it reads the code.
func TestCloseReason(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 130)
	for _, tc := range []struct{ name, why, want string }{
		{"short", "no login in time", "no login in time"},
		{"exactly the cap", long[:maxCloseReason], long[:maxCloseReason]},
		{"ASCII over the cap", long, long[:maxCloseReason]},
		{"two-byte characters across the cap", "x" + strings.Repeat("é", 70), "x" + strings.Repeat("é", 59)},
		{"a four-byte character across the cap", strings.Repeat("x", 118) + "😀", strings.Repeat("x", 118)},
		{"invalid bytes dropped", "bad \xff name" + long, ("bad  name" + long)[:maxCloseReason-1]},
	} {
		got := closeReason(tc.why)
		if got != tc.want || len(got) > maxCloseReason || !utf8.ValidString(got) {
			t.Errorf("%s: %q (%d bytes), want %q", tc.name, got, len(got), tc.want)
		}
	}
}
