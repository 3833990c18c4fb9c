package scene

import (
	"testing"

	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replication/replicationtest"
)

// recordScripted records frames frames of a session with the scripted server (the
// default world with its NPCs), the avatar walking to the spawn points in turn.
func recordScripted(b *testing.B, frames int) *network {
	b.Helper()
	s, err := replicationtest.NewServer(&replicationtest.Options{Seed: 3})
	if err != nil {
		b.Fatal(err)
	}
	c, msgs, err := s.Login("bench", 0)
	if err != nil {
		b.Fatal(err)
	}
	n := newNetwork(NetworkOptions{})
	n.rec.restart()
	for _, m := range msgs {
		n.rec.record(m)
	}
	pts := s.Game.Regions()[0].SpawnPoints()
	for f := range frames {
		if f%100 == 0 && len(pts) > 0 {
			p := pts[(f/100)%len(pts)]
			if err := s.Receive(c, &pb.NetMessageMoveTo{InputSeq: uint32(f/100 + 1), ClientFrame: s.Game.Frame() + 1,
				Target: &pb.NetStructPoint3{X: p[0], Y: p[1]}}); err != nil {
				b.Fatal(err)
			}
		}
		if err := s.Step(); err != nil {
			b.Fatal(err)
		}
		msgs, err := s.Frame(c)
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range msgs {
			n.rec.record(m)
		}
	}
	return n
}

// BenchmarkReplaySeek1200Frames seeks a minute of recorded session from scratch (a
// fresh replica fed every packet up to the frame): the worst case, a seek backwards.
// Seeking forward from the frame shown feeds only the packets between. The baseline,
// first, seeks to the first recorded frame: the region change (tables, navmesh) and
// the first creates, the fixed cost of every seek from scratch.
func BenchmarkReplaySeek1200Frames(b *testing.B) {
	n := recordScripted(b, 1200)
	first, last := n.rec.rec.span()
	for _, bc := range []struct {
		name  string
		frame uint64
	}{{"first", first}, {"last", last}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				n.rec.replay = nil
				if err := n.rec.seek(bc.frame, &n.log); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n.rec.replay.rep.Len()), "entities")
		})
	}
}
