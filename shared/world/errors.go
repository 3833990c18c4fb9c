package world

import (
	"errors"
	"fmt"
	"strconv"
)

// ErrInvalid is wrapped by every error about the content of a configuration: a bad
// reference, an unknown symbol value, a polygon that is not simple, a marker outside
// its area, and so on.
var ErrInvalid = errors.New("world: invalid configuration")

// ErrNoConfig is returned by Load when the file system holds no .config file.
var ErrNoConfig = errors.New("world: no .config files")

// Error is one problem found in a configuration, at a row of a table. File and Line
// say where the row was read (File "" for a world built in Go). It wraps ErrInvalid or
// the parser's error.
type Error struct {
	File  string
	Line  int
	Table string
	Row   int // row index in the table, or -1
	Err   error
}

func (e *Error) Error() string {
	s := ""
	if e.File != "" {
		s = e.File + ":" + strconv.Itoa(e.Line) + ": "
	}
	if e.Table != "" {
		s += e.Table
		if e.Row >= 0 {
			s += " row " + strconv.Itoa(e.Row)
		}
		s += ": "
	}
	return s + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// maxErrors caps how many problems one Verify reports.
const maxErrors = 20

// problems collects verification errors in the order found.
type problems struct {
	w    *World
	errs []error
	more int
}

func (p *problems) add(table string, row int, format string, args ...any) {
	if len(p.errs) >= maxErrors {
		p.more++
		return
	}
	e := &Error{Table: table, Row: row, Err: fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))}
	if pos, ok := p.w.pos(table, row); ok {
		e.File, e.Line = pos.File, pos.Line
	}
	p.errs = append(p.errs, e)
}

func (p *problems) err() error {
	if p.more > 0 {
		p.errs = append(p.errs, fmt.Errorf("%w: and %d more problems", ErrInvalid, p.more))
	}
	return errors.Join(p.errs...)
}
