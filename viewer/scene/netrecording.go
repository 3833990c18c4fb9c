package scene

import (
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"google.golang.org/protobuf/proto"
)

// Caps on the recording of a networked session: 5 minutes at 20 Hz, and as many
// messages as 5 minutes with about 40 entities moving in view (tens of MB decoded).
// Replaying needs the recording from the login on, so past a cap it stops rather
// than drops its start.
const (
	maxRecordedFrames   = 6000
	maxRecordedMessages = 250_000
)

// netRecording is a networked session as it was received: the messages of every
// packet from the login on, grouped by the server frame that starts each packet.
// The replica is a deterministic function of them, so feeding them to a fresh
// replica rebuilds the authoritative state at any recorded frame. The reader
// goroutine appends (under recorder.mu); the viewer's goroutine takes a copy of the
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

// record appends a message the reader received (recorder.mu held).
func (r *netRecording) record(m proto.Message) {
	switch m.(type) {
	case *pb.NetMessageXDumpResponse, *pb.NetMessageLiveEditResponse, *pb.NetMessagePong,
		*pb.NetMessageServerFrameStats, *pb.NetMessageError:
		return // answers and figures: not the world's state
	}
	if sf, ok := m.(*pb.NetMessageServerFrame); ok {
		if len(r.packets) >= maxRecordedFrames || r.msgs >= maxRecordedMessages {
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
