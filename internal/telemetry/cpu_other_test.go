//go:build !unix

package telemetry_test

import "time"

// cpuTime is 0 where getrusage is missing: the benchmark reports no CPU
// time there.
func cpuTime() time.Duration { return 0 }
