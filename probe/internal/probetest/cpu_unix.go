//go:build unix

package probetest

import (
	"syscall"
	"time"
)

// CPUTime is the CPU time the process has used, user and system: on a
// shared machine it measures the work where wall time also measures the
// wait for a core.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
