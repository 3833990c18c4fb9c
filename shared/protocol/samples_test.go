package protocol_test

import (
	"bytes"
	"math"
	"slices"
	"strings"

	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"google.golang.org/protobuf/proto"
)

// samples returns one populated message of every type in the table, in id order.
func samples() []proto.Message {
	tables := []*pb.NetStructConfigFile{
		{Name: "10-region.config", Text: "region id=1 name=Town\n"},
		{Name: "20-polygon.config", Text: "polygon id=1 area=1\n"},
	}
	sum := protocol.HashConfigFiles(tables)
	token := "s3cret"
	return []proto.Message{
		&pb.NetMessageLogin{Name: "ada", DeityToken: &token, ProtocolVersion: protocol.Version},
		&pb.NetMessageMoveTo{InputSeq: 12, ClientFrame: 3400, Target: &pb.NetStructPoint3{X: 10.5, Y: -3.25, Z: 0}},
		&pb.NetMessageStop{InputSeq: 13, ClientFrame: 3401},
		&pb.NetMessageFire{InputSeq: 14, ClientFrame: 3402, Target: &pb.NetStructPoint3{X: 1, Y: 2}},
		&pb.NetMessagePing{ClientTimeMicros: 1_700_000_000_000_000, ClientFrame: 3402},
		&pb.NetMessageXDumpRequest{RequestId: 1, Command: "xdump entity *"},
		&pb.NetMessageLiveEditRequest{RequestId: 2, Records: "entity id=5 x=10\n"},
		&pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_STEP, Frames: 3},
		&pb.NetMessageResyncRequest{Reason: pb.ResyncReason_RESYNC_REASON_UNKNOWN_ENTITY, ServerFrame: 3400,
			Detail: "replica: message for an unknown entity (NetMessageEntityDestroy, entity 77, frame 3400): destroy"},
		&pb.NetMessageLoginResult{PlayerEntityId: 1001, Role: pb.Role_ROLE_DEITY, ServerFrame: 3390, ProtocolVersion: protocol.Version},
		&pb.NetMessageRegionChange{RegionId: 1, Tables: tables, TablesHash: sum[:], ServerFrame: 3390},
		&pb.NetMessageServerFrame{Frame: 3403, LastInputSeq: 14},
		&pb.NetMessageEntityCreate{ArchiveData: bytes.Repeat([]byte{0x5A}, 40)},
		&pb.NetMessageEntityDestroy{EntityId: 1001},
		&pb.NetMessageLocomotionStateUpdate{ArchiveData: bytes.Repeat([]byte{0x11}, 20)},
		&pb.NetMessagePowerResult{ArchiveData: []byte{0xEF, 0x01, 0x02, 0x03}},
		&pb.NetMessagePong{ClientTimeMicros: 1_700_000_000_000_000, ClientFrame: 3402, ServerFrame: 3404},
		&pb.NetMessageXDumpResponse{RequestId: 1, Text: "entity id=1001 ...\n"},
		&pb.NetMessageLiveEditResponse{RequestId: 2, Error: "edit:1:11: entity 5: field x is const"},
		&pb.NetMessageDebugDraw{Frame: 3403,
			Segments: []*pb.NetStructDebugSegment{{Ax: 0, Ay: 0, Bx: 1, By: 1, Color: 0xff0000ff}},
			Circles:  []*pb.NetStructDebugCircle{{X: 1, Y: 1, Radius: 0.5, Color: 0x00ff00ff, Filled: true}}},
		&pb.NetMessageError{Code: pb.ErrorCode_ERROR_CODE_FLOOD, Text: "too many inputs"},
		&pb.NetMessageServerFrameStats{FirstLoopFrame: 3380, DurationMicros: []uint32{410, 385, 2210}, LatenessMicros: []uint32{12, 0, 97},
			DroppedFrames: 2, PeriodMicros: 50_000, Regions: []*pb.NetStructRegionTiming{
				{RegionId: 0, DurationMicros: []uint32{300, 280, 1900}, LatenessMicros: []uint32{0, 0, 40}}}},
		&pb.NetMessageRegionList{ServerFrame: 3404, Regions: []*pb.NetStructRegionInfo{
			{RegionId: 0, Name: "downtown", PlayerNames: []string{"ada", "bo"}, Entities: 412, StateHash: 0x9e3779b97f4a7c15},
			{RegionId: 1, Name: "wilds", Entities: 380, StateHash: 42}}},
	}
}

// maximal returns, for fixed-shape messages, an instance with every field at its
// largest encoding, to check the table's caps leave room.
func maximal() []proto.Message {
	u64, u32 := uint64(math.MaxUint64), uint32(math.MaxUint32)
	nan := float32(math.NaN())
	p := &pb.NetStructPoint3{X: nan, Y: nan, Z: nan}
	return []proto.Message{
		&pb.NetMessageMoveTo{InputSeq: u32, ClientFrame: u64, Target: p},
		&pb.NetMessageStop{InputSeq: u32, ClientFrame: u64},
		&pb.NetMessageFire{InputSeq: u32, ClientFrame: u64, Target: p},
		&pb.NetMessagePing{ClientTimeMicros: u64, ClientFrame: u64},
		&pb.NetMessageDebugCommand{Op: pb.DebugOp(math.MinInt32), Frames: u32, RequestId: u32},
		&pb.NetMessageResyncRequest{Reason: pb.ResyncReason(math.MinInt32), ServerFrame: u64,
			Detail: strings.Repeat("\U0010FFFF", protocol.MaxResyncDetail/4)},
		&pb.NetMessageServerFrame{Frame: u64, LastInputSeq: u32, Paused: true},
		&pb.NetMessageEntityDestroy{EntityId: u64},
		&pb.NetMessagePong{ClientTimeMicros: u64, ClientFrame: u64, ServerFrame: u64},
		&pb.NetMessageServerFrameStats{FirstLoopFrame: u64, DurationMicros: slices.Repeat([]uint32{u32}, protocol.MaxFrameStats),
			LatenessMicros: slices.Repeat([]uint32{u32}, protocol.MaxFrameStats), DroppedFrames: u64, PeriodMicros: u32,
			Regions: slices.Repeat([]*pb.NetStructRegionTiming{{RegionId: math.MinInt32,
				DurationMicros: slices.Repeat([]uint32{u32}, protocol.MaxFrameStats),
				LatenessMicros: slices.Repeat([]uint32{u32}, protocol.MaxFrameStats)}}, protocol.MaxRegionTimings)},
		&pb.NetMessageDebugCommand{Op: pb.DebugOp(math.MinInt32), Frames: u32, PlayerName: strings.Repeat("\U0010FFFF", 8),
			RegionId: math.MinInt32, MarkerId: math.MinInt32, PrototypeId: math.MinInt32, Position: p, EntityId: u64, RequestId: u32},
	}
}

// framePacket returns the messages of a typical server frame: one server frame,
// 20 locomotion updates with 20-byte archives and 2 entity creates.
func framePacket() []proto.Message {
	msgs := []proto.Message{&pb.NetMessageServerFrame{Frame: 123456, LastInputSeq: 789}}
	for i := range 20 {
		a := make([]byte, 20)
		for j := range a {
			a[j] = byte(i*31 + j)
		}
		msgs = append(msgs, &pb.NetMessageLocomotionStateUpdate{ArchiveData: a})
	}
	for i := range 2 {
		msgs = append(msgs, &pb.NetMessageEntityCreate{
			ArchiveData: bytes.Repeat([]byte{byte(i + 1)}, 48),
		})
	}
	return msgs
}
