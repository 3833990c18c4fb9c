package protocol_test

import (
	"fmt"
	"testing"

	"github.com/twinframe/twinframe/shared/protocol"
	"google.golang.org/protobuf/proto"
)

// BenchmarkFramePacket builds and decodes a typical frame packet: one server
// frame, 20 locomotion updates of 20-byte archives and 2 entity creates.
func BenchmarkFramePacket(b *testing.B) {
	msgs := framePacket()
	var p protocol.Packet
	build := func() []byte {
		p.Reset(protocol.MuxGame, protocol.CommandData)
		for _, m := range msgs {
			if err := p.Append(m); err != nil {
				b.Fatal(err)
			}
		}
		return p.Bytes()
	}
	pkt := append([]byte(nil), build()...)
	name := fmt.Sprintf("%dmsgs-%dB", len(msgs), len(pkt))

	b.Run("build-"+name, func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(pkt)))
		for b.Loop() {
			build()
		}
	})
	b.Run("read-"+name, func(b *testing.B) { // framing only: ids and payloads
		b.ReportAllocs()
		b.SetBytes(int64(len(pkt)))
		var r protocol.Reader
		for b.Loop() {
			if _, err := r.Reset(pkt); err != nil {
				b.Fatal(err)
			}
			n := 0
			for r.Next() {
				n += len(r.Payload())
			}
			if r.Err() != nil {
				b.Fatal(r.Err())
			}
		}
	})
	b.Run("decode-"+name, func(b *testing.B) { // framing and a new message each
		b.ReportAllocs()
		b.SetBytes(int64(len(pkt)))
		var r protocol.Reader
		for b.Loop() {
			if _, err := r.Reset(pkt); err != nil {
				b.Fatal(err)
			}
			for r.Next() {
				if _, err := r.Message(); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("decode-reuse-"+name, func(b *testing.B) { // framing, unmarshalling into reused messages
		b.ReportAllocs()
		b.SetBytes(int64(len(pkt)))
		var r protocol.Reader
		dst := map[protocol.ID]proto.Message{}
		for _, m := range msgs {
			id, _ := protocol.IDOf(m)
			dst[id] = m.ProtoReflect().New().Interface()
		}
		for b.Loop() {
			if _, err := r.Reset(pkt); err != nil {
				b.Fatal(err)
			}
			for r.Next() {
				if err := r.UnmarshalTo(dst[r.ID()]); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
