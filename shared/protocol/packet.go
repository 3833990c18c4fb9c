package protocol

import (
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// HeaderSize is the size of a packet header: uint16 mux id, 24-bit body size,
// command byte.
const HeaderSize = 6

// MaxBodySize is the largest body the 24-bit size field can describe.
const MaxBodySize = 1<<24 - 1

// MuxGame is the mux id of the game channel, the only one Twinframe uses.
const MuxGame uint16 = 1

// Command is a packet's mux command byte. The values are the game's, as the
// MHServerEmu project documents them (there named Connect, Accept, Disconnect,
// Insert and Message).
type Command uint8

// Mux commands. Only CommandData and CommandConnectWithData carry messages; the
// others have an empty body.
//
// What the server does with each: a client may open with Connect, which the
// server answers with a ConnectAck packet before it reads the login; or open
// straight with the login in a Data (or ConnectWithData) packet, which gets no
// ConnectAck. After the login a client sends Data, or Disconnect to leave (the
// server then closes the websocket normally, 1000); any other command is a bad
// packet. The server sends Data packets only, besides that ConnectAck; it never
// sends Disconnect: it ends a session by closing the websocket with a code.
const (
	CommandConnect         Command = 1 // client: open the channel before the login
	CommandConnectAck      Command = 2 // server: the answer to Connect
	CommandDisconnect      Command = 3 // client: leave
	CommandConnectWithData Command = 4 // client: open the channel with the login
	CommandData            Command = 5 // messages
)

var commandNames = [...]string{
	CommandConnect: "Connect", CommandConnectAck: "ConnectAck", CommandDisconnect: "Disconnect",
	CommandConnectWithData: "ConnectWithData", CommandData: "Data",
}

func (c Command) String() string {
	if int(c) < len(commandNames) && commandNames[c] != "" {
		return commandNames[c]
	}
	return "Command(" + strconv.Itoa(int(c)) + ")"
}

// Valid reports whether c is one of the defined commands.
func (c Command) Valid() bool { return c >= CommandConnect && c <= CommandData }

// HasData reports whether packets with command c may carry messages.
func (c Command) HasData() bool { return c == CommandData || c == CommandConnectWithData }

// Header is a decoded packet header.
type Header struct {
	Mux     uint16
	Size    int // body size in bytes, after the header
	Command Command
}

// AppendHeader appends the 6-byte header h to b. h.Size must be in [0, MaxBodySize].
func AppendHeader(b []byte, h Header) []byte {
	return append(b, byte(h.Mux), byte(h.Mux>>8),
		byte(h.Size), byte(h.Size>>8), byte(h.Size>>16), byte(h.Command))
}

// ConsumeHeader decodes the header at the start of b. It checks only the header
// itself (length, mux id, command); see Reader for the whole packet. The only
// mux id is MuxGame: any other is refused, so that a peer that speaks another
// channel learns it at once instead of having its messages taken as the game's.
func ConsumeHeader(b []byte) (Header, error) {
	if len(b) < HeaderSize {
		return Header{}, errorf(0, "packet header", ErrTruncated, "%d bytes < %d", len(b), HeaderSize)
	}
	h := Header{
		Mux:     uint16(b[0]) | uint16(b[1])<<8,
		Size:    int(b[2]) | int(b[3])<<8 | int(b[4])<<16,
		Command: Command(b[5]),
	}
	if h.Mux != MuxGame {
		return h, errorf(0, "mux id", ErrBadMux, "%d; the only channel is %d (the game)", h.Mux, MuxGame)
	}
	if !h.Command.Valid() {
		return h, errorf(5, "mux command", ErrBadCommand, "%v", h.Command)
	}
	if h.Size != 0 && !h.Command.HasData() {
		return h, errorf(2, "body size", ErrBadCommand, "%v carries no body, size %d", h.Command, h.Size)
	}
	return h, nil
}

// SizeRawMessage returns the size of a framed message with the given id and
// payload length.
func SizeRawMessage(id ID, n int) int {
	return protowire.SizeVarint(uint64(id)) + protowire.SizeVarint(uint64(n)) + n
}

// AppendRawMessage appends a framed message: varint id, varint length, payload.
func AppendRawMessage(b []byte, id ID, payload []byte) []byte {
	b = protowire.AppendVarint(b, uint64(id))
	b = protowire.AppendVarint(b, uint64(len(payload)))
	return append(b, payload...)
}

// SizeMessage returns the framed size of m (id, length and payload), or -1 if m's
// type is not in the message table.
func SizeMessage(m proto.Message) int {
	id, ok := IDOf(m)
	if !ok {
		return -1
	}
	return SizeRawMessage(id, marshalOptions.Size(m))
}

// AppendMessage appends m framed with its table id to b. The payload is
// marshalled directly into b (proto.MarshalOptions.MarshalAppend), so with enough
// capacity nothing is allocated. On error b is returned unchanged.
func AppendMessage(b []byte, m proto.Message) ([]byte, error) {
	id, ok := IDOf(m)
	if !ok {
		return b, unregistered(m)
	}
	return appendMessage(b, id, m, marshalOptions.Size(m))
}

// appendMessage appends m with a payload of n bytes, as computed by Size.
func appendMessage(b []byte, id ID, m proto.Message, n int) ([]byte, error) {
	start := len(b)
	b = protowire.AppendVarint(b, uint64(id))
	b = protowire.AppendVarint(b, uint64(n))
	mark := len(b)
	opts := marshalOptions
	opts.UseCachedSize = true // Size just computed and cached them
	out, err := opts.MarshalAppend(b, m)
	if err != nil {
		return b[:start], &Error{Offset: start, What: id.String(), Detail: err.Error(), Err: ErrBadPayload}
	}
	if len(out)-mark != n {
		return b[:start], errorf(start, id.String(), ErrSizeMismatch,
			"payload %d bytes, Size said %d (message modified concurrently?)", len(out)-mark, n)
	}
	return out, nil
}

// ConsumeMessage decodes the framed message at the start of b and returns its
// id, its payload (aliasing b) and the bytes consumed. It checks only the
// framing; error offsets are relative to b. See Reader for limits and ids.
func ConsumeMessage(b []byte) (id ID, payload []byte, n int, err error) {
	v, m := protowire.ConsumeVarint(b)
	if m < 0 {
		return 0, nil, 0, varintError(0, "message id", m)
	}
	if v > 1<<32-1 {
		return 0, nil, 0, errorf(0, "message id", ErrUnknownID, "id %d", v)
	}
	id = ID(v)
	l, k := protowire.ConsumeVarint(b[m:])
	if k < 0 {
		return 0, nil, 0, varintError(m, "message length", k)
	}
	rest := uint64(len(b) - m - k)
	if l > rest {
		return 0, nil, 0, errorf(m, "message length", ErrTruncated, "length %d > remaining %d", l, rest)
	}
	n = m + k + int(l)
	return id, b[m+k : n], n, nil
}

// varintError turns protowire's negative length into an Error: a varint that
// runs out of bytes is truncated; any other failure (more than ten bytes, or a
// tenth byte over 1) is an overflow.
func varintError(offset int, what string, n int) error {
	if _, m := protowire.ConsumeVarint(truncatedProbe[:]); n == m {
		return errorf(offset, what, ErrTruncated, "varint runs past the end")
	}
	return errorf(offset, what, ErrVarintOverflow, "%v", protowire.ParseError(n))
}

// truncatedProbe is a varint cut short; protowire's code for it is the
// "truncated" code, which its API does not export.
var truncatedProbe = [1]byte{0x80}

// Packet builds one packet in a reusable buffer: Reset, Append messages, Bytes.
// A zero Packet starts as a CommandData packet on MuxGame. A Packet refuses to
// grow past its Limits, so a Reader with the same Limits never rejects its framing.
type Packet struct {
	Limits Limits // zero fields mean the defaults

	buf   []byte
	count int
}

// Reset starts a new packet on mux with command c, keeping the buffer's capacity.
func (p *Packet) Reset(mux uint16, c Command) {
	p.buf = AppendHeader(p.buf[:0], Header{Mux: mux, Command: c})
	p.count = 0
}

// Append appends m. It fails, leaving the packet as it was, if m's type has no
// id, if m does not marshal, or if a limit would be exceeded.
func (p *Packet) Append(m proto.Message) error {
	if err := p.started(); err != nil {
		return err
	}
	id, ok := IDOf(m)
	if !ok {
		return unregistered(m)
	}
	n := marshalOptions.Size(m)
	if err := p.fits(id, n); err != nil {
		return err
	}
	var err error
	p.buf, err = appendMessage(p.buf, id, m, n)
	if err == nil {
		p.count++
	}
	return err
}

// AppendRaw appends an already-marshalled payload under id.
func (p *Packet) AppendRaw(id ID, payload []byte) error {
	if err := p.started(); err != nil {
		return err
	}
	if lookup(id) == nil {
		return errorf(len(p.buf), "message id", ErrUnknownID, "id %d", id)
	}
	if err := p.fits(id, len(payload)); err != nil {
		return err
	}
	p.buf = AppendRawMessage(p.buf, id, payload)
	p.count++
	return nil
}

func (p *Packet) started() error {
	if len(p.buf) < HeaderSize {
		p.Reset(MuxGame, CommandData)
	}
	if c := Command(p.buf[5]); !c.HasData() {
		return errorf(-1, "packet", ErrBadCommand, "%v carries no messages", c)
	}
	return nil
}

func (p *Packet) fits(id ID, n int) error {
	lim := p.Limits.withDefaults()
	off := len(p.buf)
	if max := min(lookup(id).MaxPayload, lim.MaxMessageSize); n > max {
		return errorf(off, id.String(), ErrTooLarge, "payload %d > cap %d", n, max)
	}
	if size := off + SizeRawMessage(id, n); size > lim.MaxPacketSize {
		return errorf(off, id.String(), ErrTooLarge, "packet would be %d bytes > %d", size, lim.MaxPacketSize)
	}
	if p.count >= lim.MaxMessages {
		return errorf(off, id.String(), ErrTooManyMessages, "%d messages", lim.MaxMessages)
	}
	return nil
}

// Len returns the number of messages appended since Reset.
func (p *Packet) Len() int { return p.count }

// Size returns the packet's size in bytes so far, header included.
func (p *Packet) Size() int { return len(p.buf) }

// Bytes writes the body size into the header and returns the packet. The slice
// aliases the Packet's buffer: it is valid until the next Reset or Append.
func (p *Packet) Bytes() []byte {
	if len(p.buf) < HeaderSize {
		p.Reset(MuxGame, CommandData)
	}
	n := len(p.buf) - HeaderSize
	p.buf[2], p.buf[3], p.buf[4] = byte(n), byte(n>>8), byte(n>>16)
	return p.buf
}
