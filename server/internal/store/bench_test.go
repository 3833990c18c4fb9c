package store

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkSaves: saves per second of each store on one workload: batches of
// avatars (the game server's autosave writes a batch each period; a batch of 1
// is a lone save at logout), each avatar 2 KiB (a Database-mode archive of an
// avatar with its inventory is about that), every commit durable (SQLite
// synchronous=FULL, PostgreSQL fsync on).
func BenchmarkSaves(b *testing.B) {
	for _, bk := range backends {
		for _, batch := range []int{1, 64} {
			b.Run(fmt.Sprintf("%s/batch=%d", bk.name, batch), func(b *testing.B) {
				ctx := context.Background()
				s := open(b, bk.fresh(b))
				saves := make([]Save, batch)
				for i := range saves {
					p, _, err := s.Login(ctx, fmt.Sprintf("bench%03d", i))
					if err != nil {
						b.Fatal(err)
					}
					avatar := make([]byte, 2048)
					for k := range avatar {
						avatar[k] = byte(k*31 + i)
					}
					saves[i] = Save{PlayerID: p.ID, Avatar: avatar}
				}
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					for j := range saves {
						saves[j].Frame = uint64(i)
					}
					if err := s.SaveAll(ctx, saves); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "saves/s")
			})
		}
	}
}
