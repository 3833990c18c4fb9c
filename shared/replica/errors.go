package replica

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error the package reports wraps one of them.
var (
	ErrHashMismatch   = errors.New("replica: configuration tables do not match their hash")
	ErrBadTables      = errors.New("replica: configuration tables do not build a world")
	ErrNoRegion       = errors.New("replica: no region yet")
	ErrUnknownEntity  = errors.New("replica: message for an unknown entity")
	ErrDuplicate      = errors.New("replica: entity created twice")
	ErrBadArchive     = errors.New("replica: archive does not decode")
	ErrNotReady       = errors.New("replica: no avatar to control yet")
	ErrTooManyInputs  = errors.New("replica: too many unacknowledged inputs")
	ErrNotFinite      = errors.New("replica: coordinate is NaN or infinite")
	ErrUnexpectedType = errors.New("replica: message not meant for a client")
)

// Error is an inconsistency found in server data: which message, which frame and
// entity, and why. It wraps one of the sentinels.
type Error struct {
	Frame   uint64 // the server frame of the packet (0 before the first)
	Message string // the protobuf message name
	Entity  uint64 // 0 if none
	Detail  string
	Err     error
}

func (e *Error) Error() string {
	msg := e.Err.Error()
	if e.Message != "" {
		msg += " (" + e.Message
		if e.Entity != 0 {
			msg += fmt.Sprintf(", entity %d", e.Entity)
		}
		msg += fmt.Sprintf(", frame %d)", e.Frame)
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }
