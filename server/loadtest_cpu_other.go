//go:build !linux

package main

import "time"

// threadCPU is not measured here: -frame-cpu reports nothing.
func threadCPU() time.Duration { return -1 }
