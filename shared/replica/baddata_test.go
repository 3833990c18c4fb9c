package replica_test

import (
	"errors"
	"testing"
	"time"

	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/replication"
	"github.com/twinframe/twinframe/shared/replication/replicationtest"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
	"google.golang.org/protobuf/proto"
)

// loggedIn returns a scripted server and a replica that received its login, region
// change and first frame.
func loggedIn(t *testing.T) (*replicationtest.Server, *replicationtest.Client, *replica.Replica) {
	t.Helper()
	srv, err := replicationtest.NewServer(&replicationtest.Options{NoPopulation: true})
	if err != nil {
		t.Fatal(err)
	}
	c, msgs, err := srv.Login("ada", 1)
	if err != nil {
		t.Fatal(err)
	}
	r := replica.New(nil)
	r.Receive(0, msgs...)
	if err := srv.Step(); err != nil {
		t.Fatal(err)
	}
	frame, err := srv.Frame(c)
	if err != nil {
		t.Fatal(err)
	}
	r.Receive(replica.FrameDuration, frame...)
	if !r.Ready() || r.ResyncReason() != nil {
		t.Fatalf("ready %v, %v", r.Ready(), r.ResyncReason())
	}
	return srv, c, r
}

func TestInconsistentServerData(t *testing.T) {
	t.Parallel()
	update := func(id uint64) proto.Message {
		b, err := replication.PackLocomotion(&locomotion.State{Entity: id, Frame: 2, Fields: locomotion.Relative | locomotion.HasPosition})
		if err != nil {
			t.Fatal(err)
		}
		return &pb.NetMessageLocomotionStateUpdate{ArchiveData: b}
	}
	tests := []struct {
		name string
		msgs func(srv *replicationtest.Server, r *replica.Replica) []proto.Message
		want error
	}{
		{"destroy of an unknown entity", func(*replicationtest.Server, *replica.Replica) []proto.Message {
			return []proto.Message{&pb.NetMessageEntityDestroy{EntityId: 987654}}
		}, replica.ErrUnknownEntity},
		{"update before create", func(*replicationtest.Server, *replica.Replica) []proto.Message {
			return []proto.Message{update(987654)}
		}, replica.ErrUnknownEntity},
		{"garbage update", func(*replicationtest.Server, *replica.Replica) []proto.Message {
			return []proto.Message{&pb.NetMessageLocomotionStateUpdate{ArchiveData: []byte{0x01, 0xff, 0xff}}}
		}, replica.ErrBadArchive},
		{"garbage create", func(*replicationtest.Server, *replica.Replica) []proto.Message {
			return []proto.Message{&pb.NetMessageEntityCreate{ArchiveData: []byte{0x01, 0x05, 0x80}}}
		}, replica.ErrBadArchive},
		{"empty power result", func(*replicationtest.Server, *replica.Replica) []proto.Message {
			return []proto.Message{&pb.NetMessagePowerResult{}}
		}, replica.ErrBadArchive},
		{"tables hash mismatch", func(srv *replicationtest.Server, _ *replica.Replica) []proto.Message {
			bad := make([]byte, 32)
			return []proto.Message{&pb.NetMessageRegionChange{Tables: srv.Tables(), TablesHash: bad}}
		}, replica.ErrHashMismatch},
		{"tables that do not load", func(*replicationtest.Server, *replica.Replica) []proto.Message {
			files := []*pb.NetStructConfigFile{{Name: "10-region.config", Text: "config region\nid name\n x\n/config\n"}}
			rc := &pb.NetMessageRegionChange{Tables: files}
			sum := hashOf(files)
			rc.TablesHash = sum
			return []proto.Message{rc}
		}, replica.ErrBadTables},
		{"duplicate create", func(srv *replicationtest.Server, r *replica.Replica) []proto.Message {
			b, err := replication.PackEntity(srv.Game.Entity(srv.Clients()[0].Avatar), true)
			if err != nil {
				t.Fatal(err)
			}
			return []proto.Message{&pb.NetMessageEntityCreate{ArchiveData: b}}
		}, replica.ErrDuplicate},
		{"a client message", func(*replicationtest.Server, *replica.Replica) []proto.Message {
			return []proto.Message{&pb.NetMessageLogin{Name: "x"}}
		}, replica.ErrUnexpectedType},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, _, r := loggedIn(t)
			msgs := append([]proto.Message{&pb.NetMessageServerFrame{Frame: 2}}, tc.msgs(srv, r)...)
			r.Receive(2*replica.FrameDuration, msgs...)
			err := r.ResyncReason()
			if !errors.Is(err, tc.want) {
				t.Fatalf("resync reason %v, want %v", err, tc.want)
			}
			var re *replica.Error
			if !errors.As(err, &re) || re.Message == "" {
				t.Fatalf("%v is not a *replica.Error naming the message", err)
			}
			if r.Stats().Errors == 0 {
				t.Error("error not counted")
			}
			t.Log(err)
		})
	}
}

func TestLoginRefused(t *testing.T) {
	t.Parallel()
	r := replica.New(nil)
	r.Receive(0, &pb.NetMessageError{Code: pb.ErrorCode_ERROR_CODE_BAD_LOGIN, Text: "name taken"})
	if r.Player() != 0 || r.Stats().ServerErrors != 1 || r.Stats().LastServerErr == "" {
		t.Fatalf("player %d, stats %+v", r.Player(), r.Stats())
	}
	// Messages before any region are errors, not panics.
	r.Receive(0, &pb.NetMessageServerFrame{Frame: 1}, &pb.NetMessageEntityCreate{ArchiveData: []byte{1}})
	if !errors.Is(r.ResyncReason(), replica.ErrNoRegion) {
		t.Fatalf("create before region: %v", r.ResyncReason())
	}
}

// Packets that arrive out of order (an older frame after a newer one) are ignored and
// counted; the replica keeps following the newer frames.
func TestOutOfOrderPackets(t *testing.T) {
	t.Parallel()
	srv, c, r := loggedIn(t)
	m, err := r.MoveTo(replica.FrameDuration, srv.Game.Region(0).SpawnPoints()[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Receive(c, m); err != nil {
		t.Fatal(err)
	}
	var packets [][]proto.Message
	for range 40 {
		if err := srv.Step(); err != nil {
			t.Fatal(err)
		}
		p, err := srv.Frame(c)
		if err != nil {
			t.Fatal(err)
		}
		packets = append(packets, p)
	}
	// Swap frames 10 and 11, and deliver frame 20 twice.
	packets[10], packets[11] = packets[11], packets[10]
	packets = append(packets[:21], packets[20:]...)
	for i, p := range packets {
		now := replica.FrameDuration * time.Duration(2+i)
		r.Receive(now, p...)
		r.Advance(now)
	}
	st := r.Stats()
	if st.StalePackets != 2 || st.MissedFrames != 1 {
		t.Errorf("stale %d (want 2), missed %d (want 1)", st.StalePackets, st.MissedFrames)
	}
	if err := r.ResyncReason(); err != nil {
		t.Errorf("resync: %v", err)
	}
	own, _ := r.State(r.Player())
	if got, want := own.Position.Vec2(), srv.Game.Entity(c.Avatar).Pos(); got.Sub(want).Len() > 0.2 {
		t.Errorf("avatar at %v, server %v", got, want)
	}
}

func hashOf(files []*pb.NetStructConfigFile) []byte {
	sum := protocol.HashConfigFiles(files)
	return sum[:]
}
