package protocol_test

import (
	"fmt"

	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
)

// A server builds one packet per client per frame; the client iterates it.
func Example() {
	var p protocol.Packet // reused frame after frame
	p.Reset(protocol.MuxGame, protocol.CommandData)
	p.Append(&pb.NetMessageServerFrame{Frame: 42, LastInputSeq: 7})
	p.Append(&pb.NetMessageLocomotionStateUpdate{ArchiveData: []byte{0x01, 0x2A}})
	p.Append(&pb.NetMessageEntityDestroy{EntityId: 300})
	packet := p.Bytes()
	fmt.Printf("% x\n", packet)

	r := protocol.Reader{From: protocol.ServerToClient}
	h, err := r.Reset(packet)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("mux %d, %v, %d-byte body\n", h.Mux, h.Command, h.Size)
	for r.Next() {
		msg, err := r.Message()
		if err != nil {
			fmt.Println(err)
			return
		}
		switch m := msg.(type) {
		case *pb.NetMessageServerFrame:
			fmt.Printf("@%d %v: frame %d, last input %d\n", r.Offset(), r.ID(), m.Frame, m.LastInputSeq)
		case *pb.NetMessageLocomotionStateUpdate:
			fmt.Printf("@%d %v: archive % x\n", r.Offset(), r.ID(), m.ArchiveData)
		case *pb.NetMessageEntityDestroy:
			fmt.Printf("@%d %v: entity %d\n", r.Offset(), r.ID(), m.EntityId)
		}
	}
	if err := r.Err(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 01 00 11 00 00 05 42 04 08 2a 10 07 45 04 0a 02 01 2a 44 03 08 ac 02
	// mux 1, Data, 17-byte body
	// @6 NetMessageServerFrame: frame 42, last input 7
	// @12 NetMessageLocomotionStateUpdate: archive 01 2a
	// @18 NetMessageEntityDestroy: entity 300
}
