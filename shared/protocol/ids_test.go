package protocol_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"google.golang.org/protobuf/proto"
)

func TestMessageTable(t *testing.T) {
	seen := map[string]bool{}
	prev := protocol.ID(0)
	for _, m := range protocol.Messages() {
		if m.ID <= prev {
			t.Errorf("%v: ids must ascend, after %d", m.ID, prev)
		}
		prev = m.ID
		switch {
		case m.Dir == protocol.ClientToServer && (m.ID < 1 || m.ID >= 64):
			t.Errorf("%v: client→server ids are 1..63, got %d", m.Name(), m.ID)
		case m.Dir == protocol.ServerToClient && (m.ID < 64 || m.ID >= 128):
			t.Errorf("%v: server→client ids are 64..127, got %d", m.Name(), m.ID)
		case m.Dir != protocol.ClientToServer && m.Dir != protocol.ServerToClient:
			t.Errorf("%v: bad direction %v", m.Name(), m.Dir)
		}
		if m.MaxPayload <= 0 {
			t.Errorf("%v: no payload cap", m.Name())
		}
		if got, ok := protocol.Lookup(m.ID); !ok || got.Type != m.Type {
			t.Errorf("Lookup(%d) = %v, %v", m.ID, got.Name(), ok)
		}
		if id, ok := protocol.IDOf(m.Type.New().Interface()); !ok || id != m.ID {
			t.Errorf("IDOf(%s) = %d, %v; want %d", m.Name(), id, ok, m.ID)
		}
		if m.ID.String() != m.Name() {
			t.Errorf("ID(%d).String() = %q, want %q", m.ID, m.ID.String(), m.Name())
		}
		seen[m.Name()] = true
	}
	// Every NetMessage of the .proto has an id; no NetStruct has one.
	msgs := pb.File_shared_protocol_pb_twinframe_proto.Messages()
	for i := range msgs.Len() {
		name := string(msgs.Get(i).Name())
		if strings.HasPrefix(name, "NetMessage") != seen[name] {
			t.Errorf("%s: a NetMessage must be in the id table, and only a NetMessage", name)
		}
	}
	if s := protocol.ID(63).String(); s != "ID(63)" {
		t.Errorf("unknown id String = %q", s)
	}
	if _, ok := protocol.Lookup(1000); ok {
		t.Error("Lookup(1000) found something")
	}
}

func TestSamplesCoverTable(t *testing.T) {
	s := samples()
	table := protocol.Messages()
	if len(s) != len(table) {
		t.Fatalf("%d samples for %d table rows", len(s), len(table))
	}
	for i, m := range s {
		if id, _ := protocol.IDOf(m); id != table[i].ID {
			t.Errorf("sample %d is %v, want %v", i, id, table[i].ID)
		}
	}
}

func TestMarshalUnmarshal(t *testing.T) {
	for _, m := range samples() {
		id, b, err := protocol.Marshal(m)
		if err != nil {
			t.Fatalf("Marshal(%T): %v", m, err)
		}
		got, err := protocol.Unmarshal(id, b)
		if err != nil {
			t.Fatalf("Unmarshal(%v): %v", id, err)
		}
		if !proto.Equal(got, m) {
			t.Errorf("%v: round trip\n got %v\nwant %v", id, got, m)
		}
	}
}

func TestUnmarshalTo(t *testing.T) {
	for _, m := range samples() {
		id, b, err := protocol.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		dst := proto.Clone(m) // reused: must be reset, not merged
		if err := protocol.UnmarshalTo(id, b, dst); err != nil {
			t.Fatalf("UnmarshalTo(%v): %v", id, err)
		}
		if !proto.Equal(dst, m) {
			t.Errorf("%v: UnmarshalTo merged instead of resetting:\n got %v\nwant %v", id, dst, m)
		}
	}
	err := protocol.UnmarshalTo(66, nil, &pb.NetMessagePong{})
	if !errors.Is(err, protocol.ErrWrongType) {
		t.Errorf("UnmarshalTo into the wrong type: %v", err)
	}
}

func TestMarshalErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    proto.Message
		want error
	}{
		{"nil", nil, protocol.ErrUnregistered},
		{"a struct, not a message", &pb.NetStructPoint3{}, protocol.ErrUnregistered},
		{"invalid UTF-8", &pb.NetMessageLogin{Name: "\xff"}, protocol.ErrBadPayload},
	} {
		if _, _, err := protocol.Marshal(tc.m); !errors.Is(err, tc.want) {
			t.Errorf("%s: Marshal error %v, want %v", tc.name, err, tc.want)
		}
		b := []byte("keep")
		out, err := protocol.AppendMessage(b, tc.m)
		if !errors.Is(err, tc.want) || string(out) != "keep" {
			t.Errorf("%s: AppendMessage = %q, %v; want the buffer unchanged and %v", tc.name, out, err, tc.want)
		}
		if tc.want == protocol.ErrUnregistered && protocol.SizeMessage(tc.m) != -1 {
			t.Errorf("%s: SizeMessage = %d, want -1", tc.name, protocol.SizeMessage(tc.m))
		}
	}
}

func TestUnmarshalErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		id      protocol.ID
		payload []byte
		want    error
	}{
		{"id 0", 0, nil, protocol.ErrUnknownID},
		{"unassigned id", 63, nil, protocol.ErrUnknownID},
		{"id past the table", 4000, nil, protocol.ErrUnknownID},
		{"over the id's cap", 68, make([]byte, 17), protocol.ErrTooLarge},
		{"truncated field", 66, []byte{0x08}, protocol.ErrBadPayload},
		{"invalid UTF-8 string", 1, []byte{0x0A, 0x01, 0xFF}, protocol.ErrBadPayload},
		{"bad wire type", 66, []byte{0x0F}, protocol.ErrBadPayload},
	} {
		m, err := protocol.Unmarshal(tc.id, tc.payload)
		if !errors.Is(err, tc.want) || m != nil {
			t.Errorf("%s: Unmarshal = %v, %v; want %v", tc.name, m, err, tc.want)
		}
		var e *protocol.Error
		if !errors.As(err, &e) || e.Offset != -1 {
			t.Errorf("%s: error %#v is not an *Error without offset", tc.name, err)
		}
	}
}

func TestUnknownFieldsAreDropped(t *testing.T) {
	// ServerFrame{frame: 5} plus field 15 (varint 1), which this build does not know.
	m, err := protocol.Unmarshal(66, []byte{0x08, 0x05, 0x78, 0x01})
	if err != nil {
		t.Fatal(err)
	}
	if _, b, _ := protocol.Marshal(m); string(b) != "\x08\x05" {
		t.Errorf("re-marshalled % x, want 08 05", b)
	}
}

func TestCapsFitLargestMessages(t *testing.T) {
	for _, m := range maximal() {
		id, b, err := protocol.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		info, _ := protocol.Lookup(id)
		if len(b) > info.MaxPayload {
			t.Errorf("%v: largest payload %d > cap %d", id, len(b), info.MaxPayload)
		}
	}
}

func TestAllowedFor(t *testing.T) {
	for _, m := range protocol.Messages() {
		if !m.AllowedFor(pb.Role_ROLE_DEITY) {
			t.Errorf("%v refused to a deity", m.Name())
		}
		if m.AllowedFor(pb.Role_ROLE_PLAYER) == m.Deity {
			t.Errorf("%v: AllowedFor(player) = %v with deity %v", m.Name(), !m.Deity, m.Deity)
		}
	}
	for _, id := range []protocol.ID{7, 8, 74} {
		if m, _ := protocol.Lookup(id); m.AllowedFor(pb.Role_ROLE_PLAYER) || m.AllowedFor(pb.Role_ROLE_UNSPECIFIED) {
			t.Errorf("%v allowed to a non-deity", id)
		}
	}
}

func TestCode(t *testing.T) {
	for _, tc := range malformed() {
		r := tc.reader
		r.Reset(tc.pkt)
		for r.Next() {
		}
		want := map[error]pb.ErrorCode{
			protocol.ErrTooLarge: pb.ErrorCode_ERROR_CODE_TOO_LARGE, protocol.ErrTooManyMessages: pb.ErrorCode_ERROR_CODE_FLOOD,
			protocol.ErrUnknownID: pb.ErrorCode_ERROR_CODE_UNKNOWN_MESSAGE, protocol.ErrWrongDirection: pb.ErrorCode_ERROR_CODE_UNKNOWN_MESSAGE,
		}[tc.want]
		if want == 0 {
			want = pb.ErrorCode_ERROR_CODE_BAD_PACKET
		}
		if got := protocol.Code(r.Err()); got != want {
			t.Errorf("%s: Code(%v) = %v, want %v", tc.name, r.Err(), got, want)
		}
	}
	if protocol.Code(nil) != pb.ErrorCode_ERROR_CODE_UNSPECIFIED || protocol.Code(errors.New("x")) != pb.ErrorCode_ERROR_CODE_INTERNAL {
		t.Error("Code of nil or a foreign error")
	}
}
