package protocol

import (
	"fmt"
	"strconv"

	"github.com/twinframe/twinframe/shared/protocol/pb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Version is the protocol version this build speaks; a client sends it in
// NetMessageLogin. Bump it when the table or a message changes incompatibly
// (and refresh the .proto's release descriptor set: see twinframe.proto).
// 2: NetMessageResyncRequest; 3: regions (teleport, region list, region
// timings); 4: the .proto as API twinframe.v1 (fields removed that the server
// never set or read: NetMessageLoginResult.errorCode/error,
// NetMessageFire.targetEntity, NetMessageEntityCreate.baseData; a mux id other
// than MuxGame refused; Connect answered with ConnectAck; Disconnect ends the
// session).
const Version = 4

// MinVersion is the oldest client protocol version a server of this build
// accepts: the server takes a login whose version is in [MinVersion, Version]
// and refuses any other with ERROR_CODE_PROTOCOL_VERSION (see VersionError).
const MinVersion = 4

// Supported reports whether a server of this build accepts a client that
// speaks protocol version v.
func Supported(v uint32) bool { return v >= MinVersion && v <= Version }

// VersionError is the text of the refusal of a client that speaks version v:
// it names the client's version and the ones the server supports.
func VersionError(v uint32) string {
	if MinVersion == Version {
		return fmt.Sprintf("client protocol version %d is not supported: this server speaks version %d", v, Version)
	}
	return fmt.Sprintf("client protocol version %d is not supported: this server speaks versions %d to %d", v, MinVersion, Version)
}

// ID is a message id: the varint before each message of a packet.
type ID uint32

// Direction says which side sends a message.
type Direction uint8

// The two directions.
const (
	ClientToServer Direction = 1
	ServerToClient Direction = 2
)

func (d Direction) String() string {
	switch d {
	case ClientToServer:
		return "client→server"
	case ServerToClient:
		return "server→client"
	}
	return "Direction(" + strconv.Itoa(int(d)) + ")"
}

// MaxFrameStats is the most frames one NetMessageServerFrameStats may carry: its
// payload cap leaves room for that many samples at their largest encoding.
const MaxFrameStats = 64

// MaxRegionTimings caps the regions a NetMessageServerFrameStats carries timings of.
const MaxRegionTimings = 16

// MaxResyncDetail is the longest detail a NetMessageResyncRequest may carry (a
// client truncates its replica's error to it): its payload cap leaves room for
// it with every other field at its largest encoding.
const MaxResyncDetail = 200

// MessageInfo is one row of the message table.
type MessageInfo struct {
	ID         ID
	Dir        Direction
	Deity      bool // client→server: only a deity may send it; server→client: only a deity receives it
	MaxPayload int  // cap on the payload size in bytes, checked before unmarshalling
	Type       protoreflect.MessageType
}

// AllowedFor reports whether a session with role may send (client→server) or
// receive (server→client) the message.
func (m MessageInfo) AllowedFor(role pb.Role) bool {
	return !m.Deity || role == pb.Role_ROLE_DEITY
}

// Name is the message's protobuf name, e.g. "NetMessageEntityCreate".
func (m MessageInfo) Name() string { return string(m.Type.Descriptor().Name()) }

const (
	kiB = 1 << 10
	miB = 1 << 20
)

func typeOf(m proto.Message) protoreflect.MessageType { return m.ProtoReflect().Type() }

// messages is THE message table: ids are stable, never reused, and rendered in
// doc.go (a test keeps the two equal). Client→server ids count from 1,
// server→client ids from 64, so every id is a one-byte varint.
var messages = [...]MessageInfo{
	{1, ClientToServer, false, 1 * kiB, typeOf((*pb.NetMessageLogin)(nil))},
	{2, ClientToServer, false, 64, typeOf((*pb.NetMessageMoveTo)(nil))},
	{3, ClientToServer, false, 32, typeOf((*pb.NetMessageStop)(nil))},
	{4, ClientToServer, false, 64, typeOf((*pb.NetMessageFire)(nil))},
	{5, ClientToServer, false, 32, typeOf((*pb.NetMessagePing)(nil))},
	{6, ClientToServer, false, 4 * kiB, typeOf((*pb.NetMessageXDumpRequest)(nil))},
	{7, ClientToServer, true, 256 * kiB, typeOf((*pb.NetMessageLiveEditRequest)(nil))},
	{8, ClientToServer, true, 256, typeOf((*pb.NetMessageDebugCommand)(nil))},
	{9, ClientToServer, false, 256, typeOf((*pb.NetMessageResyncRequest)(nil))},

	{64, ServerToClient, false, 1 * kiB, typeOf((*pb.NetMessageLoginResult)(nil))},
	{65, ServerToClient, false, 4 * miB, typeOf((*pb.NetMessageRegionChange)(nil))},
	{66, ServerToClient, false, 32, typeOf((*pb.NetMessageServerFrame)(nil))},
	{67, ServerToClient, false, 64 * kiB, typeOf((*pb.NetMessageEntityCreate)(nil))},
	{68, ServerToClient, false, 16, typeOf((*pb.NetMessageEntityDestroy)(nil))},
	{69, ServerToClient, false, 16 * kiB, typeOf((*pb.NetMessageLocomotionStateUpdate)(nil))},
	{70, ServerToClient, false, 16 * kiB, typeOf((*pb.NetMessagePowerResult)(nil))},
	{71, ServerToClient, false, 48, typeOf((*pb.NetMessagePong)(nil))},
	{72, ServerToClient, false, 4 * miB, typeOf((*pb.NetMessageXDumpResponse)(nil))},
	{73, ServerToClient, false, 64 * kiB, typeOf((*pb.NetMessageLiveEditResponse)(nil))},
	{74, ServerToClient, true, 4 * miB, typeOf((*pb.NetMessageDebugDraw)(nil))},
	{75, ServerToClient, false, 4 * kiB, typeOf((*pb.NetMessageError)(nil))},
	{76, ServerToClient, false, 16 * kiB, typeOf((*pb.NetMessageServerFrameStats)(nil))},
	{77, ServerToClient, true, 256 * kiB, typeOf((*pb.NetMessageRegionList)(nil))},
}

// maxID bounds the dense id index; every id in the table is below it.
const maxID = 128

// Indexes derived from the table (not filled by registration).
var (
	byID      [maxID]int8 // index+1 into messages; 0: unknown
	idByIndex []ID        // message index in the .proto file → id; 0: not a message of the table
	file      = pb.File_shared_protocol_pb_twinframe_proto
)

func init() {
	idByIndex = make([]ID, file.Messages().Len())
	for i, m := range messages {
		d := m.Type.Descriptor()
		if m.ID == 0 || m.ID >= maxID || byID[m.ID] != 0 || d.Parent() != file || idByIndex[d.Index()] != 0 {
			panic(fmt.Sprintf("protocol: bad message table row %d (%v)", i, m.ID))
		}
		byID[m.ID] = int8(i + 1)
		idByIndex[d.Index()] = m.ID
	}
}

// Messages returns a copy of the message table in id order.
func Messages() []MessageInfo { return append([]MessageInfo(nil), messages[:]...) }

// Lookup returns the table row of id.
func Lookup(id ID) (MessageInfo, bool) {
	if id >= maxID || byID[id] == 0 {
		return MessageInfo{}, false
	}
	return messages[byID[id]-1], true
}

func lookup(id ID) *MessageInfo {
	if id >= maxID || byID[id] == 0 {
		return nil
	}
	return &messages[byID[id]-1]
}

func (id ID) String() string {
	if m := lookup(id); m != nil {
		return m.Name()
	}
	return "ID(" + strconv.FormatUint(uint64(id), 10) + ")"
}

// IDOf returns the id of m's message type; ok is false if the type is not in the table.
func IDOf(m proto.Message) (id ID, ok bool) {
	if m == nil {
		return 0, false
	}
	d := m.ProtoReflect().Descriptor()
	if d.Parent() != file {
		return 0, false
	}
	id = idByIndex[d.Index()]
	return id, id != 0
}

var (
	marshalOptions   = proto.MarshalOptions{Deterministic: true}
	unmarshalOptions = proto.UnmarshalOptions{DiscardUnknown: true, RecursionLimit: 16}
)

// Marshal returns the id and protobuf encoding of m.
func Marshal(m proto.Message) (ID, []byte, error) {
	id, ok := IDOf(m)
	if !ok {
		return 0, nil, unregistered(m)
	}
	b, err := marshalOptions.Marshal(m)
	if err != nil {
		return 0, nil, &Error{Offset: -1, What: id.String(), Detail: err.Error(), Err: ErrBadPayload}
	}
	return id, b, nil
}

// Unmarshal decodes payload as the message type of id into a new message. It
// refuses unknown ids and payloads over the id's cap before allocating; unknown
// fields are discarded.
func Unmarshal(id ID, payload []byte) (proto.Message, error) {
	info, err := check(id, len(payload))
	if err != nil {
		return nil, err
	}
	m := info.Type.New().Interface()
	if err := unmarshalOptions.Unmarshal(payload, m); err != nil {
		return nil, &Error{Offset: -1, What: info.Name(), Detail: err.Error(), Err: ErrBadPayload}
	}
	return m, nil
}

// UnmarshalTo decodes payload into dst, which must be of id's type; dst is reset
// first, so a caller may reuse it.
func UnmarshalTo(id ID, payload []byte, dst proto.Message) error {
	info, err := check(id, len(payload))
	if err != nil {
		return err
	}
	if got, _ := IDOf(dst); got != id {
		return &Error{Offset: -1, What: info.Name(), Detail: fmt.Sprintf("destination is %T", dst), Err: ErrWrongType}
	}
	if err := unmarshalOptions.Unmarshal(payload, dst); err != nil {
		return &Error{Offset: -1, What: info.Name(), Detail: err.Error(), Err: ErrBadPayload}
	}
	return nil
}

func check(id ID, n int) (*MessageInfo, error) {
	info := lookup(id)
	if info == nil {
		return nil, &Error{Offset: -1, What: "message id", Detail: fmt.Sprintf("id %d", id), Err: ErrUnknownID}
	}
	if n > info.MaxPayload {
		return nil, &Error{Offset: -1, What: info.Name(), Detail: fmt.Sprintf("payload %d > cap %d", n, info.MaxPayload), Err: ErrTooLarge}
	}
	return info, nil
}

func unregistered(m proto.Message) error {
	name := "nil"
	if m != nil {
		name = string(m.ProtoReflect().Descriptor().FullName())
	}
	return &Error{Offset: -1, What: "message type", Detail: name, Err: ErrUnregistered}
}
