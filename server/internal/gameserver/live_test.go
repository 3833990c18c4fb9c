package gameserver

import (
	"bytes"
	"io/fs"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/world"
	"google.golang.org/protobuf/proto"
)

// TestLiveEdit: a deity's edit of the blackout zones is verified like a
// configuration file, applied, and sent to every client as a region change that
// the replica rebuilds from; a bad edit answers with its file and line; a
// read-only table refuses edits; a player may not edit.
func TestLiveEdit(t *testing.T) {
	checkLeaks(t)
	s := startServer(t, "", func(c *Config) { c.NoPopulation = true })
	deity := dial(t, s.url, dialOpt{})
	deity.login("god", proto.String(testToken))
	player := dial(t, s.url, dialOpt{})
	player.login("mortal", nil)
	rd, rp := newReceived(), newReceived()
	for rd.frames < 2 || rp.frames < 2 {
		select {
		case p := <-deity.packets:
			rd.apply(t, p)
		case p := <-player.packets:
			rp.apply(t, p)
		}
	}
	oldHash := rp.regionChange.TablesHash
	markers, err := fs.ReadFile(world.DefaultFiles(), "40-marker.config")
	if err != nil {
		t.Fatal(err)
	}
	const from, to = " 1 park    blackout      20    160      6", " 1 park    blackout      20    160      9"
	if !bytes.Contains(markers, []byte(from)) {
		t.Fatalf("the default markers changed; no %q", from)
	}
	edit := func(records string) *pb.NetMessageLiveEditResponse {
		t.Helper()
		if err := deity.send(&pb.NetMessageLiveEditRequest{RequestId: 3, Records: records}); err != nil {
			t.Fatal(err)
		}
		for {
			p := deity.next(wait)
			rd.apply(t, p)
			for _, m := range p {
				if r, ok := m.(*pb.NetMessageLiveEditResponse); ok {
					return r
				}
			}
		}
	}
	// A bad value: the error names the edit's file, line and column.
	bad := strings.Replace(string(markers), from, " 1 park    blackout      20    160      x", 1)
	if r := edit(bad); !strings.Contains(r.Error, "zz-live-0001.config:") || !strings.Contains(r.Error, ":10:41:") {
		t.Errorf("bad edit answered %q; want the edit's file, line 10, column 41", r.Error)
	}
	if r := edit("XDUMP table 0\n0 \"table\"\n/1\n"); r.Error == "" {
		t.Error("an edit of the table of tables was accepted")
	}
	_, ents := get(t, s.ts.URL+"/xdump?q=entity+1", testToken)
	if r := edit(ents); !strings.Contains(r.Error, "not supported") {
		t.Errorf("an edit of the entity table answered %q", r.Error)
	}
	// A good one.
	if r := edit(strings.Replace(string(markers), from, to, 1)); r.Error != "" {
		t.Fatalf("edit refused: %s", r.Error)
	}
	var s2 bool
	s.inLoop(t, func() {
		s2 = len(s.hub().World().BlackoutZones(s.hubID())) > 0 && s.hub().World().BlackoutZones(s.hubID())[0].Radius == 9
	})
	if !s2 {
		t.Error("the game's world does not have the edited blackout zone")
	}
	for rp.regionChange == nil || bytes.Equal(rp.regionChange.TablesHash, oldHash) || rp.creates == 0 {
		rp.creates = 0
		rp.apply(t, player.next(wait))
	}
	if got := rp.rep.World().BlackoutZones(rp.rep.RegionID()); len(got) == 0 || got[0].Radius != 9 {
		t.Errorf("the client's rebuilt world has blackout zones %+v", got)
	}
	if !rp.rep.Ready() {
		t.Error("the client has no avatar after the region change")
	}
	// A player may not edit: disconnected as not authorized.
	if err := player.send(&pb.NetMessageLiveEditRequest{Records: "x"}); err != nil {
		t.Fatal(err)
	}
	if code, msg := player.closedWith(wait); msg == nil || msg.Code != pb.ErrorCode_ERROR_CODE_NOT_AUTHORIZED {
		t.Errorf("player edit: closed %d with %v", code, msg)
	}
}

// TestLiveEditRefusesConst: an edit that changes a const field (a row's id, the
// region of a cell) is refused with the line and column of the value, and
// nothing changes: not the game's world, not the tables clients were sent, not
// the edit counter.
func TestLiveEditRefusesConst(t *testing.T) {
	checkLeaks(t)
	s := startServer(t, "", func(c *Config) { c.NoPopulation = true })
	deity := dial(t, s.url, dialOpt{})
	deity.login("god", proto.String(testToken))
	rd := newReceived()
	for rd.frames < 2 {
		rd.apply(t, deity.next(wait))
	}
	type state struct {
		edits   int
		hash    []byte
		tables  int
		regions []world.Region
		cells   []world.Cell
	}
	snapshot := func() (st state) {
		s.inLoop(t, func() {
			c := s.hub().World().Config
			st = state{s.edits, slices.Clone(s.hash), len(s.tables), slices.Clone(c.Regions), slices.Clone(c.Cells)}
		})
		return st
	}
	before := snapshot()
	for _, tc := range []struct {
		name, records, want string
	}{
		{"region id", "config region\nid name min(0) min(1) max(0) max(1)\n 5 \"downtown\" 0 0 192 192\n/config\n",
			"zz-live-0001.config:3:2: value for field 1 must be 0"},
		{"region of a cell", "config region\nid name min(0) min(1) max(0) max(1)\n" +
			" 0 \"downtown\" 0 0 192 192\n 1 \"uptown\" 192 0 384 192\n/config\n" +
			"config cell\nid region min(0) min(1) size(0) size(1) seed\n 0 1 0 0 64 64 1592590337\n/config\n",
			"zz-live-0001.config:8:4: value for field 2 must be 0"},
		// Verification alone would accept this one: nothing refers to population ids.
		{"population id", "config population\nid area prototype density\n 0 streets wanderer 2\n" +
			" 1 streets ghost 0.25\n 2 park wanderer 1.5\n 3 lab dummy 2\n 7 lab ghost 1\n/config\n",
			"zz-live-0001.config:7:2: value for field 1 must be 4"},
		{"prototype id", "config prototype\nid name radius speed collision flags footprint\n" +
			" 0 \"avatar\" 0.5 6 blocking (player) -1\n 2 \"wanderer\" 0.4 2.5 blocking (npc wander) -1\n/config\n",
			"zz-live-0001.config:4:2: value for field 1 must be 1"},
	} {
		if err := deity.send(&pb.NetMessageLiveEditRequest{RequestId: 9, Records: tc.records}); err != nil {
			t.Fatal(err)
		}
		var r *pb.NetMessageLiveEditResponse
		for r == nil {
			p := deity.next(wait)
			rd.apply(t, p)
			for _, m := range p {
				if lr, ok := m.(*pb.NetMessageLiveEditResponse); ok {
					r = lr
				}
			}
		}
		if r.Error != tc.want {
			t.Errorf("%s: answered %q, want %q", tc.name, r.Error, tc.want)
		}
		if after := snapshot(); !reflect.DeepEqual(after, before) {
			t.Errorf("%s: refused edit changed the server: %+v, was %+v", tc.name, after, before)
		}
	}
}
