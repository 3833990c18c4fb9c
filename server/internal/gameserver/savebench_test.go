package gameserver

import (
	"context"
	"fmt"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/server/internal/store"
)

// saveBenchServer is a loop-less server with n joined, socket-free sessions whose
// players exist in its store, their avatars on a 2 m grid round the first spawn
// point (cells without a walkable spot skipped).
func saveBenchServer(b *testing.B, n int) *Server {
	s := benchServer(b, nil)
	center := s.hub().Region(s.hubID()).SpawnPoints()[0]
	for i, k := 0, 0; i < n; k++ {
		if k > 100*n {
			b.Fatalf("placed %d of %d avatars", i, n)
		}
		at := center.Add(mgl32.Vec2{2 * float32(k%100-50), 2 * float32(k/100-50)})
		id, err := s.hub().Spawn(AvatarPrototype, s.hubID(), at, 0)
		if err != nil {
			continue
		}
		p, _, err := s.cfg.Store.Login(context.Background(), fmt.Sprintf("bench%04d", i))
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		b.Cleanup(cancel)
		c := &session{id: s.nextID.Add(1), srv: s, ctx: ctx, cancel: cancel, name: p.Name, playerID: p.ID, joined: true, avatar: id,
			reg: s.regions[0]}
		s.sessions = append(s.sessions, c)
		s.autosave.add(c)
		i++
	}
	return s
}

// BenchmarkSaveDirty: one transaction saving N changed avatars (real archives) to
// SQLite on disk (WAL, synchronous=FULL): the saver's cost per batch.
func BenchmarkSaveDirty(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		b.Run(fmt.Sprintf("avatars=%d", n), func(b *testing.B) {
			s := saveBenchServer(b, n)
			batch := make([]store.Save, 0, n)
			size := 0
			for _, c := range s.sessions {
				sv, ok := s.packAvatar(c)
				if !ok {
					b.Fatalf("%s: the avatar did not pack", c.name)
				}
				batch = append(batch, sv)
				size += len(sv.Avatar)
			}
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				for j := range batch {
					batch[j].Frame = uint64(i)
				}
				if err := s.cfg.Store.SaveAll(ctx, batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/avatar")
			b.ReportMetric(float64(size)/float64(n), "B/archive")
		})
	}
}

// BenchmarkAutosaveFrame: the frame loop's share of periodic saving with 1000
// online avatars. spread is one frame of autosaveStep at the defaults (50 ms
// frames, SaveEvery 30 s: 1000/600 avatars packed per frame and compared with
// their last save); all-at-once is the frame that packed every avatar each
// period before.
func BenchmarkAutosaveFrame(b *testing.B) {
	const n = 1000
	b.Run("spread", func(b *testing.B) {
		s := saveBenchServer(b, n)
		s.autosaveStep(s.cfg.SaveEvery) // first round: every avatar saved once
		packed := 0
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			s.autosaveStep(s.cfg.Period)
			packed += s.autosave.packed
		}
		b.ReportMetric(float64(packed)/float64(b.N), "packed/frame")
	})
	b.Run("all-at-once", func(b *testing.B) {
		s := saveBenchServer(b, n)
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			for _, c := range s.sessions {
				if sv, ok := s.packAvatar(c); ok {
					s.saver.queue(sv)
				}
			}
		}
		b.ReportMetric(n, "packed/frame")
	})
}
