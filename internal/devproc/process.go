package devproc

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// Process is a child process started by Start.
type Process struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error // Wait's result, once done is closed
}

// Start starts cmd in a process group of its own, with deathSig sent to it by the
// kernel when this process dies (Linux; elsewhere only an orderly stop ends it).
// cmd.SysProcAttr, if set, keeps its other fields (a Credential).
func Start(cmd *exec.Cmd, deathSig syscall.Signal) (*Process, error) {
	attr := &syscall.SysProcAttr{}
	if cmd.SysProcAttr != nil {
		*attr = *cmd.SysProcAttr
	}
	attr.Setpgid = true
	setDeathSignal(attr, deathSig)
	cmd.SysProcAttr = attr
	p := &Process{cmd: cmd, done: make(chan struct{})}
	// The parent-death signal follows the thread that started the child, not the
	// process: the Go runtime may end a thread a goroutine was locked to, so the
	// child is started from a thread locked to a goroutine that lives as long as
	// the child does.
	started := make(chan error)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		p.err = cmd.Wait()
		close(p.done)
	}()
	if err := <-started; err != nil {
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	return p, nil
}

// Pid is the process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed when the process has exited (and been waited for).
func (p *Process) Done() <-chan struct{} { return p.done }

// Err is how the process ended (exec.Cmd.Wait's error), once Done is closed.
func (p *Process) Err() error {
	<-p.done
	return p.err
}

// Signal sends sig to the process.
func (p *Process) Signal(sig syscall.Signal) error { return p.cmd.Process.Signal(sig) }

// KillGroup sends SIGKILL to the process's group (it and the children it started
// that stayed in its group) and waits for the process.
func (p *Process) KillGroup() {
	_ = syscall.Kill(-p.Pid(), syscall.SIGKILL)
	<-p.done
}

// Alive reports whether pid is a running process; a zombie awaiting its reaper is
// not.
func Alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	// pid (comm) STATE ...: the state follows the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || !strings.HasPrefix(s[i+1:], " Z")
}

// Identity names a process beyond its pid, which the kernel reuses: "PID
// STARTTIME", the start time in clock ticks after boot (/proc/PID/stat). ok is
// false where there is no /proc, or no such process.
func Identity(pid int) (id string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "", false
	}
	// After "pid (comm)": state, then 18 more fields, then starttime.
	f := strings.Fields(s[i+1:])
	if len(f) < 20 || f[0] == "Z" {
		return "", false
	}
	return strconv.Itoa(pid) + " " + f[19], true
}

// Running reports whether the process Identity named as id still runs. It is
// false for a malformed id.
func Running(id string) bool {
	p, _, ok := strings.Cut(id, " ")
	if !ok {
		return false
	}
	pid, err := strconv.Atoi(p)
	if err != nil || pid <= 0 {
		return false
	}
	now, ok := Identity(pid)
	return ok && now == id
}

// FreePort returns a loopback TCP port nobody listened on a moment ago. Someone
// else may take it before the caller binds it: callers retry on another.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
