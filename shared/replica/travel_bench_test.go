package replica_test

import (
	"testing"
	"time"

	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/replication/replicationtest"
)

// BenchmarkRegionChange: what a region change costs the client. "load" is the first
// one (or one with new tables): the tables loaded and verified (which builds the
// navmesh of every region a portal leads to), then the region's game; "travel"
// reuses the loaded world and builds only the new region's game.
func BenchmarkRegionChange(b *testing.B) {
	srv, err := replicationtest.NewServer(&replicationtest.Options{NoPopulation: true})
	if err != nil {
		b.Fatal(err)
	}
	_, login, err := srv.Login("bench", 0)
	if err != nil {
		b.Fatal(err)
	}
	first := login[1].(*pb.NetMessageRegionChange)
	rc := func(region int32) *pb.NetMessageRegionChange {
		return &pb.NetMessageRegionChange{RegionId: region, Tables: first.GetTables(), TablesHash: first.GetTablesHash(), ServerFrame: 1}
	}
	for _, tc := range []struct {
		name  string
		fresh bool
	}{{"load", true}, {"travel", false}} {
		b.Run(tc.name, func(b *testing.B) {
			msgs := []*pb.NetMessageRegionChange{rc(0), rc(1), rc(2)}
			r := replica.New(nil)
			r.Receive(0, &pb.NetMessageServerFrame{Frame: 1}, msgs[0])
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if tc.fresh {
					r = replica.New(nil)
				}
				r.Receive(time.Duration(i), msgs[1+i%2])
			}
			b.StopTimer()
			if r.ResyncReason() != nil {
				b.Fatal(r.ResyncReason())
			}
		})
	}
}
