package replica

import (
	"testing"

	"github.com/twinframe/twinframe/shared/protocol/pb"
	"google.golang.org/protobuf/proto"
)

// FuzzReceive feeds arbitrary archives to a replica holding a world and its avatar:
// whatever the bytes, it reports errors and never panics.
func FuzzReceive(f *testing.F) {
	f.Add(uint8(0), []byte{0x01, 0x30, 0x05, 0x07})
	f.Add(uint8(1), []byte{0x01, 0x30, 0x65, 0x00, 0x01, 0x80, 0x02})
	f.Add(uint8(2), []byte{0xEF, 0x01, 0x02, 0x03})
	f.Add(uint8(3), []byte{0x30})
	r, _, _ := readyReplica(f)
	frame := uint64(100)
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		frame++
		var m proto.Message
		switch kind % 4 {
		case 0:
			m = &pb.NetMessageLocomotionStateUpdate{ArchiveData: data}
		case 1:
			m = &pb.NetMessageEntityCreate{ArchiveData: data}
		case 2:
			m = &pb.NetMessagePowerResult{ArchiveData: data}
		case 3:
			id := uint64(0)
			if len(data) > 0 {
				id = uint64(data[0])
			}
			m = &pb.NetMessageEntityDestroy{EntityId: id}
		}
		now := FrameDuration * 0
		r.Receive(now, &pb.NetMessageServerFrame{Frame: frame, LastInputSeq: uint32(len(data))}, m)
		r.Advance(now)
		r.View(now, nil)
	})
}
