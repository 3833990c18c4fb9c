package protocol_test

import (
	"errors"
	"testing"

	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"google.golang.org/protobuf/proto"
)

// TestReadAll: every message of a packet, in order; a bad header, a truncated
// message or a payload that does not unmarshal is an error, with what was read
// before it.
func TestReadAll(t *testing.T) {
	t.Parallel()
	var p protocol.Packet
	p.Reset(protocol.MuxGame, protocol.CommandData)
	want := []proto.Message{&pb.NetMessageServerFrame{Frame: 9}, &pb.NetMessageEntityDestroy{EntityId: 300}}
	for _, m := range want {
		if err := p.Append(m); err != nil {
			t.Fatal(err)
		}
	}
	good := p.Bytes()
	badPayload := append([]byte(nil), good...)
	badPayload[len(badPayload)-1] = 0xff // the destroy's varint now runs off the end
	for _, tc := range []struct {
		name   string
		packet []byte
		n      int
		fails  bool
	}{
		{"good", good, 2, false},
		{"truncated", good[:len(good)-1], 0, true},
		{"bad payload", badPayload, 1, true},
		{"no header", good[:2], 0, true},
	} {
		var r protocol.Reader
		_, msgs, err := r.ReadAll(tc.packet)
		if (err != nil) != tc.fails || len(msgs) != tc.n {
			t.Errorf("%s: %d messages, %v; want %d, error %v", tc.name, len(msgs), err, tc.n, tc.fails)
			continue
		}
		for i := range msgs {
			if !proto.Equal(msgs[i], want[i]) {
				t.Errorf("%s: message %d is %v, want %v", tc.name, i, msgs[i], want[i])
			}
		}
		var pe *protocol.Error
		if err != nil && !errors.As(err, &pe) {
			t.Errorf("%s: %v is not a *protocol.Error", tc.name, err)
		}
	}
}
