//go:build !unix

package probetest

import "time"

// CPUTime is 0 where the CPU time is not available: benchmarks then report
// wall time only.
func CPUTime() time.Duration { return 0 }
