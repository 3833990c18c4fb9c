package replica_test

import (
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/replication/replicationtest"
	"google.golang.org/protobuf/proto"
)

const frame = replica.FrameDuration

// link is a scripted network between the scripted server and one replica: each
// direction delays messages by a whole number of ticks; a tick is a quarter frame.
type link struct {
	srv    *replicationtest.Server
	c      *replicationtest.Client
	r      *replica.Replica
	tick   int64 // quarter frames since the start
	up     int64 // client→server delay in ticks
	down   int64 // server→client delay in ticks
	toSrv  []timed
	toCli  []timedPacket
	pingAt int64
}

type timed struct {
	at int64
	m  proto.Message
}

type timedPacket struct {
	at   int64
	msgs []proto.Message
}

const ticksPerFrame = 4

func (l *link) now() time.Duration { return time.Duration(l.tick) * frame / ticksPerFrame }

func newLink(t testing.TB, opt *replicationtest.Options, ropt *replica.Options, up, down int64) *link {
	t.Helper()
	srv, err := replicationtest.NewServer(opt)
	if err != nil {
		t.Fatal(err)
	}
	// Let the world settle a few frames before the client arrives.
	for range 5 {
		if err := srv.Step(); err != nil {
			t.Fatal(err)
		}
	}
	l := &link{srv: srv, r: replica.New(ropt), up: up, down: down, tick: 5 * ticksPerFrame}
	c, msgs, err := srv.Login("ada", 0)
	if err != nil {
		t.Fatal(err)
	}
	l.c = c
	l.toCli = append(l.toCli, timedPacket{l.tick + down, msgs})
	return l
}

// send queues a client message for the server.
func (l *link) send(m proto.Message) {
	if m == nil {
		return
	}
	l.toSrv = append(l.toSrv, timed{l.tick + l.up, m})
}

// run advances n ticks: the server steps on frame boundaries, messages arrive when
// due, the replica advances every tick and pings twice a second.
func (l *link) run(t testing.TB, n int, each func(l *link)) {
	t.Helper()
	for range n {
		l.tick++
		for len(l.toSrv) > 0 && l.toSrv[0].at <= l.tick {
			if err := l.srv.Receive(l.c, l.toSrv[0].m); err != nil {
				t.Fatal(err)
			}
			l.toSrv = l.toSrv[1:]
		}
		if l.tick%ticksPerFrame == 0 {
			if err := l.srv.Step(); err != nil {
				t.Fatal(err)
			}
			msgs, err := l.srv.Frame(l.c)
			if err != nil {
				t.Fatal(err)
			}
			l.toCli = append(l.toCli, timedPacket{l.tick + l.down, msgs})
		}
		for len(l.toCli) > 0 && l.toCli[0].at <= l.tick {
			l.r.Receive(l.now(), l.toCli[0].msgs...)
			l.toCli = l.toCli[1:]
		}
		l.r.Advance(l.now())
		if l.tick >= l.pingAt {
			l.send(l.r.Ping(l.now()))
			l.pingAt = l.tick + 10*ticksPerFrame
		}
		if each != nil {
			each(l)
		}
	}
}

func (l *link) moveTo(t testing.TB, p mgl32.Vec2) {
	t.Helper()
	m, err := l.r.MoveTo(l.now(), p)
	if err != nil {
		t.Fatal(err)
	}
	l.send(m)
}
