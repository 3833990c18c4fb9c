package gameserver

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"google.golang.org/protobuf/proto"
)

// dumpIDs returns the ids (first field) of a machine dump's rows and its frame.
func dumpIDs(t *testing.T, text string) ([]uint64, uint64) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(text), "\n")
	h := strings.Fields(lines[0])
	if len(h) != 3 || h[0] != "XDUMP" {
		t.Fatalf("dump header %q", lines[0])
	}
	frame, err := strconv.ParseUint(h[2], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	var ids []uint64
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "/") {
			continue
		}
		id, err := strconv.ParseUint(strings.Fields(l)[0], 10, 64)
		if err != nil {
			t.Fatalf("row %q: %v", l, err)
		}
		ids = append(ids, id)
	}
	return ids, frame
}

// TestPlayerDumpIsItsView: a player's xdump of the entities lists exactly what
// replication sent it — the ids its client replica holds at the dump's frame,
// which are the server's visible set and its avatar — not the whole world; an
// anonymous HTTP dump, which has no area of interest, lists no entity and no
// lost entity; the deity sees every entity.
func TestPlayerDumpIsItsView(t *testing.T) {
	checkLeaks(t)
	var mu sync.Mutex
	serverView := map[uint64][]uint64{} // game frame → the player's view
	var srvp atomic.Pointer[Server]
	s := startServer(t, "", func(c *Config) {
		c.AOI.Add, c.AOI.Remove = 30, 40 // a view smaller than the world
		c.OnFrame = func(v FrameView) {
			srv := srvp.Load()
			if srv == nil {
				return
			}
			for _, c := range srv.sessions {
				if c.name == "peeker" {
					mu.Lock()
					serverView[v.Frame] = srv.playerView(c)
					mu.Unlock()
				}
			}
		}
	})
	srvp.Store(s.Server)
	var all int
	s.inLoop(t, func() { all = len(s.hub().Entities()) })
	c := dial(t, s.url, dialOpt{})
	c.login("peeker", nil)
	r := newReceived()
	for !r.rep.Ready() || r.frames < 3 {
		r.apply(t, c.next(wait))
	}
	held := map[uint64][]uint64{} // frame → the ids the client's replica holds
	held[r.rep.ServerFrame()] = r.rep.IDs(nil)
	if err := c.send(&pb.NetMessageXDumpRequest{RequestId: 5, Command: "xdump entity"},
		&pb.NetMessageXDumpRequest{RequestId: 6, Command: "lost"},
		&pb.NetMessageXDumpRequest{RequestId: 7, Command: "xdump nosuchtable"}); err != nil {
		t.Fatal(err)
	}
	got := map[uint32]*pb.NetMessageXDumpResponse{}
	for len(got) < 3 {
		p := c.next(wait)
		for _, m := range p {
			if d, ok := m.(*pb.NetMessageXDumpResponse); ok {
				got[d.RequestId] = d
			}
		}
		r.apply(t, p)
		held[r.rep.ServerFrame()] = r.rep.IDs(nil)
	}
	if got[5].Error != "" || got[6].Error != "" || got[5].Code != 0 || got[6].Code != 0 {
		t.Fatalf("dumps failed: %v %q, %v %q", got[5].Code, got[5].Error, got[6].Code, got[6].Error)
	}
	// A command that is not valid xdump is answered, not fatal, with a code a
	// program can act on and the text for a person.
	if bad := got[7]; bad.Code != pb.ErrorCode_ERROR_CODE_BAD_PACKET || !strings.Contains(bad.Error, "nosuchtable") || bad.Text != "" {
		t.Errorf("a bad command: code %v, error %q, text %q; want ERROR_CODE_BAD_PACKET naming the table", bad.Code, bad.Error, bad.Text)
	}
	ids, frame := dumpIDs(t, got[5].Text)
	client, ok := held[frame]
	if !ok {
		t.Fatalf("the dump is at frame %d, which the client did not see (%v)", frame, slices.Sorted(mapKeys(held)))
	}
	mu.Lock()
	server := serverView[frame]
	mu.Unlock()
	if !slices.Equal(ids, client) || !slices.Equal(ids, server) {
		t.Errorf("frame %d: the player's dump lists %v;\nits client holds %v;\nthe server's view of it is %v", frame, ids, client, server)
	}
	if len(ids) == 0 || len(ids) >= all {
		t.Errorf("the player's dump lists %d of %d entities; want its view, some but not all", len(ids), all)
	}
	if lost, _ := dumpIDs(t, got[6].Text); len(lost) != 0 {
		t.Errorf("the player's dump of lost entities lists %v", lost)
	}
	for _, table := range []string{"entity", "lost"} {
		code, body := get(t, s.ts.URL+"/xdump?q="+table, "")
		if ids, _ := dumpIDs(t, body); code != http.StatusOK || len(ids) != 0 {
			t.Errorf("anonymous dump of %s: %d, ids %v", table, code, ids)
		}
	}
	if code, body := get(t, s.ts.URL+"/xdump?q=region", ""); code != http.StatusOK || !strings.Contains(body, "downtown") {
		t.Errorf("anonymous dump of the regions: %d %q", code, body)
	}
	if _, body := get(t, s.ts.URL+"/xdump?q=entity", testToken); len(dumpFirst(dumpIDs(t, body))) < all {
		t.Errorf("the deity's dump lists %d entities, want at least %d", len(dumpFirst(dumpIDs(t, body))), all)
	}
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func dumpFirst[A, B any](a A, _ B) A { return a }

// TestDumpFloodOneSnapshotPerFrame: a flood of dump requests in one frame costs
// the frame loop one copy of the entity rows, shared by every request; the
// answers all show that frame.
func TestDumpFloodOneSnapshotPerFrame(t *testing.T) {
	checkLeaks(t)
	s := startServer(t, "", nil)
	deity := dial(t, s.url, dialOpt{})
	deity.login("god", proto.String(testToken))
	r := newReceived()
	for r.frames < 2 {
		r.apply(t, deity.next(wait))
	}
	const n = 40
	var reqs []proto.Message
	for i := range n {
		reqs = append(reqs, &pb.NetMessageXDumpRequest{RequestId: uint32(i + 1), Command: "entity"})
	}
	var before dumpStats
	s.inLoop(t, func() { before = s.dumpStats })
	if err := deity.send(reqs...); err != nil {
		t.Fatal(err)
	}
	frames := map[uint64]int{}
	for got := 0; got < n; {
		for _, m := range deity.next(wait) {
			if d, ok := m.(*pb.NetMessageXDumpResponse); ok {
				if d.Error != "" {
					t.Fatalf("dump %d: %s", d.RequestId, d.Error)
				}
				_, f := dumpIDs(t, d.Text)
				frames[f]++
				got++
			}
		}
	}
	var after dumpStats
	var entities int
	s.inLoop(t, func() {
		after, entities = s.dumpStats, len(s.lost)
		for _, r := range s.regions { // a dump shows every region
			entities += len(r.game.Entities())
		}
	})
	if len(frames) != 1 {
		t.Errorf("the %d dumps of one packet show frames %v; want one frame", n, frames)
	}
	if snaps := after.snapshots - before.snapshots; snaps != 1 || after.jobs-before.jobs != n {
		t.Errorf("%d requests took %d snapshots; want 1", after.jobs-before.jobs, snaps)
	}
	if rows := after.rowsCopied - before.rowsCopied; rows > uint64(entities)+16 {
		t.Errorf("the loop copied %d rows for %d dumps of %d entities; want one copy", rows, n, entities)
	}
}

// TestDumpEncodedOffTheLoop: an HTTP dump is answered while the frame loop is
// held inside a frame (Config.FrameWork) after taking the dump's snapshot: the
// loop only copies rows, an encoder goroutine does the rest.
func TestDumpEncodedOffTheLoop(t *testing.T) {
	checkLeaks(t)
	var hold sync.Mutex
	held := make(chan struct{}, 1)
	release := make(chan struct{})
	var srvp atomic.Pointer[Server]
	var armed bool
	s := startServer(t, "", func(c *Config) {
		c.FrameWork = func(uint64) {
			srv := srvp.Load()
			hold.Lock()
			block := armed && srv != nil && srv.dumpStats.snapshots > 0
			if block {
				armed = false
			}
			hold.Unlock()
			if block {
				held <- struct{}{}
				<-release
			}
		}
	})
	srvp.Store(s.Server)
	hold.Lock()
	armed = true
	hold.Unlock()
	type answer struct {
		code int
		body string
	}
	done := make(chan answer, 1)
	go func() {
		code, body := get(t, s.ts.URL+"/xdump?q=entity", testToken)
		done <- answer{code, body}
	}()
	select {
	case <-held:
	case <-time.After(wait):
		t.Fatal("the loop never took the snapshot")
	}
	select {
	case a := <-done:
		if a.code != http.StatusOK || !strings.HasPrefix(a.body, "XDUMP entity ") {
			t.Errorf("dump: %d %.80q", a.code, a.body)
		}
	case <-time.After(wait):
		t.Error("the dump did not complete while the loop was held")
	}
	close(release)
}

// TestDumpRateLimits: a player's xdump requests over its session's budget are
// answered with ERROR_CODE_RATE_LIMITED, not a disconnect; a client that keeps
// asking regardless is disconnected (4015). Anonymous HTTP dumps over their
// address's budget get 429 with Retry-After.
func TestDumpRateLimits(t *testing.T) {
	checkLeaks(t)
	s := startServer(t, "", func(c *Config) {
		c.XDumpRate, c.XDumpBurst = 0.001, 3
		c.XDumpAddrRate, c.XDumpAddrBurst = 0.001, 5
	})
	c := dial(t, s.url, dialOpt{})
	c.login("greedy", nil)
	r := newReceived()
	for r.frames < 2 {
		r.apply(t, c.next(wait))
	}
	ask := func(n int, first uint32) (ok, limited int) {
		t.Helper()
		var reqs []proto.Message
		for i := range n {
			reqs = append(reqs, &pb.NetMessageXDumpRequest{RequestId: first + uint32(i), Command: "region"})
		}
		if err := c.send(reqs...); err != nil {
			t.Fatal(err)
		}
		for ok+limited < n {
			for _, m := range c.next(wait) {
				if d, is := m.(*pb.NetMessageXDumpResponse); is {
					switch {
					case d.Error == "" && d.Code == pb.ErrorCode_ERROR_CODE_UNSPECIFIED:
						ok++
					case d.Code == pb.ErrorCode_ERROR_CODE_RATE_LIMITED && strings.HasPrefix(d.Error, "ERROR_CODE_RATE_LIMITED: "):
						limited++
					default:
						t.Fatalf("dump %d: %s", d.RequestId, d.Error)
					}
				}
			}
		}
		return ok, limited
	}
	if ok, limited := ask(10, 1); ok != 3 || limited != 7 {
		t.Errorf("10 requests: %d answered, %d refused; want 3 and 7", ok, limited)
	}
	// The address had 5: the session took 3; anonymous HTTP gets the other 2.
	for i := range 3 {
		req, _ := http.NewRequest("GET", s.ts.URL+"/xdump?q=region", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := http.StatusOK
		if i == 2 {
			want = http.StatusTooManyRequests
		}
		if resp.StatusCode != want || want == http.StatusTooManyRequests && resp.Header.Get("Retry-After") == "" {
			t.Errorf("anonymous dump %d: %s, Retry-After %q; want %d", i, resp.Status, resp.Header.Get("Retry-After"), want)
		}
	}
	// The deity is not limited.
	if code, _ := get(t, s.ts.URL+"/xdump?q=region", testToken); code != http.StatusOK {
		t.Errorf("deity dump: %d", code)
	}
	// Asking on regardless: disconnected once maxDumpRefusals are refused in a row.
	if ok, limited := ask(30, 100); ok != 0 || limited != 30 { // 37 refused in a row
		t.Fatalf("30 more: %d answered, %d refused", ok, limited)
	}
	if err := c.send(slices.Repeat([]proto.Message{&pb.NetMessageXDumpRequest{Command: "region"}}, 30)...); err != nil {
		t.Fatal(err)
	}
	if code, msg := c.closedWith(wait); code != websocket.StatusCode(CloseCodeBase+int(pb.ErrorCode_ERROR_CODE_RATE_LIMITED)) || msg == nil {
		t.Errorf("a persistent flood: closed %d with %v", code, msg)
	}
}
