package gameserver

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"google.golang.org/protobuf/proto"
)

// request sends one GET with the Host header host (the URL's when empty) and the
// given headers, from a fresh connection.
func request(t *testing.T, url, host string, hdr ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: wait}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// TestHostCheck: a request whose Host is not a name of the server (a page of
// another site whose name resolves here: DNS rebinding) gets 421 on every route
// but /healthz.
func TestHostCheck(t *testing.T) {
	t.Parallel()
	def := startServer(t, "", nil)
	custom := startServer(t, "", func(c *Config) { c.AllowHosts = []string{"game.example.com", "*.example.org"} })
	_, port, _ := net.SplitHostPort(def.ts.Listener.Addr().String())
	for _, tc := range []struct {
		srv  *testServer
		host string
		path string
		want int
	}{
		{def, "127.0.0.1:" + port, "/", 200},
		{def, "localhost:" + port, "/", 200},
		{def, "LOCALHOST.", "/", 200},
		{def, "[::1]:" + port, "/", 200},
		{def, "evil.example:" + port, "/", http.StatusMisdirectedRequest},
		{def, "evil.example:" + port, "/status", http.StatusMisdirectedRequest},
		{def, "evil.example:" + port, "/ws", http.StatusMisdirectedRequest},
		{def, "evil.example:" + port, "/xdump?q=entity+*", http.StatusMisdirectedRequest},
		{def, "evil.example:" + port, "/metrics", http.StatusMisdirectedRequest},
		{def, "evil.example:" + port, "/debug/pprof/", http.StatusMisdirectedRequest},
		{def, "evil.example:" + port, "/healthz", 200},
		{def, "127.0.0.1.evil.example", "/", http.StatusMisdirectedRequest},
		{custom, "game.example.com", "/", 200},
		{custom, "a.b.example.org:443", "/", 200},
		{custom, "example.org", "/", http.StatusMisdirectedRequest},
		{custom, "127.0.0.1:" + port, "/", http.StatusMisdirectedRequest},
	} {
		if code, body := request(t, tc.srv.ts.URL+tc.path, tc.host); code != tc.want {
			t.Errorf("Host %s %s: %d, want %d (%.80q)", tc.host, tc.path, code, tc.want, body)
		}
	}
}

// loggedIn waits for c's login result.
func loggedIn(t *testing.T, c *client) *received {
	t.Helper()
	r := newReceived()
	for r.loginResult == nil {
		r.apply(t, c.next(wait))
	}
	return r
}

// TestStatusAndTokens: without the deity token the status page shows counts,
// not names or positions; the token is accepted as a bearer header, a cookie or
// ?token=; a set MetricsToken guards /metrics.
func TestStatusAndTokens(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", func(c *Config) { c.MetricsToken = "metrics-secret" })
	c := dial(t, s.url, dialOpt{})
	c.login("carol", nil)
	loggedIn(t, c)
	base := s.ts.URL
	code, body := request(t, base+"/", "")
	if code != 200 || strings.Contains(body, "carol") || !strings.Contains(body, "Sessions (1)") || !strings.Contains(body, "downtown") {
		t.Errorf("status page without the token: %d\n%s", code, body)
	}
	for name, hdr := range map[string][]string{
		"bearer": {"Authorization", "Bearer " + testToken},
		"cookie": {"Cookie", TokenCookie + "=" + testToken},
	} {
		if code, body := request(t, base+"/", "", hdr...); code != 200 || !strings.Contains(body, "carol") {
			t.Errorf("status page with the token (%s): %d\n%s", name, code, body)
		}
		if _, body := request(t, base+"/xdump?q=meta+entity", "", hdr...); !strings.Contains(body, `"seed"`) {
			t.Errorf("xdump with the token (%s): no deity view", name)
		}
	}
	if code, _ := request(t, base+"/?token=wrong", ""); code != http.StatusUnauthorized {
		t.Errorf("status page with a bad token: %d", code)
	}
	for _, tc := range []struct {
		name string
		hdr  []string
		want int
	}{
		{"none", nil, http.StatusUnauthorized},
		{"wrong", []string{"Authorization", "Bearer nope"}, http.StatusUnauthorized},
		{"metrics token", []string{"Authorization", "Bearer metrics-secret"}, 200},
		{"metrics cookie", []string{"Cookie", TokenCookie + "=metrics-secret"}, 200},
		{"deity token", []string{"Authorization", "Bearer " + testToken}, 200},
	} {
		code, body := request(t, base+"/metrics", "", tc.hdr...)
		if code != tc.want || code == 200 && !strings.Contains(body, "twinframe_sessions 1") {
			t.Errorf("metrics, %s: %d, want %d", tc.name, code, tc.want)
		}
	}
}

// TestServerFull: with MaxPlayers players in the game one more is refused with
// ERROR_CODE_SERVER_FULL before any avatar is spawned; the deity and a player
// taking over its own session still get in, and a leaving player makes room.
func TestServerFull(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", func(c *Config) { c.MaxPlayers = 2 })
	ann := dial(t, s.url, dialOpt{})
	ann.login("ann", nil)
	annToken := loggedIn(t, ann).loginResult.IssuedToken
	ben := dial(t, s.url, dialOpt{})
	ben.login("ben", nil)
	loggedIn(t, ben)

	cat := dial(t, s.url, dialOpt{})
	cat.login("cat", nil)
	code, msg := cat.closedWith(wait)
	if code != CloseCodeBase+websocket.StatusCode(pb.ErrorCode_ERROR_CODE_SERVER_FULL) ||
		msg == nil || msg.Code != pb.ErrorCode_ERROR_CODE_SERVER_FULL || !strings.Contains(msg.Text, "server full") {
		t.Fatalf("third player: close %d, %v", code, msg)
	}
	tok := testToken
	god := dial(t, s.url, dialOpt{})
	god.login("god", &tok)
	loggedIn(t, god)
	ann2 := dial(t, s.url, dialOpt{})
	ann2.loginSecret("ann", annToken, nil)
	loggedIn(t, ann2)

	ben.close()
	// Ben's session ends when its reader sees the close; then there is room.
	for deadline := time.Now().Add(wait); ; {
		gone := false
		s.inLoop(t, func() { gone = s.byName["ben"] == nil || s.byName["ben"].closed() })
		if gone {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("ben's session never ended")
		}
		time.Sleep(10 * time.Millisecond)
	}
	dan := dial(t, s.url, dialOpt{})
	dan.login("dan", nil)
	loggedIn(t, dan)
}

// jumpClock is the wall clock plus jumps a test makes.
type jumpClock struct {
	start time.Time
	off   atomic.Int64
}

func (c *jumpClock) Now() time.Duration { return time.Since(c.start) + time.Duration(c.off.Load()) }
func (c *jumpClock) Sleep(d time.Duration) {
	if d <= 0 {
		runtime.Gosched()
		return
	}
	time.Sleep(d)
}
func (c *jumpClock) jump(d time.Duration) { c.off.Add(int64(d)) }

// TestIdleLogout: a player who sends no input for IdleTimeout of the loop's
// clock is logged out with ERROR_CODE_IDLE; one who sends inputs and the deity
// stay.
func TestIdleLogout(t *testing.T) {
	t.Parallel()
	clk := &jumpClock{start: time.Now()}
	s := startServer(t, "", func(c *Config) { c.Clock, c.IdleTimeout = clk, time.Minute })
	idler := dial(t, s.url, dialOpt{})
	idler.login("idler", nil)
	loggedIn(t, idler)
	mover := dial(t, s.url, dialOpt{})
	mover.login("mover", nil)
	r := loggedIn(t, mover)
	tok := testToken
	god := dial(t, s.url, dialOpt{})
	god.login("god", &tok)
	g := loggedIn(t, god)

	// Three jumps of 40 s: 120 s without input for the idler; the mover's
	// input before each jump keeps it under a minute.
	for range 3 {
		seq := mover.nextSeq()
		if err := mover.send(&pb.NetMessageStop{InputSeq: seq}); err != nil {
			t.Fatal(err)
		}
		for r.ack < seq {
			r.apply(t, mover.next(wait))
		}
		clk.jump(40 * time.Second)
		for f := r.frames + 3; r.frames < f; {
			r.apply(t, mover.next(wait))
		}
	}
	code, msg := idler.closedWith(wait)
	if code != CloseCodeBase+websocket.StatusCode(pb.ErrorCode_ERROR_CODE_IDLE) || msg == nil || msg.Code != pb.ErrorCode_ERROR_CODE_IDLE {
		t.Fatalf("idle player: close %d, %v", code, msg)
	}
	for f := r.frames + 5; r.frames < f; {
		r.apply(t, mover.next(wait))
	}
	for f := g.frames + 5; g.frames < f; {
		g.apply(t, god.next(wait))
	}
}

// dialFrom opens a TCP connection to addr from the loopback address local.
func dialFrom(local, addr string) (net.Conn, error) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}, Timeout: wait}
	return d.Dial("tcp", addr)
}

// healthFrom GETs /healthz over a new connection from local.
func healthFrom(t *testing.T, s *testServer, local string) (int, error) {
	t.Helper()
	hc := &http.Client{Timeout: wait, Transport: &http.Transport{DisableKeepAlives: true,
		DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) { return dialFrom(local, addr) }}}
	resp, err := hc.Get(s.ts.URL + "/healthz")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// TestHealthUnderConnectionFlood: thousands of connections that never send a
// request, from three addresses, leave the server holding at most
// MaxConnsPerAddr per address and MaxConns in all (the oldest silent ones are
// closed to make room), and the health check still answers, from a flooded
// address as from another.
func TestHealthUnderConnectionFlood(t *testing.T) {
	const perAddr, total, each = 300, 700, 1000
	addrs := []string{"127.0.0.2", "127.0.0.3", "127.0.0.4"}
	if testing.Short() {
		t.Skip("opens 3000 connections")
	}
	s := startServer(t, "", func(c *Config) { c.MaxConnsPerAddr, c.MaxConns = perAddr, total })
	target := s.ts.Listener.Addr().String()
	var flood []net.Conn
	t.Cleanup(func() {
		for _, c := range flood {
			c.Close()
		}
	})
	for _, a := range addrs {
		for range each {
			c, err := dialFrom(a, target)
			if err != nil {
				t.Fatalf("connection %d: %v", len(flood), err)
			}
			flood = append(flood, c)
		}
	}
	// The listener accepts in order: once a later connection is served, every
	// flood connection went through the limiter.
	for _, from := range []string{"127.0.0.1", addrs[0]} {
		if code, err := healthFrom(t, s, from); err != nil || code != 200 {
			t.Fatalf("health check from %s under the flood: %d, %v", from, code, err)
		}
	}
	for _, a := range addrs {
		if all, n := s.lim.counts(a); n > perAddr || all > total {
			t.Errorf("server holds %d connections of %s (cap %d), %d in all (cap %d)", n, a, perAddr, all, total)
		}
	}
	// The connections the server dropped read EOF (or a reset) at once; a read
	// past its deadline fails without looking, hence one goroutine each.
	deadline := time.Now().Add(2 * time.Second)
	var closedN atomic.Int64
	var wg sync.WaitGroup
	for _, c := range flood {
		wg.Go(func() {
			_ = c.SetReadDeadline(deadline)
			var b [1]byte
			if _, err := c.Read(b[:]); err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
				closedN.Add(1)
			}
		})
	}
	wg.Wait()
	closed := int(closedN.Load())
	if closed < len(flood)-total {
		t.Errorf("%d of %d flood connections closed by the server, want at least %d", closed, len(flood), len(flood)-total)
	}
}

// TestConnCapBusy: when every connection of an address is busy (websocket
// sessions), one more from it is closed at once; the sessions carry on, and a
// session that ends frees its place.
func TestConnCapBusy(t *testing.T) {
	t.Parallel()
	const local = "127.0.0.5"
	s := startServer(t, "", func(c *Config) { c.MaxConnsPerAddr = 3 })
	hc := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) { return dialFrom(local, addr) }}}
	var cs []*client
	var rs []*received
	for i, name := range []string{"p1", "p2", "p3"} {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		conn, _, err := websocket.Dial(ctx, s.url, &websocket.DialOptions{HTTPClient: hc})
		cancel()
		if err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
		conn.SetReadLimit(-1)
		c := &client{t: t, conn: conn, packets: make(chan []proto.Message, 4096), done: make(chan struct{})}
		go c.read()
		t.Cleanup(c.close)
		c.login(name, nil)
		cs = append(cs, c)
		rs = append(rs, loggedIn(t, c))
	}
	if _, err := healthFrom(t, s, local); err == nil {
		t.Fatal("a fourth connection from a full address was served")
	}
	for i, c := range cs {
		for f := rs[i].frames + 3; rs[i].frames < f; {
			rs[i].apply(t, c.next(wait))
		}
	}
	cs[0].close()
	for deadline := time.Now().Add(wait); ; {
		if code, err := healthFrom(t, s, local); err == nil && code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the ended session's connection was never released")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestKeepAliveIdleClosed: a kept-alive connection idle for HTTPIdleTimeout is
// closed by the server.
func TestKeepAliveIdleClosed(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", func(c *Config) { c.HTTPIdleTimeout = 100 * time.Millisecond })
	c, err := net.Dial("tcp", s.ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Close {
		t.Fatalf("health: %d, close %v", resp.StatusCode, resp.Close)
	}
	_ = c.SetReadDeadline(time.Now().Add(wait))
	if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
		t.Fatalf("idle kept-alive connection: read %v, want EOF (closed by the server)", err)
	}
}

// TestProfileDeadline: a CPU profile gets its duration on top of the
// per-request write deadline, so it is not cut.
func TestProfileDeadline(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		url  string
		want time.Duration
	}{
		{"/", HTTPWriteTimeout},
		{"/debug/pprof/profile?seconds=600", HTTPWriteTimeout + 10*time.Minute},
		{"/debug/pprof/trace?seconds=0.5", HTTPWriteTimeout + 500*time.Millisecond},
		{"/debug/pprof/profile", HTTPWriteTimeout + 30*time.Second},
		{"/debug/pprof/profile?seconds=1e9", HTTPWriteTimeout + time.Hour},
	} {
		r, err := http.NewRequest("GET", tc.url, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := writeTimeout(r); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.url, got, tc.want)
		}
	}
}
