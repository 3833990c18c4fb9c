//go:build !unix && !js

package cputime

import "time"

// Process is not available on this platform (js/wasm among others): it returns 0.
func Process() time.Duration { return 0 }
