package scene

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twinframe/twinframe/shared/replication/replicationtest"
	"github.com/twinframe/twinframe/shared/world"
)

func transition(t *testing.T, w *world.World, name string) world.Transition {
	t.Helper()
	for _, tr := range w.Transitions {
		if tr.Name == name {
			return tr
		}
	}
	t.Fatalf("no transition %q", name)
	return world.Transition{}
}

// travelLine returns the frame of the log's "region from → to at frame F" line, or 0.
func travelLine(log []LogEntry, from, to string) uint64 {
	for _, e := range log {
		var f uint64
		if _, err := fmt.Sscanf(e.Text, "region "+from+" → "+to+" at frame %d", &f); err == nil && f == e.Frame {
			return f
		}
	}
	return 0
}

// The sandbox travels: its avatar walks into the park gate and is handed off to the
// wilds' game, the same entity; the view shows the wilds, the log says so, and the
// recording replays the travel (seek before it: downtown; after it: the wilds).
func TestLocalTravel(t *testing.T) {
	t.Parallel()
	l := testLocal(t)
	id := l.Status().AvatarID
	gate := transition(t, l.w, "park-gate")
	if err := l.Do(Command{Kind: cmdMoveTo, Point: gate.Pos}); err != nil {
		t.Fatal(err)
	}
	now := time.Duration(0)
	for i := 0; i < 60 && l.Status().Region != "wilds"; i++ {
		now = run(l, now, time.Second)
	}
	st := l.Status()
	if st.Region != "wilds" || st.RegionID != gate.Region || st.AvatarID != id || st.RegionChanges != 1 {
		t.Fatalf("after walking into the gate: region %q (%d), avatar %d, %d travels; want wilds, %d, %d, 1",
			st.Region, st.RegionID, st.AvatarID, st.RegionChanges, gate.Region, id)
	}
	f := travelLine(l.Log(), "downtown", "wilds")
	if f == 0 {
		t.Fatalf("no travel line in the log: %v", l.Log())
	}
	if min, max := l.Bounds(); min != l.w.Regions[1].Min || max != l.w.Regions[1].Max {
		t.Errorf("bounds %v..%v, want the wilds'", min, max)
	}
	end := l.Recorded()
	for _, tc := range []struct {
		frame  uint64
		region string
	}{{f - 5, "downtown"}, {end, "wilds"}, {f + 1, "wilds"}, {10, "downtown"}} {
		if err := l.Seek(tc.frame); err != nil {
			t.Fatal(err)
		}
		if st := l.Status(); st.Region != tc.region || st.AvatarID != id {
			t.Errorf("seek to %d: region %q, avatar %d; want %s, %d", tc.frame, st.Region, st.AvatarID, tc.region, id)
		}
	}
}

// The networked source follows its player across a teleport to another region: the
// status names the new region, the avatar is the same, the log has the travel line,
// and the prediction goes on there.
func TestNetworkTravel(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: real websocket and 20 Hz server; make test runs it")
	}
	srv := startServer(t)
	n := newNetwork(NetworkOptions{URL: srv.URL, Name: "traveller", NoXdump: true})
	defer n.Close()
	start := time.Now()
	until(t, n, start, 15*time.Second, "connection", func(s Status) bool { return s.Connected && s.AvatarID != 0 && s.Region != "" })
	st := n.Status()
	if st.Region != "downtown" || st.RegionID != 0 {
		t.Fatalf("logged in to %q (%d), want downtown (0)", st.Region, st.RegionID)
	}
	var terr error
	srv.Do(func(s *replicationtest.Server) {
		door := transition(t, s.World, "vault-door")
		terr = s.Teleport(s.Clients()[0], door.Region, door.Marker)
	})
	if terr != nil {
		t.Fatal(terr)
	}
	until(t, n, start, 15*time.Second, "the vault", func(s Status) bool { return s.Region == "vault" && s.Entities > 0 })
	after := n.Status()
	if after.AvatarID != st.AvatarID || after.RegionChanges != 1 || after.RegionID != 2 {
		t.Errorf("after the teleport: %+v", after)
	}
	if travelLine(n.Log(), "downtown", "vault") == 0 {
		var lines []string
		for _, e := range n.Log() {
			lines = append(lines, e.Text)
		}
		t.Errorf("no travel line in the log:\n%s", strings.Join(lines, "\n"))
	}
	if min, max := n.Bounds(); max.Sub(min).Len() == 0 || min[0] < 700 {
		t.Errorf("bounds %v..%v, want the vault's", min, max)
	}
}
