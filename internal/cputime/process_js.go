//go:build js

package cputime

import (
	"syscall/js"
	"time"
)

// Process returns the CPU time (user and system) of the JavaScript host running the
// program, from Node's process.cpuUsage, which counts the host's helper threads
// (garbage collection, compilation) too; 0 in a browser, which has no such clock.
func Process() time.Duration {
	p := js.Global().Get("process")
	if p.Type() != js.TypeObject || p.Get("cpuUsage").Type() != js.TypeFunction {
		return 0
	}
	u := p.Call("cpuUsage")
	return time.Duration(u.Get("user").Float()+u.Get("system").Float()) * time.Microsecond
}
