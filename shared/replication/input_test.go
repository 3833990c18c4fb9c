package replication_test

import (
	"errors"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replication"
	"github.com/twinframe/twinframe/shared/sim"
	"google.golang.org/protobuf/proto"
)

// TestDecodeInput: each input message becomes the simulation input the client
// predicts, and what is not an input is not decoded.
func TestDecodeInput(t *testing.T) {
	t.Parallel()
	target := mgl32.Vec2{12.5, -3}
	for _, tc := range []struct {
		m    proto.Message
		want replication.Input
		ok   bool
	}{
		{replication.MoveTo(3, 40, target), replication.Input{Seq: 3, Stamp: 40,
			Sim: sim.Input{Command: sim.CmdMoveAlongPath, Point: target, ClientFrame: 40}}, true},
		{replication.Stop(4, 41), replication.Input{Seq: 4, Stamp: 41,
			Sim: sim.Input{Command: sim.CmdStop, ClientFrame: 41}}, true},
		{replication.Fire(5, 42, target), replication.Input{Seq: 5, Stamp: 42,
			Sim: sim.Input{Command: sim.CmdFire, Point: target, ClientFrame: 42}}, true},
		{&pb.NetMessageMoveTo{InputSeq: 6}, replication.Input{Seq: 6, Sim: sim.Input{Command: sim.CmdMoveAlongPath}}, true}, // no target: the origin
		{&pb.NetMessagePing{}, replication.Input{}, false},
		{&pb.NetMessageResyncRequest{}, replication.Input{}, false},
	} {
		got, ok := replication.DecodeInput(tc.m)
		if ok != tc.ok || got != tc.want {
			t.Errorf("%T: %+v, %v; want %+v, %v", tc.m, got, ok, tc.want, tc.ok)
		}
	}
}

// TestInputsSchedule: inputs apply at their stamped frame, clamped to [next,
// next+lead]; out-of-sequence inputs are refused; Apply acknowledges in sequence
// order and keeps the inputs not yet due.
func TestInputsSchedule(t *testing.T) {
	t.Parallel()
	g := quietGame(t)
	av, err := g.Spawn(0, g.Regions()[0].ID(), g.Regions()[0].SpawnPoints()[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	var q replication.Inputs
	const next, lead = 10, 5
	for _, tc := range []struct {
		seq   uint32
		stamp uint64
		err   error
	}{
		{1, 3, nil},  // late: next
		{2, 12, nil}, // on time
		{3, 99, nil}, // too far ahead: next+lead
		{3, 12, replication.ErrOutOfSequence},
		{2, 12, replication.ErrOutOfSequence},
	} {
		in, _ := replication.DecodeInput(replication.Stop(tc.seq, tc.stamp))
		if err := q.Queue(in, next, lead); !errors.Is(err, tc.err) {
			t.Errorf("queue %d@%d: %v, want %v", tc.seq, tc.stamp, err, tc.err)
		}
	}
	if q.Pending() != 3 {
		t.Fatalf("%d pending, want 3", q.Pending())
	}
	type applied struct {
		seq uint32
		due uint64
	}
	var got []applied
	for f := uint64(next); f <= next+lead; f++ {
		q.Apply(g, av, f, func(in *replication.Input, err error) {
			if err != nil {
				t.Errorf("input %d: %v", in.Seq, err)
			}
			if in.Sim.Entity != av {
				t.Errorf("input %d for entity %d, want the avatar %d", in.Seq, in.Sim.Entity, av)
			}
			got = append(got, applied{in.Seq, f})
		})
		if err := g.Step(); err != nil {
			t.Fatal(err)
		}
	}
	want := []applied{{1, next}, {2, 12}, {3, next + lead}}
	if len(got) != len(want) {
		t.Fatalf("applied %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("applied %v, want %v", got, want)
		}
	}
	if q.Ack() != 3 || q.Pending() != 0 {
		t.Errorf("ack %d, %d pending; want 3, 0", q.Ack(), q.Pending())
	}
	in, _ := replication.DecodeInput(replication.Stop(3, 20))
	if err := q.Queue(in, 20, lead); !errors.Is(err, replication.ErrOutOfSequence) {
		t.Errorf("an input already applied: %v", err)
	}
	for _, seq := range []uint32{4, 5} {
		in, _ := replication.DecodeInput(replication.Stop(seq, 90))
		if err := q.Queue(in, 20, lead); err != nil {
			t.Fatal(err)
		}
	}
	q.DropPending()
	if q.Ack() != 5 || q.Pending() != 0 || q.InSequence(5) || !q.InSequence(6) {
		t.Errorf("after DropPending: ack %d, %d pending; want 5, 0 and 6 next", q.Ack(), q.Pending())
	}
	q.Resume(7)
	if q.InSequence(7) || !q.InSequence(8) {
		t.Error("Resume(7) must take 8 next and refuse 7")
	}
}

// TestInputsRejected: the inputs a Step rejects go back to the queue that applied
// them, by number, even when an equal input of the same frame was taken (the
// second of two identical fires meets the cooldown), and never to another queue.
func TestInputsRejected(t *testing.T) {
	t.Parallel()
	g := quietGame(t)
	r := g.Regions()[0]
	spawn := r.SpawnPoints()[0]
	var avatars [2]sim.EntityID
	for i := range avatars {
		id, err := g.Spawn(0, r.ID(), spawn, 0)
		if err != nil {
			t.Fatal(err)
		}
		avatars[i] = id
	}
	target := spawn.Add(mgl32.Vec2{6, 1})
	var queues [2]replication.Inputs
	queue := func(q *replication.Inputs, m proto.Message) {
		in, _ := replication.DecodeInput(m)
		if err := q.Queue(in, g.Frame()+1, 5); err != nil {
			t.Fatal(err)
		}
	}
	queue(&queues[0], replication.Fire(1, 0, target))
	queue(&queues[0], replication.Fire(2, 0, target)) // the same fire again: cooldown
	queue(&queues[0], replication.Stop(3, 0))
	queue(&queues[1], replication.Fire(7, 0, target))
	type rejection struct {
		queue int
		seq   uint32
		err   error
	}
	var got []rejection
	for step := range 2 {
		for i := range queues {
			queues[i].Apply(g, avatars[i], g.Frame()+1, nil)
		}
		if err := g.Step(); err != nil {
			t.Fatal(err)
		}
		for i := range queues {
			queues[i].Rejected(g, func(seq uint32, err error) { got = append(got, rejection{i, seq, err}) })
		}
		if step == 0 && len(g.Rejected()) != 1 {
			t.Fatalf("the game rejected %d inputs, want the second fire only", len(g.Rejected()))
		}
	}
	if len(got) != 1 || got[0].queue != 0 || got[0].seq != 2 || !errors.Is(got[0].err, sim.ErrCooldown) {
		t.Errorf("rejections %+v; want input 2 of the first queue, for the cooldown", got)
	}
}
