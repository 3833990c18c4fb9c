package gameserver

import (
	"bytes"
	"io/fs"
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
	if r := edit(bad); !strings.Contains(r.Error, "zz-live-0001.config:") || !strings.Contains(r.Error, ":8:41:") {
		t.Errorf("bad edit answered %q; want the edit's file, line 8, column 41", r.Error)
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
		s2 = len(s.game.World().BlackoutZones(s.region)) > 0 && s.game.World().BlackoutZones(s.region)[0].Radius == 9
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
