// Package archive packs and unpacks Gazillion-style archives, the compact binary
// format every Twinframe entity, locomotion update and save file travels in.
// One Serialize(*Archive) method per type serves packing and unpacking in all four modes.
//
// docs/PROTOCOL.md §4 documents the format for implementers in other languages,
// with the byte layout of every payload the server sends.
//
// # Design note
//
// An archive is a byte buffer plus a mode that both sides know and never write:
//
//	Migration   = 1  server → server handoff of a whole live entity
//	Database    = 2  server → database save (persistent)
//	Replication = 3  server → client, filtered by a replication policy
//	Disk        = 4  server → file save (persistent)
//
// Headers. Replication starts with one varint: the replication Policy (a flag set;
// AllChannels = 0xEF). Database and Disk start with a raw little-endian uint32 total
// size, then a varint archive Version, then a varint build number. Disk adds a raw
// little-endian CRC-32 (IEEE) of everything before it as its last four bytes, counted in
// the total size, because a file has none of a database's integrity guarantees.
// Migration starts with one varint, the build number, and an unpacker refuses any build
// but its own: a live handoff has no version migration, so both servers must run the
// same code.
//
// Values. int32/int64 are zig-zag then varint; uint16/uint32/uint64 are plain
// varints; float32 is its IEEE bits as a varint; a byte is one raw byte; a string is a
// varint byte length and UTF-8 bytes. FloatFixed(v, p) is the zig-zag varint of
// int32(v·2^p) truncated toward zero (p < 0 means scale 1); positions use p = 3 and
// orientations p = 6. Vectors are three floats, or three fixed values. Collections are a
// varint count then the elements.
//
// Bools ("phantom bools"). The first bool of a group writes a new byte: value in bit 7,
// count 1 in bits 2..0. The next four bools are packed into that same byte in place
// (value in bit 7-i, count updated), even when other values were written in between;
// the sixth starts a new byte. The reader caches the byte when it reads the first bool
// of a group, so later bools of the group consume nothing:
//
//	0x81 = [T]   0xC2 = [T T]   0xA3 = [T F T]   0xFD = [T T T T T]
//
// Nested objects are inline in Replication and Migration. In Database and Disk each is
// prefixed by a raw little-endian uint32 size that counts its own four bytes and is
// checked on unpack, so an unpacker can skip an object it does not know (SkipObject).
// A bool group never crosses the boundary of a persistent nested object, or skipping
// it would lose the outer object's bools.
//
// Errors are sticky: after the first failure every Transfer is a no-op and Err reports
// the failure with its byte offset. Unpacking caps every length and count (Limits)
// before allocating and never panics on malformed input.
package archive
