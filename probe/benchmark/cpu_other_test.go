//go:build !unix

package benchmark_test

import "time"

// cpuTime is not measured here: the cpu-evals/s metric is left out.
func cpuTime() time.Duration { return 0 }
