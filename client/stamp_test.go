package client_test

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twinframe/twinframe/client"
	"github.com/twinframe/twinframe/client/netsim"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replica"
)

// A packet counts from when it was delivered, not from when the replica's lock was
// free: a pong that arrives while the viewer holds the lock to draw a frame does
// not add the frame's time to the round trip.
func TestReceiveStampsDelivery(t *testing.T) {
	t.Parallel()
	var clock atomic.Int64 // the client's clock, moved by hand
	cli, srv := netsim.Pipe()
	c, err := client.New(cli, &client.Options{Name: "stamp", Now: func() time.Duration { return time.Duration(clock.Load()) }})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	readPacket(t, srv) // the login

	const sent, delivered, drawn = 1 * time.Second, 1080 * time.Millisecond, 1180 * time.Millisecond
	var pkt protocol.Packet
	pkt.Reset(protocol.MuxGame, protocol.CommandData)
	if err := pkt.Append(&pb.NetMessagePong{ClientTimeMicros: uint64(sent / time.Microsecond), ServerFrame: 10}); err != nil {
		t.Fatal(err)
	}
	c.With(func(*replica.Replica) { // the viewer's frame holds the lock
		clock.Store(int64(delivered))
		if err := srv.Write(context.Background(), pkt.Bytes()); err != nil {
			t.Error(err)
		}
		for c.Stats().PacketsIn == 0 { // the reader has the packet, and waits for the lock
			runtime.Gosched()
		}
		clock.Store(int64(drawn)) // the frame took 100 ms more
	})
	var rtt time.Duration
	for rtt == 0 {
		runtime.Gosched()
		c.With(func(r *replica.Replica) { rtt = r.Clock().RTT() })
	}
	if rtt != delivered-sent {
		t.Fatalf("round trip %v, want %v (delivered %v after the ping)", rtt, delivered-sent, delivered-sent)
	}
}
