package protocol

import (
	"errors"
	"fmt"

	"github.com/twinframe/twinframe/shared/protocol/pb"
)

// Sentinel errors; every error this package returns wraps one of them and is an *Error.
var (
	ErrTruncated       = errors.New("protocol: unexpected end of packet")
	ErrSizeMismatch    = errors.New("protocol: packet size mismatch")
	ErrBadCommand      = errors.New("protocol: bad mux command")
	ErrBadMux          = errors.New("protocol: unknown mux id")
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

// Code returns the ErrorCode a peer should be told for err, one of this
// package's errors: ERROR_CODE_TOO_LARGE, ERROR_CODE_FLOOD (too many messages),
// ERROR_CODE_UNKNOWN_MESSAGE (unknown id or wrong direction), or
// ERROR_CODE_BAD_PACKET for any other decoding error. It returns
// ERROR_CODE_UNSPECIFIED for nil and ERROR_CODE_INTERNAL for errors not from decoding.
func Code(err error) pb.ErrorCode {
	switch {
	case err == nil:
		return pb.ErrorCode_ERROR_CODE_UNSPECIFIED
	case errors.Is(err, ErrTooLarge):
		return pb.ErrorCode_ERROR_CODE_TOO_LARGE
	case errors.Is(err, ErrTooManyMessages):
		return pb.ErrorCode_ERROR_CODE_FLOOD
	case errors.Is(err, ErrUnknownID), errors.Is(err, ErrWrongDirection):
		return pb.ErrorCode_ERROR_CODE_UNKNOWN_MESSAGE
	case errors.Is(err, ErrTruncated), errors.Is(err, ErrSizeMismatch), errors.Is(err, ErrBadCommand), errors.Is(err, ErrBadMux),
		errors.Is(err, ErrVarintOverflow), errors.Is(err, ErrBadPayload), errors.Is(err, ErrWrongType),
		errors.Is(err, ErrConfigHash):
		return pb.ErrorCode_ERROR_CODE_BAD_PACKET
	}
	return pb.ErrorCode_ERROR_CODE_INTERNAL
}
