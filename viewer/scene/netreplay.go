package scene

import (
	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
)

// netReplay is the replay of a recording: a replica fed up to a recorded frame.
type netReplay struct {
	gen   int
	rep   *replica.Replica
	next  int    // the next packet to feed
	frame uint64 // the frame shown
	draw  *pb.NetMessageDebugDraw
	views []replica.View
}

// feed feeds the replica the packets up to frame, and takes the replica's entities
// and the server's debug draw as of then.
func (p *netReplay) feed(packets []recPacket, frame uint64) {
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

// status is the status while replaying: the live connection's, with the replayed
// frame, entities and avatar.
func (p *netReplay) status(live Status) Status {
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
