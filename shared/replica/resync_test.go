package replica_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/replication"
	"github.com/twinframe/twinframe/shared/replication/replicationtest"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
	"google.golang.org/protobuf/proto"
)

// TestResync: inconsistent server data makes exactly one resync request however
// much more follows; the scripted server's answer (region change, then creates of
// what is in view) gives a replica that holds exactly what the server says the
// client holds, and prediction goes on exact.
func TestResync(t *testing.T) {
	t.Parallel()
	bad := map[string]func(l *link) []proto.Message{
		"destroy of an unknown entity": func(*link) []proto.Message {
			return []proto.Message{&pb.NetMessageEntityDestroy{EntityId: 987654}}
		},
		"update before create": func(l *link) []proto.Message {
			b, err := replication.PackLocomotion(&locomotion.State{Entity: 987654, Frame: l.r.ServerFrame(),
				Fields: locomotion.Relative | locomotion.HasPosition})
			if err != nil {
				t.Fatal(err)
			}
			return []proto.Message{&pb.NetMessageLocomotionStateUpdate{ArchiveData: b}}
		},
		"hash mismatch": func(l *link) []proto.Message {
			return []proto.Message{&pb.NetMessageRegionChange{Tables: l.srv.Tables(), TablesHash: make([]byte, 32)}}
		},
	}
	want := map[string]pb.ResyncReason{
		"destroy of an unknown entity": pb.ResyncReason_RESYNC_REASON_UNKNOWN_ENTITY,
		"update before create":         pb.ResyncReason_RESYNC_REASON_UNKNOWN_ENTITY,
		"hash mismatch":                pb.ResyncReason_RESYNC_REASON_HASH_MISMATCH,
	}
	for _, name := range []string{"destroy of an unknown entity", "update before create", "hash mismatch"} {
		for _, lat := range []int64{0, 6} {
			t.Run(fmt.Sprintf("%s/latency=%d", name, lat), func(t *testing.T) {
				t.Parallel()
				l := newLink(t, &replicationtest.Options{Seed: 3, NoPopulation: true}, nil, lat, lat)
				walk(t, l, 5, 60)
				if l.r.TakeResyncRequest() != nil {
					t.Fatal("a resync request before any inconsistency")
				}
				// Inconsistent data, twice: one request.
				var reqs []*pb.NetMessageResyncRequest
				for range 2 {
					l.r.Receive(l.now(), bad[name](l)...)
					if m := l.r.TakeResyncRequest(); m != nil {
						reqs = append(reqs, m)
						l.send(m)
					}
					l.run(t, 1, nil)
				}
				if len(reqs) != 1 || reqs[0].GetReason() != want[name] || reqs[0].GetDetail() == "" {
					t.Fatalf("requests %v, want one with reason %v", reqs, want[name])
				}
				// The answer arrives; the client walks on.
				walk(t, l, 6, 100)
				if err := l.r.ResyncReason(); err != nil {
					t.Fatalf("still inconsistent after the resync: %v", err)
				}
				if m := l.r.TakeResyncRequest(); m != nil {
					t.Fatalf("a second request: %v", m)
				}
				st := l.r.Stats()
				if l.c.Resyncs != 1 || st.ResyncRequests != 1 || st.Resyncs != 1 {
					t.Fatalf("server answered %d, replica requested %d and resynced %d; want 1 each", l.c.Resyncs, st.ResyncRequests, st.Resyncs)
				}
				if lat == 0 {
					if got := l.r.IDs(nil); !slices.Equal(got, l.c.Visible()) {
						t.Errorf("replica holds %v, server says %v", got, l.c.Visible())
					}
				}
				if !l.r.Ready() {
					t.Error("no avatar after the resync")
				}
				// The avatar created mid-walk walks on from the wire's quantized state
				// (as after a correction): within a quantum or so of the server's, and
				// back on it exactly once it rests.
				stop, err := l.r.Stop(l.now())
				if err != nil {
					t.Fatal(err)
				}
				l.send(stop)
				l.run(t, 30*ticksPerFrame, nil)
				d := l.r.Drift()
				t.Logf("stats %+v; drift %+v", st, d)
				if lat == 0 && d.MaxPosError > 0.25 {
					t.Errorf("prediction off by %.3f m without latency", d.MaxPosError)
				}
				if log := l.r.DriftLog(nil); len(log) == 0 {
					t.Error("no frame compared")
				} else if last := log[len(log)-1]; last.Fields != 0 {
					t.Errorf("the resting avatar is not on the server's state: %v", last)
				}
			})
		}
	}
}

func TestResyncCode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want pb.ResyncReason
	}{
		{nil, pb.ResyncReason_RESYNC_REASON_UNSPECIFIED},
		{&replica.Error{Err: replica.ErrUnknownEntity}, pb.ResyncReason_RESYNC_REASON_UNKNOWN_ENTITY},
		{&replica.Error{Err: replica.ErrDuplicate}, pb.ResyncReason_RESYNC_REASON_DUPLICATE},
		{&replica.Error{Err: replica.ErrHashMismatch}, pb.ResyncReason_RESYNC_REASON_HASH_MISMATCH},
		{&replica.Error{Err: replica.ErrBadTables}, pb.ResyncReason_RESYNC_REASON_BAD_TABLES},
		{&replica.Error{Err: replica.ErrNoRegion}, pb.ResyncReason_RESYNC_REASON_NO_REGION},
		{&replica.Error{Err: replica.ErrBadArchive}, pb.ResyncReason_RESYNC_REASON_BAD_ARCHIVE},
		{&replica.Error{Err: replica.ErrUnexpectedType}, pb.ResyncReason_RESYNC_REASON_OTHER},
		{errors.New("x"), pb.ResyncReason_RESYNC_REASON_OTHER},
	} {
		if got := replica.ResyncCode(tc.err); got != tc.want {
			t.Errorf("ResyncCode(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
