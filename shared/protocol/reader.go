package protocol

import (
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// Default limits.
const (
	DefaultMaxPacketSize  = 1 << 20 // bytes, header included
	DefaultMaxMessageSize = 1 << 20 // payload bytes
	DefaultMaxMessages    = 4096
)

// Limits caps what a Reader accepts and a Packet builds. A zero field means its
// default. The message table's per-id MaxPayload applies as well.
//
// A server reading clients should use tighter limits than a client reading the
// server, e.g. Limits{MaxPacketSize: 260 << 10, MaxMessages: 64} (room for the
// largest client message, a 256 KiB live edit); the websocket read limit should
// be MaxPacketSize.
type Limits struct {
	MaxPacketSize  int // whole packet, header included; at most HeaderSize+MaxBodySize
	MaxMessageSize int // one message's payload
	MaxMessages    int // messages in one packet
}

func (l Limits) withDefaults() Limits {
	if l.MaxPacketSize <= 0 {
		l.MaxPacketSize = DefaultMaxPacketSize
	}
	l.MaxPacketSize = min(l.MaxPacketSize, HeaderSize+MaxBodySize)
	if l.MaxMessageSize <= 0 {
		l.MaxMessageSize = DefaultMaxMessageSize
	}
	if l.MaxMessages <= 0 {
		l.MaxMessages = DefaultMaxMessages
	}
	return l
}

// Reader iterates the messages of one packet without allocating:
//
//	var r protocol.Reader // reusable
//	hdr, err := r.Reset(packet)
//	for r.Next() {
//		msg, err := r.Message() // or use r.ID() and r.Payload()
//	}
//	if err := r.Err(); err != nil { ... }
//
// Every check happens before anything is allocated: the packet against
// MaxPacketSize and its header's body size, each message's id against the
// table (and From), its length against MaxMessageSize and the id's MaxPayload,
// and the count against MaxMessages. Errors are *Error with the byte offset in
// the packet.
type Reader struct {
	Limits Limits    // zero fields mean the defaults
	From   Direction // if set, ids of the other direction are refused

	lim     Limits
	pkt     []byte
	off     int // next message starts here
	count   int
	id      ID
	payload []byte
	msgOff  int // the current message starts here
	err     error
}

// Reset starts reading packet and returns its header. The packet must be
// exactly one header and its body; the slice is aliased, not copied.
func (r *Reader) Reset(packet []byte) (Header, error) {
	*r = Reader{Limits: r.Limits, From: r.From, lim: r.Limits.withDefaults()}
	h, err := r.header(packet)
	if err != nil {
		r.err = err
		return h, err
	}
	r.pkt = packet
	r.off = HeaderSize
	return h, nil
}

func (r *Reader) header(packet []byte) (Header, error) {
	h, err := ConsumeHeader(packet)
	if err != nil {
		return h, err
	}
	if HeaderSize+h.Size > r.lim.MaxPacketSize {
		return h, errorf(2, "body size", ErrTooLarge, "packet %d bytes > limit %d", HeaderSize+h.Size, r.lim.MaxPacketSize)
	}
	if len(packet) > r.lim.MaxPacketSize {
		return h, errorf(0, "packet", ErrTooLarge, "%d bytes > limit %d", len(packet), r.lim.MaxPacketSize)
	}
	if body := len(packet) - HeaderSize; h.Size != body {
		return h, errorf(2, "body size", ErrSizeMismatch, "header says %d, body is %d", h.Size, body)
	}
	return h, nil
}

// Next advances to the next message and reports whether there is one. It
// returns false at the end of the packet or on the first error (see Err).
func (r *Reader) Next() bool {
	r.id, r.payload = 0, nil
	if r.err != nil || r.off >= len(r.pkt) {
		return false
	}
	if r.count >= r.lim.MaxMessages {
		r.err = errorf(r.off, "message count", ErrTooManyMessages, "more than %d", r.lim.MaxMessages)
		return false
	}
	start := r.off
	b := r.pkt[start:]
	v, m := protowire.ConsumeVarint(b)
	if m < 0 {
		r.err = varintError(start, "message id", m)
		return false
	}
	info := (*MessageInfo)(nil)
	if v < maxID {
		info = lookup(ID(v))
	}
	if info == nil {
		r.err = errorf(start, "message id", ErrUnknownID, "id %d", v)
		return false
	}
	if r.From != 0 && info.Dir != r.From {
		r.err = errorf(start, "message id", ErrWrongDirection, "%s (%d) is %v", info.Name(), v, info.Dir)
		return false
	}
	l, k := protowire.ConsumeVarint(b[m:])
	if k < 0 {
		r.err = varintError(start+m, "message length", k)
		return false
	}
	if max := min(info.MaxPayload, r.lim.MaxMessageSize); l > uint64(max) {
		r.err = errorf(start+m, "message length", ErrTooLarge, "%s payload %d > cap %d", info.Name(), l, max)
		return false
	}
	if rest := uint64(len(b) - m - k); l > rest {
		r.err = errorf(start+m, "message length", ErrTruncated, "length %d > remaining %d", l, rest)
		return false
	}
	r.id = info.ID
	r.payload = b[m+k : m+k+int(l)]
	r.msgOff = start
	r.off = start + m + k + int(l)
	r.count++
	return true
}

// ID returns the current message's id.
func (r *Reader) ID() ID { return r.id }

// Payload returns the current message's payload; it aliases the packet.
func (r *Reader) Payload() []byte { return r.payload }

// Offset returns the byte offset of the current message in the packet.
func (r *Reader) Offset() int { return r.msgOff }

// Message unmarshals the current message into a new message of its type.
func (r *Reader) Message() (proto.Message, error) {
	m, err := Unmarshal(r.id, r.payload)
	return m, r.at(err)
}

// UnmarshalTo unmarshals the current message into dst, which must be of its type.
func (r *Reader) UnmarshalTo(dst proto.Message) error {
	return r.at(UnmarshalTo(r.id, r.payload, dst))
}

// at places a payload error at the current message's offset.
func (r *Reader) at(err error) error {
	if e, ok := err.(*Error); ok && e.Offset < 0 {
		e.Offset = r.msgOff
	}
	return err
}

// ReadAll resets r to packet and returns its header and every message in it,
// unmarshalled; the first error (header, framing or payload) ends it.
func (r *Reader) ReadAll(packet []byte) (Header, []proto.Message, error) {
	h, err := r.Reset(packet)
	if err != nil {
		return h, nil, err
	}
	var msgs []proto.Message
	for r.Next() {
		m, err := r.Message()
		if err != nil {
			return h, msgs, err
		}
		msgs = append(msgs, m)
	}
	return h, msgs, r.Err()
}

// Err returns the first error met by Reset or Next, or nil at a clean end.
func (r *Reader) Err() error { return r.err }
