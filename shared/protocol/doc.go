// Package protocol is Twinframe's wire protocol between the server and its clients:
// the protobuf messages (generated in package pb), the table of their stable ids,
// and the mux framing that packs a frame's messages into one websocket binary
// message. It builds packets into reusable buffers and iterates their messages
// without allocating, checking every size against Limits before anything is allocated.
//
// docs/PROTOCOL.md is the protocol as a language-neutral document (connection,
// framing, every message, the archive layouts, errors, versioning), with test
// vectors in testdata/vectors that TestVectors keeps equal to this code.
//
// # Design note
//
// A packet is one websocket binary message: a 6-byte header, then the body, a
// sequence of messages. Integers in the header are little-endian, as in the game's
// mux:
//
//	offset  size  field
//	0       2     mux id (MuxGame = 1)
//	2       3     body size in bytes (24 bits; must equal the bytes that follow)
//	5       1     command: Connect=1 ConnectAck=2 Disconnect=3 ConnectWithData=4
//	              Data=5 (only ConnectWithData and Data carry a body)
//	6       ...   messages, each: varint id, varint payload length, payload
//
// A payload is the protobuf encoding of the id's message type (package pb, the
// .proto package twinframe.v1). The game's archive-carrying messages keep their
// names (NetMessageEntityCreate{archive_data} and so on); their archives are built
// by shared/archive in Replication mode. The messages are proto3, not the game's
// proto2: generated Go then holds scalars as values rather than pointers, so
// unmarshalling allocates per message rather than per field, and a non-default value
// encodes exactly as the game's proto2 required field would; `optional` marks the
// few fields whose presence matters (a deity token, a secret). Unknown fields are
// discarded on unmarshal.
//
// Message ids are stable and never reused; client→server ids count from 1,
// server→client ids from 64. The table below is the Go table in ids.go (a test
// keeps them equal). A deity message is one only a deity session may send
// (client→server) or receive (server→client); max payload is checked before
// unmarshalling, in addition to Limits.MaxMessageSize.
//
//	id   direction      message                          deity  max payload
//	1    client→server  NetMessageLogin                         1 KiB
//	2    client→server  NetMessageMoveTo                        64 B
//	3    client→server  NetMessageStop                          32 B
//	4    client→server  NetMessageFire                          64 B
//	5    client→server  NetMessagePing                          32 B
//	6    client→server  NetMessageXDumpRequest                  4 KiB
//	7    client→server  NetMessageLiveEditRequest        deity  256 KiB
//	8    client→server  NetMessageDebugCommand           deity  256 B
//	9    client→server  NetMessageResyncRequest                 256 B
//	64   server→client  NetMessageLoginResult                   1 KiB
//	65   server→client  NetMessageRegionChange                  4 MiB
//	66   server→client  NetMessageServerFrame                   32 B
//	67   server→client  NetMessageEntityCreate                  64 KiB
//	68   server→client  NetMessageEntityDestroy                 16 B
//	69   server→client  NetMessageLocomotionStateUpdate         16 KiB
//	70   server→client  NetMessagePowerResult                   16 KiB
//	71   server→client  NetMessagePong                          48 B
//	72   server→client  NetMessageXDumpResponse                 4 MiB
//	73   server→client  NetMessageLiveEditResponse              64 KiB
//	74   server→client  NetMessageDebugDraw              deity  4 MiB
//	75   server→client  NetMessageError                         4 KiB
//	76   server→client  NetMessageServerFrameStats              16 KiB
//	77   server→client  NetMessageRegionList             deity  256 KiB
//
// The API follows protowire's verb × noun grid: AppendHeader / ConsumeHeader,
// AppendMessage / SizeMessage, AppendRawMessage / SizeRawMessage / ConsumeMessage,
// plus Packet (a builder over a reusable buffer) and Reader (an iterator over a
// packet's messages). Marshal and Unmarshal map between messages and (id, payload)
// through the table. Errors are *Error values with the byte offset and what was
// being read, wrapping one of the Err* sentinels.
package protocol
