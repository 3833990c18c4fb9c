package sim

import "time"

// cpuTime is not available under wasm.
func cpuTime() time.Duration { return 0 }
