// Package testenv decides what a test does when something it needs from the machine
// is missing: a tool (protoc, chromium, xvfb-run, go) or a data set (the conformance
// data). Run by hand, the test skips and says why; in CI (CI set to true, as .ci/run
// and make test do) it fails, because there make setup installed the tool and the
// data lies beside the clone, so its absence is a broken set-up, not a reason to
// pass.
//
// It is for tests only and uses only the standard library, so tests anywhere in the
// module, shared/ included, may import it.
package testenv

import (
	"os"
	"strconv"
	"testing"
)

// InCI reports whether the tests run in CI: the environment variable CI holds a true
// value ("true", "1", ...), as CI systems set it.
func InCI() bool {
	ci, err := strconv.ParseBool(os.Getenv("CI"))
	return err == nil && ci
}

// Missing stops t because something it needs is missing: a skip by hand, a failure
// in CI. The message says what is missing and how to get it.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if InCI() {
		t.Fatalf("missing in CI: "+format, args...)
	} else {
		t.Skipf(format, args...)
	}
}
