//go:build unix

package telemetry_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used (user and system), which
// a shared machine's load does not inflate as it does wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
