package scene

import (
	"bytes"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/recording"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
)

// serverRun records frames frames of the default world's regions (seed 5) as a
// server recording with one violation at violFrame naming an entity of the last
// region, and returns it with every frame's live state hashes by region id.
func serverRun(t *testing.T, frames int, violFrame uint64) ([]byte, uint64, map[uint64]map[int32]uint64) {
	t.Helper()
	w, err := world.LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	h, err := recording.HeaderFor(recording.Server, "scene test", world.DefaultFiles(), w)
	if err != nil {
		t.Fatal(err)
	}
	h.Seed = 5
	var buf bytes.Buffer
	wr, err := recording.NewWriter(&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	var games []*sim.Game
	for _, r := range w.Regions {
		g, err := sim.New(w, &sim.Options{Region: r.ID, Seed: sim.RegionSeed(5, r.ID)})
		if err != nil {
			t.Fatal(err)
		}
		games = append(games, g)
	}
	live := map[uint64]map[int32]uint64{}
	var marked uint64
	for range frames {
		var f recording.Frame
		for i, g := range games {
			if err := g.Step(); err != nil {
				t.Fatal(err)
			}
			snap, err := g.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			f.Frame = g.Frame()
			f.Regions = append(f.Regions, recording.RegionState{Region: w.Regions[i].ID, Hash: g.StateHash(), Snapshot: snap})
			if live[f.Frame] == nil {
				live[f.Frame] = map[int32]uint64{}
			}
			live[f.Frame][w.Regions[i].ID] = g.StateHash()
		}
		if f.Frame == violFrame {
			ents := games[len(games)-1].Entities()
			marked = uint64(ents[len(ents)-1].ID())
		}
		if err := wr.WriteFrame(&f); err != nil {
			t.Fatal(err)
		}
	}
	if marked == 0 {
		t.Fatal("no entity to mark")
	}
	if err := wr.Close([]recording.Violation{{Frame: violFrame, Check: "invariants", Invariant: "interpenetration", What: "a test violation", Entities: []uint64{marked}}}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), marked, live
}

// A server recording opens at its first violation, in the region of its entity,
// with the entity selected; seeking anywhere shows every region at the state hash
// it had live at that frame; step and play move forward through the file.
func TestOpenServerRecording(t *testing.T) {
	t.Parallel()
	data, marked, live := serverRun(t, 50, 33)
	src, sel, err := OpenRecording(data)
	if err != nil {
		t.Fatal(err)
	}
	s := src.(*serverFile)
	st := s.Status()
	if sel != marked || st.Frame != 33 || st.Mode != "recording" || !st.Paused || st.Recording == nil || st.Recording.Violation == nil {
		t.Fatalf("opened at frame %d selecting %d (want 33, %d): %+v", st.Frame, sel, marked, st)
	}
	if s.g.Entity(sim.EntityID(marked)) == nil || st.RegionID != s.games[len(s.games)-1].Home().ID() {
		t.Errorf("shown region %s does not hold the marked entity %d", st.Region, marked)
	}
	if f := s.Inspect(marked); len(f) == 0 {
		t.Error("the marked entity cannot be inspected")
	}
	for _, f := range []uint64{1, 19, 20, 21, 40, 50, 33} {
		if err := s.Do(Command{Kind: cmdSeek, Frame: f}); err != nil {
			t.Fatal(err)
		}
		for _, g := range s.games {
			if g.Frame() != f || g.StateHash() != live[f][g.Home().ID()] {
				t.Errorf("seek %d: region %s at frame %d hash %x, live %x", f, g.Home().Name(), g.Frame(), g.StateHash(), live[f][g.Home().ID()])
			}
		}
	}
	if err := s.Do(Command{Kind: Step}); err != nil || s.Status().Frame != 34 {
		t.Errorf("step from 33: frame %d, %v", s.Status().Frame, err)
	}
	if err := s.Do(Command{Kind: cmdMoveTo, Point: mgl32.Vec2{1, 1}}); err == nil {
		t.Error("a move was accepted by a recording")
	}
	// Play: 10 frames of clock time later, 10 frames on.
	s.Update(time.Second)
	s.Do(Command{Kind: Resume})
	s.Update(time.Second + 10*frameDuration)
	if st := s.Status(); st.Frame != 44 || st.Paused {
		t.Errorf("after playing 10 frames: frame %d, paused %v", st.Frame, st.Paused)
	}
	s.Update(time.Minute)
	if st := s.Status(); st.Frame != 50 || !st.Paused {
		t.Errorf("played to the end: frame %d, paused %v", st.Frame, st.Paused)
	}
	// Saving an opened recording gives the file back.
	v := NewView(src)
	if b, err := v.SaveRecording(); err != nil || !bytes.Equal(b, data) {
		t.Errorf("save: %d bytes, %v", len(b), err)
	}
}

// A damaged file is refused and leaves the view as it was.
func TestOpenRecordingErrors(t *testing.T) {
	t.Parallel()
	data, _, _ := serverRun(t, 5, 3)
	l, err := NewLocal(LocalOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	v := NewView(l)
	for _, bad := range [][]byte{nil, []byte("TWFREC\r\n garbage"), data[:len(data)-1]} {
		if err := v.OpenRecording(bad); err == nil {
			t.Errorf("%d bytes opened", len(bad))
		}
	}
	if v.Source() != l {
		t.Error("a failed open replaced the source")
	}
	if _, err := v.SaveRecording(); err == nil {
		t.Error("the sandbox saved a recording")
	}
}

// The networked session saved as a file and opened again replays the entities
// at the authoritative positions the live replica held at each frame.
func TestSaveAndOpenClientRecording(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: real websocket and 20 Hz server; make test runs it")
	}
	srv := startServer(t)
	n := newNetwork(NetworkOptions{URL: srv.URL, Name: "save-test", NoXdump: true})
	defer n.Close()
	start := time.Now()
	until(t, n, start, 15*time.Second, "connection", func(s Status) bool { return s.Connected && s.AvatarID != 0 && s.ServerFrame > 0 })
	live := map[uint64]map[uint64]mgl32.Vec2{}
	sample := func() {
		n.conn.c.With(func(r *replica.Replica) {
			f := r.ServerFrame()
			if live[f] != nil {
				return
			}
			pos := map[uint64]mgl32.Vec2{}
			for _, id := range r.IDs(nil) {
				s, _ := r.State(id)
				pos[id] = mgl32.Vec2{s.Position[0], s.Position[1]}
			}
			live[f] = pos
		})
	}
	st := n.Status()
	goal := mgl32.Vec2{st.Avatar[0] + 6, st.Avatar[1] - 3}
	if err := n.Do(Command{Kind: cmdMoveTo, Point: goal}); err != nil {
		t.Fatal(err)
	}
	until(t, n, start, 15*time.Second, "the avatar to arrive", func(s Status) bool {
		sample()
		return !s.Moving && mgl32.Vec2{s.Avatar[0], s.Avatar[1]}.Sub(goal).Len() < 0.6
	})
	arrived := n.Status().ServerFrame
	until(t, n, start, 5*time.Second, "the recording to reach the live frame", func(s Status) bool { return s.Recorded >= arrived })
	v := NewView(n)
	data, err := v.SaveRecording()
	if err != nil {
		t.Fatal(err)
	}
	if err := v.OpenRecording(data); err != nil {
		t.Fatal(err)
	}
	c := v.Source().(*clientFile)
	checked := 0
	for f, want := range live {
		if f > arrived {
			continue
		}
		if err := c.Do(Command{Kind: cmdSeek, Frame: f}); err != nil {
			t.Fatal(err)
		}
		if got := c.Status().Frame; got != f {
			t.Fatalf("seek %d: frame %d", f, got)
		}
		views := c.rec.replay.views
		if len(views) != len(want) {
			t.Fatalf("frame %d: %d entities replayed, %d live", f, len(views), len(want))
		}
		for _, v := range views {
			if p, ok := want[v.ID]; !ok || p != v.Pos {
				t.Fatalf("frame %d entity %d: replayed at %v, live %v (%v)", f, v.ID, v.Pos, p, ok)
			}
		}
		checked++
	}
	if checked < 10 {
		t.Fatalf("only %d frames compared", checked)
	}
}
