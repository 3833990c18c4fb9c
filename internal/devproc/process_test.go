package devproc

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestIdentity: a process is running under the identity it had; its pid with
// another start time (a reused pid), an exited process and malformed ids are not.
func TestIdentity(t *testing.T) {
	t.Parallel()
	self, ok := Identity(os.Getpid())
	if !ok {
		t.Skip("no /proc here: processes have no identity")
	}
	p, err := Start(exec.Command("sleep", "60"), syscall.SIGKILL)
	if err != nil {
		t.Fatal(err)
	}
	child, ok := Identity(p.Pid())
	if !ok {
		t.Fatalf("no identity for the running child %d", p.Pid())
	}
	_ = p.Signal(syscall.SIGKILL)
	<-p.Done()
	pid := strconv.Itoa(os.Getpid())
	for _, tc := range []struct {
		id   string
		want bool
	}{
		{self, true},
		{pid + " 1", false},
		{child, false},
		{pid, false},
		{"x 1", false},
		{"0 1", false},
		{"", false},
	} {
		if got := Running(tc.id); got != tc.want {
			t.Errorf("Running(%q) = %v, want %v", tc.id, got, tc.want)
		}
	}
	if !strings.HasPrefix(self, pid+" ") {
		t.Errorf("Identity(%d) = %q", os.Getpid(), self)
	}
}
