package gameserver

import (
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"google.golang.org/protobuf/proto"
)

func get(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
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

// TestHTTP checks the status page, /healthz, /metrics, /xdump (player and deity
// views, incremental) and that /debug/pprof needs the deity token.
func TestHTTP(t *testing.T) {
	checkLeaks(t)
	s := startServer(t, "", nil)
	c := dial(t, s.url, dialOpt{})
	c.login("carol", nil)
	r := newReceived()
	for r.frames < 2 {
		r.apply(t, c.next(wait))
	}
	base := s.ts.URL
	code, body := get(t, base+"/", testToken) // names need the deity token (TestStatusAndTokens)
	if code != 200 || !strings.Contains(body, "downtown") || !strings.Contains(body, "carol") || !strings.Contains(body, "lateness") {
		t.Errorf("status page: %d\n%s", code, body)
	}
	if code, body := get(t, base+"/healthz", ""); code != 200 || !strings.HasPrefix(body, "ok frame ") {
		t.Errorf("healthz: %d %q", code, body)
	}
	code, body = get(t, base+"/metrics", "")
	for _, want := range []string{"twinframe_frame_duration_seconds_bucket{le=", "twinframe_frame_lateness_seconds_count",
		"twinframe_frames_dropped_total", "twinframe_sessions 1", "twinframe_bytes_out_total", "twinframe_messages_in_total"} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics (%d) lack %q:\n%s", code, want, body)
		}
	}
	// xdump: the player view masks hidden fields; the deity sees the seed.
	code, body = get(t, base+"/xdump?q=entity+*", "")
	if code != 200 || !strings.HasPrefix(body, "XDUMP entity ") {
		t.Fatalf("xdump: %d %q", code, body)
	}
	code, deity := get(t, base+"/xdump?q=meta+entity", testToken)
	_, player := get(t, base+"/xdump?q=meta+entity", "")
	if code != 200 || !strings.Contains(deity, `"seed"`) || strings.Contains(player, `"seed"`) {
		t.Errorf("meta entity: deity view %q, player view %q", deity, player)
	}
	if code, _ := get(t, base+"/xdump?q=entity+*", "wrong"); code != http.StatusUnauthorized {
		t.Errorf("xdump with a bad token: %d", code)
	}
	if code, body := get(t, base+"/xdump?q=nosuchtable", ""); code != 400 || !strings.Contains(body, "nosuchtable") {
		t.Errorf("xdump of an unknown table: %d %q", code, body)
	}
	// Incremental: nothing changed after the dump's own timestamp but the entities
	// that moved since.
	_, all := get(t, base+"/xdump?q=entity+*", "")
	m := regexp.MustCompile(`^XDUMP entity (\d+)\n`).FindStringSubmatch(all)
	if m == nil {
		t.Fatalf("no timestamp in %q", all)
	}
	stamp, _ := strconv.Atoi(m[1])
	_, inc := get(t, base+"/xdump?q=entity+*?timestamp>"+strconv.Itoa(stamp+1000), "")
	if !strings.HasSuffix(inc, "/0\n") {
		t.Errorf("incremental dump after the future: %q", inc)
	}
	if code, _ := get(t, base+"/debug/pprof/", ""); code != http.StatusUnauthorized {
		t.Errorf("pprof without the token: %d", code)
	}
	if code, _ := get(t, base+"/debug/pprof/", testToken); code != 200 {
		t.Errorf("pprof with the token: %d", code)
	}
}

// TestReplacedAndDeity: a second login with the same name closes the first
// session (ERROR_CODE_REPLACED) and takes over its avatar; a deity can dump over
// the websocket, pause, step, resume and receive the debug-draw stream.
func TestReplacedAndDeity(t *testing.T) {
	checkLeaks(t)
	s := startServer(t, "", func(c *Config) { c.Period = 10 * time.Millisecond })
	a := dial(t, s.url, dialOpt{})
	a.login("dave", nil)
	ra := newReceived()
	for ra.frames < 2 {
		ra.apply(t, a.next(wait))
	}
	b := dial(t, s.url, dialOpt{})
	b.loginSecret("dave", ra.loginResult.IssuedToken, proto.String(testToken))
	code, msg := a.closedWith(wait)
	if code != websocket.StatusCode(CloseCodeBase+int(pb.ErrorCode_ERROR_CODE_REPLACED)) || msg == nil {
		t.Fatalf("older session closed with %d, %v", code, msg)
	}
	rb := newReceived()
	for rb.frames < 2 {
		rb.apply(t, b.next(wait))
	}
	if rb.loginResult.PlayerEntityId != ra.loginResult.PlayerEntityId || rb.loginResult.Role != pb.Role_ROLE_DEITY {
		t.Fatalf("new session: %v; older avatar %d", rb.loginResult, ra.loginResult.PlayerEntityId)
	}
	// Deity: xdump over the websocket sees the seed field.
	if err := b.send(&pb.NetMessageXDumpRequest{RequestId: 7, Command: "meta entity"}); err != nil {
		t.Fatal(err)
	}
	var resp *pb.NetMessageXDumpResponse
	for resp == nil {
		for _, m := range b.next(wait) {
			if x, ok := m.(*pb.NetMessageXDumpResponse); ok {
				resp = x
			}
		}
	}
	if resp.RequestId != 7 || resp.Error != "" || !strings.Contains(resp.Text, `"seed"`) {
		t.Fatalf("xdump response %v", resp)
	}
	// Pause: frames stop advancing; step 3: exactly three more; resume.
	frameOf := func(p []proto.Message) (uint64, bool, *pb.NetMessageDebugDraw) {
		var d *pb.NetMessageDebugDraw
		for _, m := range p {
			if x, ok := m.(*pb.NetMessageDebugDraw); ok {
				d = x
			}
		}
		f := p[0].(*pb.NetMessageServerFrame)
		return f.Frame, f.Paused, d
	}
	if err := b.send(&pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_PAUSE}); err != nil {
		t.Fatal(err)
	}
	var paused uint64
	for {
		f, p, _ := frameOf(b.next(wait))
		if p {
			paused = f
			break
		}
	}
	for range 3 {
		if f, p, _ := frameOf(b.next(wait)); f != paused || !p {
			t.Fatalf("paused at %d, then frame %d (paused %v)", paused, f, p)
		}
	}
	if err := b.send(&pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_STEP, Frames: 3},
		&pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_DRAW_ON}); err != nil {
		t.Fatal(err)
	}
	draws := 0
	for {
		f, p, d := frameOf(b.next(wait))
		if d != nil {
			draws++
		}
		if f == paused+3 && p {
			break
		}
		if f > paused+3 {
			t.Fatalf("stepped past %d to %d", paused+3, f)
		}
	}
	if draws == 0 {
		t.Error("no debug-draw messages after DRAW_ON")
	}
	if err := b.send(&pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_RESUME}); err != nil {
		t.Fatal(err)
	}
	for {
		if f, p, _ := frameOf(b.next(wait)); !p && f > paused+4 {
			break
		}
	}
}
