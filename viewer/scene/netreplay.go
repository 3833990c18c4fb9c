package scene

import (
	"errors"
	"fmt"
	"slices"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
	"google.golang.org/protobuf/proto"
)

// Caps on the recording of a networked session: 5 minutes at 20 Hz, and as many
// messages as 5 minutes with about 40 entities moving in view (tens of MB decoded).
// Replaying needs the recording from the login on, so past a cap it stops rather
// than drops its start.
const (
	MaxRecordedFrames   = 6000
	MaxRecordedMessages = 250_000
)

// netRecording is a networked session as it was received: the messages of every
// packet from the login on, grouped by the server frame that starts each packet.
// The replica is a deterministic function of them, so feeding them to a fresh
// replica rebuilds the authoritative state at any recorded frame. The reader
// goroutine appends (under Network.mu); the viewer's goroutine takes a copy of the
// packet headers and reads the messages, which are never changed once received.
type netRecording struct {
	gen     int // a new connection starts a new recording
	packets []recPacket
	msgs    int
	full    bool
}

type recPacket struct {
	frame uint64 // the packet's NetMessageServerFrame (0: the login packet)
	msgs  []proto.Message
}

// record appends a message the reader received (Network.mu held).
func (r *netRecording) record(m proto.Message) {
	switch m.(type) {
	case *pb.NetMessageXDumpResponse, *pb.NetMessageLiveEditResponse, *pb.NetMessagePong,
		*pb.NetMessageServerFrameStats, *pb.NetMessageError:
		return // answers and figures: not the world's state
	}
	if sf, ok := m.(*pb.NetMessageServerFrame); ok {
		if len(r.packets) >= MaxRecordedFrames || r.msgs >= MaxRecordedMessages {
			r.full = true
			return
		}
		r.packets = append(r.packets, recPacket{frame: sf.Frame})
	} else if r.full {
		return
	}
	if len(r.packets) == 0 {
		r.packets = append(r.packets, recPacket{})
	}
	p := &r.packets[len(r.packets)-1]
	p.msgs = append(p.msgs, m)
	r.msgs++
}

// restart starts a new recording (a new connection: a new login, a new session).
func (r *netRecording) restart() {
	r.gen++
	r.packets, r.msgs, r.full = nil, 0, false
}

// span returns the first and last recorded server frames.
func (r *netRecording) span() (first, last uint64) {
	for _, p := range r.packets {
		if p.frame != 0 {
			first = p.frame
			break
		}
	}
	if n := len(r.packets); n > 0 {
		last = r.packets[n-1].frame
	}
	return first, last
}

// netReplay is the replay of a recording: a replica fed up to a recorded frame.
type netReplay struct {
	gen   int
	rep   *replica.Replica
	next  int    // the next packet to feed
	frame uint64 // the frame shown
	draw  *pb.NetMessageDebugDraw
	views []replica.View
}

// ErrNothingRecorded is returned by a seek before any server frame was received.
var ErrNothingRecorded = errors.New("scene: nothing recorded yet")

// seek replays the recording to frame (clamped to the recorded span) and shows it.
func (n *Network) seek(frame uint64) error {
	n.mu.Lock()
	gen, packets := n.rec.gen, slices.Clone(n.rec.packets)
	first, last := n.rec.span()
	n.mu.Unlock()
	if first == 0 {
		return ErrNothingRecorded
	}
	frame = min(max(frame, first), last)
	p := n.replay
	if p == nil || p.gen != gen || p.frame > frame {
		p = &netReplay{gen: gen, rep: replica.New(nil)}
	}
	for p.next < len(packets) && packets[p.next].frame <= frame {
		pk := packets[p.next]
		p.rep.Receive(0, pk.msgs...)
		for _, m := range pk.msgs {
			if dd, ok := m.(*pb.NetMessageDebugDraw); ok {
				p.draw = dd
			}
		}
		p.next++
	}
	p.frame = p.rep.ServerFrame() // below frame only where the server skipped frames
	p.views = replayViews(p.rep, p.views[:0])
	n.replay = p
	n.addLog(frame, fmt.Sprintf("replaying frame %d of %d–%d", frame, first, last))
	return nil
}

// stepReplay shows the next recorded frame after the one shown.
func (n *Network) stepReplay() error {
	n.mu.Lock()
	next := uint64(0)
	for _, p := range n.rec.packets {
		if p.frame > n.replay.frame {
			next = p.frame
			break
		}
	}
	n.mu.Unlock()
	if next == 0 {
		return nil // at the end of the recording
	}
	return n.seek(next)
}

// replayViews appends the replica's entities at their authoritative state: a replay
// shows what the server sent, not a prediction or an interpolation of it.
func replayViews(r *replica.Replica, dst []replica.View) []replica.View {
	dst = r.View(0, dst)
	for i := range dst {
		v := &dst[i]
		v.Pos, v.Yaw = mgl32.Vec2{v.Server.Position[0], v.Server.Position[1]}, v.Server.Yaw
		v.Moving = v.Server.Fields&locomotion.Moving != 0
		v.Extrapolated, v.Held = false, false
	}
	return dst
}

// replayStatus is the status while replaying: the live connection's, with the
// replayed frame, entities and avatar.
func (n *Network) replayStatus(live Status) Status {
	p := n.replay
	st := live
	st.Replaying, st.Paused = true, true
	st.Frame, st.Entities, st.AvatarID = p.frame, p.rep.Len(), p.rep.Player()
	st.Avatar, st.AvatarServer, st.Moving = [2]float32{}, [2]float32{}, false
	for _, v := range p.views {
		if v.ID == st.AvatarID {
			st.Avatar = [2]float32{v.Pos[0], v.Pos[1]}
			st.AvatarServer, st.Moving = st.Avatar, v.Moving
		}
	}
	return st
}
