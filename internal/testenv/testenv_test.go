package testenv

import (
	"testing"
)

// tb records how Missing stopped a test, without stopping this one.
type tb struct {
	testing.TB
	failed, skipped bool
	msg             string
}

func (t *tb) Helper()                           {}
func (t *tb) Fatalf(format string, args ...any) { t.failed, t.msg = true, format }
func (t *tb) Skipf(format string, args ...any)  { t.skipped, t.msg = true, format }

func TestMissing(t *testing.T) {
	for _, tc := range []struct {
		ci         string
		fail, skip bool
	}{
		{"true", true, false},
		{"1", true, false},
		{"TRUE", true, false},
		{"", false, true},
		{"false", false, true},
		{"0", false, true},
		{"yes please", false, true},
	} {
		t.Setenv("CI", tc.ci)
		var r tb
		Missing(&r, "protoc is not installed")
		if r.failed != tc.fail || r.skipped != tc.skip || r.msg == "" {
			t.Errorf("CI=%q: failed %v, skipped %v (%q); want failed %v, skipped %v", tc.ci, r.failed, r.skipped, r.msg, tc.fail, tc.skip)
		}
	}
}
