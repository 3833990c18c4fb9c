package scene

import (
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/debugdraw/debugdrawtest"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replica"
)

// A networked session is recorded as it is received and replays, frame by frame, to
// the authoritative positions the live replica held at each of those frames.
func TestNetworkRecordAndReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: real websocket and 20 Hz server; make test runs it")
	}
	srv := startServer(t)
	n := newNetwork(NetworkOptions{URL: srv.URL, Name: "replay-test", NoXdump: true})
	defer n.Close()
	start := time.Now()
	until(t, n, start, 15*time.Second, "connection", func(s Status) bool { return s.Connected && s.AvatarID != 0 && s.ServerFrame > 0 })
	if err := n.Do(Command{Kind: Resume}); err == nil && n.Status().Replaying {
		t.Fatal("resume started a replay")
	}

	// Live: what the replica holds at each server frame seen, while the avatar walks.
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
	// The client hands a packet to the recording (OnMessage) just after the replica
	// applied it, so a status taken in between sees the recording a frame behind.
	arrived := n.Status().ServerFrame
	until(t, n, start, 5*time.Second, "the recording to reach the live frame", func(s Status) bool { return s.Recorded >= arrived })
	if st = n.Status(); st.RecordedFrom == 0 || st.RecordedFrom > arrived-20 {
		t.Fatalf("recorded %d–%d at server frame %d", st.RecordedFrom, st.Recorded, arrived)
	}

	// Replay: every sampled frame, in a shuffled order (forward and back), to the same
	// entities at the same positions.
	var frames []uint64
	for f := range live {
		frames = append(frames, f)
	}
	if len(frames) < 10 {
		t.Fatalf("only %d live frames sampled", len(frames))
	}
	moved, corridors := 0, 0
	for i, f := range frames {
		if err := n.Do(Command{Kind: cmdSeek, Frame: f}); err != nil {
			t.Fatal(err)
		}
		n.Update(time.Since(start))
		s := n.Status()
		if !s.Replaying || s.Frame != f || !s.Connected {
			t.Fatalf("seek %d: status %+v", f, s)
		}
		views := n.shown()
		if len(views) != len(live[f]) {
			t.Fatalf("frame %d: %d entities replayed, %d live", f, len(views), len(live[f]))
		}
		for _, v := range views {
			if want, ok := live[f][v.ID]; !ok || v.Pos != want {
				t.Fatalf("frame %d: entity %d replayed at %v, live %v (%v)", f, v.ID, v.Pos, want, ok)
			}
		}
		if a := live[f][s.AvatarID]; s.Avatar != [2]float32{a[0], a[1]} {
			t.Errorf("frame %d: status avatar %v, live %v", f, s.Avatar, a)
		}
		if i > 0 && live[f][s.AvatarID] != live[frames[0]][s.AvatarID] {
			moved++
		}
		if s.Moving {
			var r debugdrawtest.Recorder
			n.Draw(&r, defaultOverlays|ovPaths, s.AvatarID)
			for _, c := range r.Calls {
				if c.Kind == debugdrawtest.Polygon && c.Color == colorCorridor {
					corridors++
					break
				}
			}
		}
	}
	if moved == 0 {
		t.Error("the avatar is at the same place in every sampled frame: the walk was not recorded")
	}
	if corridors == 0 {
		t.Error("no replayed walking frame drew the selected avatar's path corridor")
	}
	// Step goes one recorded frame on; Resume returns to the live state.
	if err := n.Do(Command{Kind: cmdSeek, Frame: st.RecordedFrom}); err != nil {
		t.Fatal(err)
	}
	n.Do(Command{Kind: Step})
	n.Update(time.Since(start))
	if s := n.Status(); s.Frame != st.RecordedFrom+1 || !s.Paused {
		t.Errorf("step from %d: frame %d, paused %v", st.RecordedFrom, s.Frame, s.Paused)
	}
	n.Do(Command{Kind: Resume})
	until(t, n, start, 5*time.Second, "the live state", func(s Status) bool { return !s.Replaying && s.Frame > st.Recorded })
	// A player's pause freezes the view at the newest recorded frame (frames keep
	// arriving and being recorded meanwhile: compare with what was recorded before).
	n.Update(time.Since(start))
	newest := n.Status().Recorded
	n.Do(Command{Kind: Pause})
	n.Update(time.Since(start))
	s := n.Status()
	if !s.Replaying || s.Frame < newest {
		t.Errorf("pause: replaying %v at %d, recorded up to %d before the pause", s.Replaying, s.Frame, newest)
	}
	time.Sleep(100 * time.Millisecond)
	n.Update(time.Since(start))
	if s2 := n.Status(); !s2.Replaying || s2.Frame != s.Frame {
		t.Errorf("paused view moved from frame %d to %d", s.Frame, s2.Frame)
	}
}

// The recording stops at its cap, keeping its start, and restarts with a connection.
func TestRecordingCap(t *testing.T) {
	t.Parallel()
	var r netRecording
	r.record(&pb.NetMessageLoginResult{PlayerEntityId: 1})
	for f := uint64(1); f <= maxRecordedFrames+10; f++ {
		r.record(&pb.NetMessageServerFrame{Frame: f})
		r.record(&pb.NetMessageEntityDestroy{EntityId: f})
		r.record(&pb.NetMessagePong{}) // not the world's state: not recorded
	}
	first, last := r.span()
	if !r.full || first != 1 || last != maxRecordedFrames-1 || len(r.packets) != maxRecordedFrames {
		t.Errorf("full %v, frames %d–%d in %d packets", r.full, first, last, len(r.packets))
	}
	if n := len(r.packets[1].msgs); n != 2 {
		t.Errorf("frame 1 recorded %d messages, want the frame and the destroy", n)
	}
	gen := r.gen
	r.restart()
	if r.gen == gen || len(r.packets) != 0 || r.full || r.msgs != 0 {
		t.Errorf("restart: %+v", r)
	}
}
