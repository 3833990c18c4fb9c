// Package cli parses the flags of the server's commands (serve, xdump, account,
// headless, loadtest) one way, so that they keep one contract: -h prints the
// usage and exits 0, a bad flag or bad arguments print why and exit 2 (or the
// status the command documents), and every message goes to stderr.
// A command declares its flags on a Flags, sets what differs (its usage line,
// its message prefix, its arguments, its status) and calls Parse.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// Flags is a command's flag set (flag.ContinueOnError, output to stderr) and
// its usage contract.
type Flags struct {
	*flag.FlagSet
	// Synopsis is the command's usage line. -h, a bad flag and arguments that CheckArgs
	// rejects print it above the flag defaults; an unexpected argument prints it
	// alone after the message. Empty: the flag package's "Usage of NAME:".
	Synopsis string
	// Prefix starts the message about an unexpected argument ("server: headless: ").
	Prefix string
	// BadStatus is the exit status for a bad flag or bad arguments: 2 unless the
	// command documents another.
	BadStatus int
	// CheckArgs, if set, says whether the arguments after the flags are right (when
	// they are not, the usage is printed); nil: the command takes none, and the
	// first one is reported as unexpected.
	CheckArgs func(args []string) bool
}

// New returns the flag set of command name, printing to stderr.
func New(name string, stderr io.Writer) *Flags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return &Flags{FlagSet: fs, BadStatus: 2}
}

// Parse parses args (the command line after the command's name). When the
// command should go on it returns ok; otherwise it has printed what was wrong,
// or the help, and status is the command's exit status: 0 after -h, BadStatus
// after a bad flag or bad arguments.
func (f *Flags) Parse(args []string) (status int, ok bool) {
	if f.Synopsis != "" {
		f.FlagSet.Usage = func() {
			fmt.Fprintln(f.Output(), f.Synopsis)
			f.PrintDefaults()
		}
	}
	if err := f.FlagSet.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, false
		}
		return f.BadStatus, false
	}
	if f.CheckArgs != nil {
		if !f.CheckArgs(f.Args()) {
			f.FlagSet.Usage()
			return f.BadStatus, false
		}
		return 0, true
	}
	if f.NArg() > 0 {
		fmt.Fprintf(f.Output(), "%sunexpected argument %q\n", f.Prefix, f.Arg(0))
		if f.Synopsis != "" {
			fmt.Fprintln(f.Output(), f.Synopsis)
		}
		return f.BadStatus, false
	}
	return 0, true
}
