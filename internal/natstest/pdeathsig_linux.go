package natstest

import "syscall"

// sysProcAttr makes the kernel kill the server when the test binary dies, so a
// crashed or killed test leaves no server behind. (Pdeathsig fires when the thread
// that started the child exits; the Go runtime keeps its threads for the process's
// life unless a goroutine exits while locked to one, which this package never does.)
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
