package replication

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/sim"
	"google.golang.org/protobuf/proto"
)

// Input is a client's input as the server schedules it: the simulation input its
// message stands for, the client's sequence number, the client frame it is stamped
// with (the frame the client predicted it at) and the server frame it is due at.
type Input struct {
	Seq   uint32
	Stamp uint64
	Due   uint64
	Sim   sim.Input // Entity is set when the input is applied
}

// DecodeInput returns the input a client message stands for, and false when m is
// not an input (MoveTo, Stop, Fire). A MoveTo becomes sim.CmdMoveAlongPath: the
// server and the client's prediction both take the command from here, so they
// cannot disagree.
func DecodeInput(m proto.Message) (Input, bool) {
	switch m := m.(type) {
	case *pb.NetMessageMoveTo:
		return Input{Seq: m.GetInputSeq(), Stamp: m.GetClientFrame(), Sim: sim.Input{Command: sim.CmdMoveAlongPath,
			Point: point(m.GetTarget()), ClientFrame: m.GetClientFrame()}}, true
	case *pb.NetMessageStop:
		return Input{Seq: m.GetInputSeq(), Stamp: m.GetClientFrame(), Sim: sim.Input{Command: sim.CmdStop,
			ClientFrame: m.GetClientFrame()}}, true
	case *pb.NetMessageFire:
		return Input{Seq: m.GetInputSeq(), Stamp: m.GetClientFrame(), Sim: sim.Input{Command: sim.CmdFire,
			Point: point(m.GetTarget()), ClientFrame: m.GetClientFrame()}}, true
	}
	return Input{}, false
}

func point(p *pb.NetStructPoint3) mgl32.Vec2 { return mgl32.Vec2{p.GetX(), p.GetY()} }

// MoveTo is the message of a client's move-to input number seq, stamped with the
// client frame it is predicted at.
func MoveTo(seq uint32, stamp uint64, target mgl32.Vec2) *pb.NetMessageMoveTo {
	return &pb.NetMessageMoveTo{InputSeq: seq, ClientFrame: stamp, Target: &pb.NetStructPoint3{X: target[0], Y: target[1]}}
}

// Stop is the message of a client's stop input.
func Stop(seq uint32, stamp uint64) *pb.NetMessageStop {
	return &pb.NetMessageStop{InputSeq: seq, ClientFrame: stamp}
}

// Fire is the message of a client's fire input: a bolt at target.
func Fire(seq uint32, stamp uint64, target mgl32.Vec2) *pb.NetMessageFire {
	return &pb.NetMessageFire{InputSeq: seq, ClientFrame: stamp, Target: &pb.NetStructPoint3{X: target[0], Y: target[1]}}
}

// ErrOutOfSequence is returned by Inputs.Queue for an input whose sequence number
// is not above every one queued or applied: a client's inputs are numbered 1, 2, 3 ...
// and a repeat or a step back is refused rather than applied twice.
var ErrOutOfSequence = errors.New("input out of sequence")

// Inputs is one client's queue of scheduled inputs and the last one applied (the
// ack every frame packet carries). The zero value is empty.
type Inputs struct {
	ack     uint32
	pending []Input // ascending Seq
	// applied maps the inputs the last Apply enqueued to their places in the
	// game's queue, for Rejected.
	applied []queuedInput
}

// queuedInput is an input Apply enqueued: its number and its sim.Rejected Index.
type queuedInput struct {
	seq   uint32
	index int
}

// Queue schedules in for the frame it is stamped with, but never before next (the
// next frame to step: a late input applies as soon as it can) and never more than
// maxLead frames after it (a client cannot book the far future).
func (q *Inputs) Queue(in Input, next, maxLead uint64) error {
	if !q.InSequence(in.Seq) {
		return fmt.Errorf("input %d: %w", in.Seq, ErrOutOfSequence)
	}
	in.Due = min(max(in.Stamp, next), next+maxLead)
	q.pending = append(q.pending, in)
	return nil
}

// InSequence reports whether seq is above every input queued or applied.
func (q *Inputs) InSequence(seq uint32) bool {
	return seq > q.ack && (len(q.pending) == 0 || seq > q.pending[len(q.pending)-1].Seq)
}

// Resume continues the numbering of another queue, whose client this one
// replaces: inputs up to ack count as applied, and nothing is pending.
func (q *Inputs) Resume(ack uint32) {
	q.ack = ack
	clear(q.pending)
	q.pending = q.pending[:0]
}

// DropPending drops the inputs not yet applied and acknowledges their numbers, as
// when the avatar changes region: a move aimed in the old region means nothing in
// the new one, and the client, which starts its prediction afresh there, must not
// replay it.
func (q *Inputs) DropPending() {
	if n := len(q.pending); n > 0 {
		q.ack = max(q.ack, q.pending[n-1].Seq)
	}
	clear(q.pending)
	q.pending = q.pending[:0]
}

// Pending returns how many inputs wait for their frame.
func (q *Inputs) Pending() int { return len(q.pending) }

// Ack returns the sequence number of the last input applied.
func (q *Inputs) Ack() uint32 { return q.ack }

// Apply enqueues into g, for avatar, every input due at frame f or earlier, in
// sequence order, and acknowledges them. done, when not nil, is called for each with
// the error sim.Game.Enqueue gave (nil when it took the input).
func (q *Inputs) Apply(g *sim.Game, avatar sim.EntityID, f uint64, done func(in *Input, err error)) {
	q.applied = q.applied[:0]
	n := 0
	for _, in := range q.pending {
		if in.Due > f {
			q.pending[n] = in
			n++
			continue
		}
		in.Sim.Entity = avatar
		err := g.Enqueue(in.Sim)
		if err == nil {
			q.applied = append(q.applied, queuedInput{in.Seq, g.QueuedInputs() - 1})
		}
		if done != nil {
			done(&in, err)
		}
		q.ack = max(q.ack, in.Seq)
	}
	clear(q.pending[n:])
	q.pending = q.pending[:n]
}

// Rejected calls reject for each input of the last Apply that g's Step then
// rejected (a target it cannot reach, a fire within the cooldown), with the
// input's number and the reason, so that the client that sent it is told which
// one and why. Call it after that Step and before the next Apply.
func (q *Inputs) Rejected(g *sim.Game, reject func(seq uint32, err error)) {
	if len(q.applied) == 0 {
		return
	}
	for _, rj := range g.Rejected() {
		i, found := slices.BinarySearchFunc(q.applied, rj.Index, func(a queuedInput, index int) int { return cmp.Compare(a.index, index) })
		if found {
			reject(q.applied[i].seq, rj.Err)
		}
	}
	q.applied = q.applied[:0]
}
