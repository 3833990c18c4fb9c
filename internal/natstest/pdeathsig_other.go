//go:build !linux

package natstest

import "syscall"

// sysProcAttr is empty where the kernel has no parent-death signal: there Cleanup
// is what stops the server.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
