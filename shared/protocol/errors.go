package protocol

import (
	"errors"
	"fmt"
)

// Sentinel errors; every error this package returns wraps one of them and is an *Error.
var (
	ErrTruncated       = errors.New("protocol: unexpected end of packet")
	ErrSizeMismatch    = errors.New("protocol: packet size mismatch")
	ErrBadCommand      = errors.New("protocol: bad mux command")
	ErrVarintOverflow  = errors.New("protocol: varint overflow")
	ErrTooLarge        = errors.New("protocol: size exceeds limit")
	ErrTooManyMessages = errors.New("protocol: too many messages in packet")
	ErrUnknownID       = errors.New("protocol: unknown message id")
	ErrWrongDirection  = errors.New("protocol: message sent in the wrong direction")
	ErrUnregistered    = errors.New("protocol: message type has no id")
	ErrWrongType       = errors.New("protocol: message type does not match id")
	ErrBadPayload      = errors.New("protocol: malformed message payload")
	ErrConfigHash      = errors.New("protocol: configuration hash mismatch")
)

// Error reports what went wrong, while reading or writing what, and where.
type Error struct {
	Offset int    // byte offset in the packet (or payload) where the fault starts; -1 if none
	What   string // what was being read or written, e.g. "message length"
	Detail string // optional specifics, e.g. "length 300 > remaining 5"
	Err    error  // one of the sentinel errors
}

func (e *Error) Error() string {
	msg := e.Err.Error()
	if e.Offset >= 0 {
		msg += fmt.Sprintf(" at offset %d", e.Offset)
	}
	if e.What != "" {
		msg += " (" + e.What + ")"
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

func errorf(offset int, what string, err error, format string, args ...any) *Error {
	return &Error{Offset: offset, What: what, Detail: fmt.Sprintf(format, args...), Err: err}
}
