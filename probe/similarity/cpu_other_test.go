//go:build !unix

package similarity

import "time"

// cpuTime is 0 where the CPU time is not available: benchmarks then report
// wall time only.
func cpuTime() time.Duration { return 0 }
