package archive

import (
	"errors"
	"fmt"
)

// Sentinel errors; every error an Archive reports wraps one of them and is an *Error.
var (
	ErrTruncated      = errors.New("archive: unexpected end of data")
	ErrVarintOverflow = errors.New("archive: varint overflow")
	ErrTooLarge       = errors.New("archive: length or count exceeds limit")
	ErrBadBool        = errors.New("archive: malformed bool byte")
	ErrBadHeader      = errors.New("archive: malformed header")
	ErrSizeMismatch   = errors.New("archive: size mismatch")
	ErrChecksum       = errors.New("archive: checksum mismatch")
	ErrBadUTF8        = errors.New("archive: string is not valid UTF-8")
	ErrTrailingData   = errors.New("archive: trailing data")
	ErrMisuse         = errors.New("archive: invalid use")
)

// Error reports what went wrong, while doing what, at which byte offset of the archive.
type Error struct {
	Offset int    // byte offset in the archive where the failing value starts
	Op     string // what was being transferred, e.g. "string length"
	Detail string // optional specifics, e.g. "length 300 > remaining 5"
	Err    error  // one of the sentinel errors
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("%v at offset %d (%s)", e.Err, e.Offset, e.Op)
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// fail records the first error; later calls keep the first one.
func (a *Archive) fail(offset int, op string, err error, detail string) {
	if a.err == nil {
		a.err = &Error{Offset: offset, Op: op, Detail: detail, Err: err}
		a.state = failed
	}
}

func (a *Archive) failf(offset int, op string, err error, format string, args ...any) {
	if a.err == nil {
		a.fail(offset, op, err, fmt.Sprintf(format, args...))
	}
}
