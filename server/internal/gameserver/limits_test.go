package gameserver

import (
	"bytes"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/coder/websocket"
	dto "github.com/prometheus/client_model/go"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/world"
	"google.golang.org/protobuf/proto"
)

// TestInputCap: of 64 inputs sent in one frame, a player has the burst of
// 2 × MaxInputsPerFrame applied and the rest dropped (not acknowledged, counted),
// and stays connected; a client over the cap for InputFloodSeconds consecutive
// seconds is disconnected as a flood (4004).
func TestInputCap(t *testing.T) {
	checkLeaks(t)
	s := startServer(t, "", func(c *Config) {
		c.NoPopulation = true
		c.Period = 10 * time.Millisecond
		c.InputFloodSeconds = 2
		c.InboxSize = 1024 // the reader's own flood limit is not the one tested
	})
	c := dial(t, s.url, dialOpt{})
	c.login("spammer", nil)
	r := newReceived()
	for !r.rep.Ready() || r.frames < 2 {
		r.apply(t, c.next(wait))
	}
	moves := func(n int) []proto.Message {
		var ms []proto.Message
		for i := range n {
			ms = append(ms, &pb.NetMessageMoveTo{InputSeq: c.nextSeq(), ClientFrame: r.lastFrame + 1,
				Target: &pb.NetStructPoint3{X: 90 + float32(i%5), Y: 136}})
		}
		return ms
	}
	if err := c.send(moves(64)...); err != nil {
		t.Fatal(err)
	}
	// Until the server has acknowledged some, then a few frames more (the
	// client may read frames sent before the inputs arrived).
	for r.ack == 0 {
		r.apply(t, c.next(wait))
	}
	for f := r.lastFrame; r.lastFrame < f+5; {
		r.apply(t, c.next(wait))
	}
	if r.ack != 8 {
		t.Errorf("64 inputs in one frame: acknowledged up to %d; want the first 8", r.ack)
	}
	var m dto.Metric
	if err := s.metrics.inputsDropped.WithLabelValues("rate").Write(&m); err != nil {
		t.Fatal(err)
	}
	if dropped := m.GetCounter().GetValue(); dropped != 56 {
		t.Errorf("%g inputs counted as dropped; want 56", dropped)
	}
	// Six every frame, for seconds: a flood.
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		select {
		case <-c.done:
			deadline = time.Time{}
			continue
		default:
		}
		_ = c.send(moves(6)...)
		time.Sleep(10 * time.Millisecond)
	}
	if code, msg := c.closedWith(wait); code != websocket.StatusCode(CloseCodeBase+int(pb.ErrorCode_ERROR_CODE_FLOOD)) ||
		msg == nil || !strings.Contains(msg.Text, "inputs a frame") {
		t.Errorf("a persistent input flood: closed %d with %v", code, msg)
	}
}

// configFS is configuration files as a file system.
func configFS(files []*pb.NetStructConfigFile) fstest.MapFS {
	fsys := fstest.MapFS{}
	for _, f := range files {
		fsys[f.Name] = &fstest.MapFile{Data: []byte(f.Text)}
	}
	return fsys
}

// configText writes every loadable table of w, for comparing two worlds.
func configText(t *testing.T, w *world.World) string {
	t.Helper()
	var b strings.Builder
	reg := w.Registry()
	for _, tb := range reg.Tables() {
		if tb.Schema().ReadOnly || tb.Name() == "entity" || tb.Name() == "lost" {
			continue
		}
		if err := reg.WriteConfig(&b, tb); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// liveEditOK sends an edit and returns its answer.
func liveEditOK(t *testing.T, deity *client, rd *received, id uint32, records string) *pb.NetMessageLiveEditResponse {
	t.Helper()
	if err := deity.send(&pb.NetMessageLiveEditRequest{RequestId: id, Records: records}); err != nil {
		t.Fatal(err)
	}
	for {
		p := deity.next(wait)
		rd.apply(t, p)
		for _, m := range p {
			if r, ok := m.(*pb.NetMessageLiveEditResponse); ok && r.RequestId == id {
				return r
			}
		}
	}
}

// TestLiveEditsDoNotPileUp: 5 MiB of edits in sequence are each applied; the
// tables clients get are the current ones, not the history of edits, so a new
// login afterwards works and loads a world equal to the server's.
func TestLiveEditsDoNotPileUp(t *testing.T) {
	checkLeaks(t)
	s := startServer(t, "", func(c *Config) { c.NoPopulation = true })
	deity := dial(t, s.url, dialOpt{})
	deity.login("god", proto.String(testToken))
	rd := newReceived()
	for rd.frames < 2 {
		rd.apply(t, deity.next(wait))
	}
	markers, err := fs.ReadFile(world.DefaultFiles(), "40-marker.config")
	if err != nil {
		t.Fatal(err)
	}
	const from = " 1 park    blackout      20    160      6"
	if !bytes.Contains(markers, []byte(from)) {
		t.Fatalf("the default markers changed; no %q", from)
	}
	// Each edit changes a blackout radius and carries 128 KiB of comments: what
	// a deity's tool might send, and what the history of edits would pile up.
	pad := strings.Repeat("# "+strings.Repeat("-", 125)+"\n", 1024)
	sent := 0
	for i := 0; sent < 5<<20; i++ {
		to := fmt.Sprintf(" 1 park    blackout      20    160      %d", 3+i%5)
		rec := pad + strings.Replace(string(markers), from, to, 1)
		sent += len(rec)
		if r := liveEditOK(t, deity, rd, uint32(i+1), rec); r.Error != "" {
			t.Fatalf("edit %d (%d bytes sent): %s", i+1, sent, r.Error)
		}
	}
	p := dial(t, s.url, dialOpt{})
	p.login("newcomer", nil)
	rp := newReceived()
	for !rp.rep.Ready() {
		rp.apply(t, p.next(wait))
	}
	rc := rp.regionChange
	got, err := world.Load(configFS(rc.Tables))
	if err != nil {
		t.Fatalf("the newcomer's tables do not load: %v", err)
	}
	var want string
	var hash []byte
	s.inLoop(t, func() { want, hash = configText(t, s.world), s.hash })
	sum := protocol.HashConfigFiles(rc.Tables)
	if configText(t, got) != want || !bytes.Equal(rc.TablesHash, hash) || !bytes.Equal(sum[:], hash) {
		t.Error("the newcomer's tables are not the server's world")
	}
	if n := proto.Size(rc); n > 1<<20 {
		t.Errorf("the region change takes %d bytes after the edits", n)
	}
}

// TestLiveEditRefusedOverLimit: an edit that would make the tables larger than
// a region change may carry is refused with a clear error, and nothing changes.
func TestLiveEditRefusedOverLimit(t *testing.T) {
	checkLeaks(t)
	s := startServer(t, "", func(c *Config) { c.NoPopulation = true })
	deity := dial(t, s.url, dialOpt{})
	deity.login("god", proto.String(testToken))
	rd := newReceived()
	for rd.frames < 2 {
		rd.apply(t, deity.next(wait))
	}
	var hash []byte
	var tables int
	s.inLoop(t, func() {
		rc := &pb.NetMessageRegionChange{RegionId: s.hubID(), Tables: s.tables, TablesHash: s.hash, ServerFrame: s.hub().Frame()}
		s.maxTables = proto.Size(rc) + 64 // room for nothing much
		hash, tables = s.hash, len(s.tables)
	})
	rec := "config population\nid area prototype density\n 0 streets wanderer 2\n" +
		" 1 streets ghost 0.25\n 2 park wanderer 1.5\n 3 lab dummy 2\n 4 lab ghost 1\n/config\n"
	r := liveEditOK(t, deity, rd, 1, rec)
	if !strings.Contains(r.Error, "refused, nothing applied") || !strings.Contains(r.Error, "region change") {
		t.Errorf("an edit over the limit answered %q", r.Error)
	}
	s.inLoop(t, func() {
		if !bytes.Equal(s.hash, hash) || len(s.tables) != tables || s.edits != 0 {
			t.Errorf("a refused edit changed the tables: %d files, %d edits", len(s.tables), s.edits)
		}
	})
	s.inLoop(t, func() { s.maxTables = maxRegionChange })
	if r := liveEditOK(t, deity, rd, 2, rec); r.Error != "" {
		t.Errorf("the same edit under the limit: %s", r.Error)
	}
}
