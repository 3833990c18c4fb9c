package protocol_test

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"google.golang.org/protobuf/proto"
)

func TestAppendSize(t *testing.T) {
	prefix := []byte("prefix")
	for _, m := range append(samples(), maximal()...) {
		b, err := protocol.AppendMessage(bytes.Clone(prefix), m)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(b)-len(prefix), protocol.SizeMessage(m); got != want {
			t.Errorf("%T: len(AppendMessage) = %d, SizeMessage = %d", m, got, want)
		}
		if !bytes.HasPrefix(b, prefix) {
			t.Errorf("%T: AppendMessage overwrote the prefix", m)
		}
		id, payload, n, err := protocol.ConsumeMessage(b[len(prefix):])
		if err != nil || n != len(b)-len(prefix) {
			t.Fatalf("%T: ConsumeMessage = %v, %d, %v", m, id, n, err)
		}
		wantID, want, _ := protocol.Marshal(m)
		if id != wantID || !bytes.Equal(payload, want) {
			t.Errorf("%T: consumed %v % x, want %v % x", m, id, payload, wantID, want)
		}
	}
	for _, id := range []protocol.ID{1, 66, 127, 128, 16383, 16384, 1<<32 - 1} {
		for _, n := range []int{0, 1, 127, 128, 16383, 16384, 1 << 21} {
			b := protocol.AppendRawMessage(nil, id, make([]byte, n))
			if len(b) != protocol.SizeRawMessage(id, n) {
				t.Errorf("id %d, n %d: len(AppendRawMessage) = %d, SizeRawMessage = %d", id, n, len(b), protocol.SizeRawMessage(id, n))
			}
			gotID, p, m, err := protocol.ConsumeMessage(b)
			if err != nil || gotID != id || len(p) != n || m != len(b) {
				t.Errorf("id %d, n %d: ConsumeMessage = %d, %d bytes, %d, %v", id, n, gotID, len(p), m, err)
			}
		}
	}
	h := protocol.Header{Mux: 0xBEEF, Size: protocol.MaxBodySize, Command: protocol.CommandData}
	b := protocol.AppendHeader([]byte{9}, h)
	if len(b)-1 != protocol.HeaderSize {
		t.Errorf("len(AppendHeader) = %d, HeaderSize = %d", len(b)-1, protocol.HeaderSize)
	}
	if !bytes.Equal(b[1:], []byte{0xEF, 0xBE, 0xFF, 0xFF, 0xFF, 0x05}) {
		t.Errorf("header % x: want little-endian mux, size, command", b[1:])
	}
	// The only channel is MuxGame: another mux id is refused.
	if got, err := protocol.ConsumeHeader(b[1:]); !errors.Is(err, protocol.ErrBadMux) || got != h {
		t.Errorf("ConsumeHeader = %+v, %v; want %+v and ErrBadMux", got, err, h)
	}
	h.Mux = protocol.MuxGame
	if got, err := protocol.ConsumeHeader(protocol.AppendHeader(nil, h)); err != nil || got != h {
		t.Errorf("ConsumeHeader = %+v, %v; want %+v", got, err, h)
	}
}

func TestPacketRoundTrip(t *testing.T) {
	var p protocol.Packet
	var r protocol.Reader
	for round := range 3 { // the same Packet and Reader, reused
		msgs := samples()[:round*7+1]
		p.Reset(protocol.MuxGame, protocol.CommandData)
		want := protocol.HeaderSize
		for _, m := range msgs {
			if err := p.Append(m); err != nil {
				t.Fatal(err)
			}
			want += protocol.SizeMessage(m)
		}
		pkt := p.Bytes()
		if len(pkt) != want || p.Size() != want || p.Len() != len(msgs) {
			t.Fatalf("packet %d bytes (Size %d, Len %d), want %d bytes and %d messages", len(pkt), p.Size(), p.Len(), want, len(msgs))
		}
		h, err := r.Reset(pkt)
		if err != nil || h != (protocol.Header{Mux: protocol.MuxGame, Size: want - protocol.HeaderSize, Command: protocol.CommandData}) {
			t.Fatalf("Reset = %+v, %v", h, err)
		}
		i := 0
		for r.Next() {
			m, err := r.Message()
			if err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(m, msgs[i]) {
				t.Errorf("message %d: got %v, want %v", i, m, msgs[i])
			}
			i++
		}
		if r.Err() != nil || i != len(msgs) {
			t.Fatalf("read %d of %d messages: %v", i, len(msgs), r.Err())
		}
		if r.Next() {
			t.Error("Next after the end")
		}
	}
}

func TestZeroPacket(t *testing.T) {
	var p protocol.Packet
	if got := p.Bytes(); !bytes.Equal(got, []byte{1, 0, 0, 0, 0, 5}) {
		t.Errorf("empty zero Packet = % x, want an empty Data packet on MuxGame", got)
	}
	var q protocol.Packet
	if err := q.Append(&pb.NetMessageEntityDestroy{EntityId: 3}); err != nil {
		t.Fatal(err)
	}
	if got := q.Bytes(); !bytes.Equal(got, []byte{1, 0, 4, 0, 0, 5, 68, 2, 8, 3}) {
		t.Errorf("zero Packet with one message = % x", got)
	}
}

func TestPacketLimits(t *testing.T) {
	destroy := &pb.NetMessageEntityDestroy{EntityId: 1}
	for _, tc := range []struct {
		name   string
		limits protocol.Limits
		cmd    protocol.Command
		before int // messages appended successfully first
		m      proto.Message
		raw    []byte // AppendRaw(66, raw) instead of Append(m) when m is nil
		want   error
	}{
		{"too many messages", protocol.Limits{MaxMessages: 2}, protocol.CommandData, 2, destroy, nil, protocol.ErrTooManyMessages},
		{"packet too large", protocol.Limits{MaxPacketSize: 14}, protocol.CommandData, 2, destroy, nil, protocol.ErrTooLarge},
		{"message over Limits", protocol.Limits{MaxMessageSize: 3}, protocol.CommandData, 0, &pb.NetMessagePowerResult{ArchiveData: []byte{1, 2}}, nil, protocol.ErrTooLarge},
		{"message over the id's cap", protocol.Limits{}, protocol.CommandData, 0, &pb.NetMessageServerFrame{}, make([]byte, 33), protocol.ErrTooLarge},
		{"unregistered", protocol.Limits{}, protocol.CommandData, 1, &pb.NetStructPoint3{}, nil, protocol.ErrUnregistered},
		{"invalid UTF-8", protocol.Limits{}, protocol.CommandData, 1, &pb.NetMessageError{Text: "\xC0"}, nil, protocol.ErrBadPayload},
		{"command without data", protocol.Limits{}, protocol.CommandConnect, 0, destroy, nil, protocol.ErrBadCommand},
	} {
		p := protocol.Packet{Limits: tc.limits}
		p.Reset(7, tc.cmd)
		for range tc.before {
			if err := p.Append(destroy); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
		}
		before := bytes.Clone(p.Bytes())
		var err error
		if tc.raw != nil {
			err = p.AppendRaw(66, tc.raw)
		} else {
			err = p.Append(tc.m)
		}
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
		}
		if !bytes.Equal(p.Bytes(), before) || p.Len() != tc.before {
			t.Errorf("%s: a failed Append changed the packet", tc.name)
		}
	}
	var p protocol.Packet
	if err := p.AppendRaw(63, nil); !errors.Is(err, protocol.ErrUnknownID) {
		t.Errorf("AppendRaw(63): %v", err)
	}
}

// malformed returns packets the Reader must refuse, with the error and offset
// it must report and how many messages it yields first.
func malformed() []struct {
	name   string
	reader protocol.Reader
	pkt    []byte
	want   error
	offset int
	good   int
} {
	hdr := func(size int, cmd protocol.Command) []byte {
		return protocol.AppendHeader(nil, protocol.Header{Mux: 1, Size: size, Command: cmd})
	}
	data := func(body ...byte) []byte { return append(hdr(len(body), protocol.CommandData), body...) }
	frame := []byte{66, 2, 0x08, 0x01} // ServerFrame{frame: 1}
	over := func(n int) []byte { return append([]byte{69, 0x80 | byte(n&0x7F), byte(n >> 7)}, make([]byte, n)...) }
	small := protocol.Limits{MaxPacketSize: 64, MaxMessageSize: 16, MaxMessages: 2}
	return []struct {
		name   string
		reader protocol.Reader
		pkt    []byte
		want   error
		offset int
		good   int
	}{
		{"empty", protocol.Reader{}, nil, protocol.ErrTruncated, 0, 0},
		{"truncated header", protocol.Reader{}, []byte{1, 0, 0, 0, 0}, protocol.ErrTruncated, 0, 0},
		{"mux id 0", protocol.Reader{}, append(protocol.AppendHeader(nil, protocol.Header{Mux: 0, Size: len(frame), Command: protocol.CommandData}), frame...), protocol.ErrBadMux, 0, 0},
		{"mux id 2", protocol.Reader{}, append(protocol.AppendHeader(nil, protocol.Header{Mux: 2, Size: len(frame), Command: protocol.CommandData}), frame...), protocol.ErrBadMux, 0, 0},
		{"command 0", protocol.Reader{}, hdr(0, 0), protocol.ErrBadCommand, 5, 0},
		{"command 6", protocol.Reader{}, hdr(0, 6), protocol.ErrBadCommand, 5, 0},
		{"Connect with a body", protocol.Reader{}, append(hdr(2, protocol.CommandConnect), frame[:2]...), protocol.ErrBadCommand, 2, 0},
		{"size mismatch: short body", protocol.Reader{}, append(hdr(10, protocol.CommandData), frame...), protocol.ErrSizeMismatch, 2, 0},
		{"size mismatch: trailing bytes", protocol.Reader{}, append(hdr(2, protocol.CommandData), frame...), protocol.ErrSizeMismatch, 2, 0},
		{"oversized body", protocol.Reader{Limits: small}, append(hdr(100, protocol.CommandData), make([]byte, 100)...), protocol.ErrTooLarge, 2, 0},
		{"oversized body, size field only", protocol.Reader{Limits: small}, hdr(protocol.MaxBodySize, protocol.CommandData), protocol.ErrTooLarge, 2, 0},
		{"unknown id 0", protocol.Reader{}, data(0, 0), protocol.ErrUnknownID, 6, 0},
		{"unknown id 63", protocol.Reader{}, data(append(frame, 63, 0)...), protocol.ErrUnknownID, 10, 1},
		{"unknown id 2^32", protocol.Reader{}, data(0x80, 0x80, 0x80, 0x80, 0x10, 0), protocol.ErrUnknownID, 6, 0},
		{"wrong direction", protocol.Reader{From: protocol.ClientToServer}, data(frame...), protocol.ErrWrongDirection, 6, 0},
		{"varint overflow in id", protocol.Reader{}, data(0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01), protocol.ErrVarintOverflow, 6, 0},
		{"varint overflow in length", protocol.Reader{}, data(66, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02), protocol.ErrVarintOverflow, 7, 0},
		{"truncated id varint", protocol.Reader{}, data(append(frame, 0xC2)...), protocol.ErrTruncated, 10, 1},
		{"truncated length varint", protocol.Reader{}, data(66, 0x80), protocol.ErrTruncated, 7, 0},
		{"missing length", protocol.Reader{}, data(66), protocol.ErrTruncated, 7, 0},
		{"message length beyond the packet", protocol.Reader{}, data(66, 3, 0x08, 0x01), protocol.ErrTruncated, 7, 0},
		{"message over Limits.MaxMessageSize", protocol.Reader{Limits: small}, data(over(17)...), protocol.ErrTooLarge, 7, 0},
		{"message over the id's cap", protocol.Reader{}, data(68, 17, 0x08), protocol.ErrTooLarge, 7, 0},
		{"huge length before the bytes", protocol.Reader{}, data(72, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F), protocol.ErrTooLarge, 7, 0},
		{"too many messages", protocol.Reader{Limits: small}, data(append(append(frame, frame...), frame...)...), protocol.ErrTooManyMessages, 14, 2},
	}
}

func TestReaderMalformed(t *testing.T) {
	for _, tc := range malformed() {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.reader
			_, resetErr := r.Reset(tc.pkt)
			good := 0
			for r.Next() {
				if _, err := r.Message(); err != nil {
					t.Fatalf("message %d: %v", good, err)
				}
				good++
			}
			err := r.Err()
			if resetErr != nil && resetErr != err {
				t.Errorf("Reset returned %v, Err %v", resetErr, err)
			}
			var e *protocol.Error
			if !errors.Is(err, tc.want) || !errors.As(err, &e) || e.Offset != tc.offset || good != tc.good {
				t.Fatalf("got %d messages and %v; want %d and %v at offset %d", good, err, tc.good, tc.want, tc.offset)
			}
			t.Log(err)
		})
	}
}

func TestReaderBadPayload(t *testing.T) {
	pkt := protocol.AppendHeader(nil, protocol.Header{Mux: 1, Size: 6, Command: protocol.CommandData})
	pkt = append(pkt, 68, 1, 0x08, 66, 1, 0x08) // EntityDestroy and ServerFrame, both truncated
	var r protocol.Reader
	if _, err := r.Reset(pkt); err != nil {
		t.Fatal(err)
	}
	for i, off := range []int{6, 9} {
		if !r.Next() {
			t.Fatalf("Next %d: %v", i, r.Err())
		}
		_, err := r.Message()
		var e *protocol.Error
		if !errors.Is(err, protocol.ErrBadPayload) || !errors.As(err, &e) || e.Offset != off {
			t.Errorf("message %d: %v, want ErrBadPayload at offset %d", i, err, off)
		}
	}
	if r.Next() || r.Err() != nil {
		t.Errorf("a bad payload is the caller's to judge; framing is fine: %v", r.Err())
	}
}

func TestErrorText(t *testing.T) {
	var r protocol.Reader
	_, err := r.Reset([]byte{1, 0, 3, 0, 0, 5, 63, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	r.Next()
	want := "protocol: unknown message id at offset 6 (message id): id 63"
	if got := fmt.Sprint(r.Err()); got != want {
		t.Errorf("error text %q, want %q", got, want)
	}
}

func TestCommands(t *testing.T) {
	for c := range protocol.Command(8) {
		if c.Valid() != (c >= 1 && c <= 5) {
			t.Errorf("%v.Valid() = %v", c, c.Valid())
		}
	}
	if s := protocol.CommandConnectWithData.String(); s != "ConnectWithData" {
		t.Errorf("String = %q", s)
	}
	if s := protocol.Command(9).String(); s != "Command(9)" {
		t.Errorf("String = %q", s)
	}
}

func TestReaderReuseAfterError(t *testing.T) {
	r := protocol.Reader{Limits: protocol.Limits{MaxMessages: 1}}
	if _, err := r.Reset([]byte{1, 0}); !errors.Is(err, protocol.ErrTruncated) {
		t.Fatalf("Reset of a short packet: %v", err)
	}
	if r.Next() || r.ID() != 0 || r.Payload() != nil {
		t.Error("Next after a failed Reset")
	}
	var p protocol.Packet
	p.Append(&pb.NetMessagePong{ServerFrame: 9})
	if _, err := r.Reset(p.Bytes()); err != nil {
		t.Fatal(err)
	}
	if !r.Next() || r.ID() != 71 || r.Next() || r.Err() != nil {
		t.Errorf("reading a good packet after a bad one: id %v, %v", r.ID(), r.Err())
	}
}

func TestLimitsClamp(t *testing.T) {
	// A limit above what the 24-bit size field can say is clamped, not an error.
	r := protocol.Reader{Limits: protocol.Limits{MaxPacketSize: 1 << 30}}
	if _, err := r.Reset(protocol.AppendHeader(nil, protocol.Header{Mux: 1, Command: protocol.CommandData})); err != nil {
		t.Fatal(err)
	}
	var p protocol.Packet
	p.Limits = protocol.Limits{MaxPacketSize: 1 << 30, MaxMessageSize: 1 << 30}
	big := &pb.NetMessageRegionChange{Tables: []*pb.NetStructConfigFile{{Text: string(make([]byte, 7<<19))}}} // 3.5 MiB
	for i := range 4 {
		if err := p.Append(big); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
	}
	if err := p.Append(big); !errors.Is(err, protocol.ErrTooLarge) || p.Len() != 4 {
		t.Errorf("a body over the 24-bit size field: %v", err)
	}
}
