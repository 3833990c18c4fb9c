//go:build !linux

package devproc

import "syscall"

// setDeathSignal does nothing where the kernel has no parent-death signal: there
// an orderly stop is what ends the child.
func setDeathSignal(*syscall.SysProcAttr, syscall.Signal) {}
