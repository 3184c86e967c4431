//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Process returns the CPU time the process has used (user and system), or 0
// when getrusage fails.
func Process() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
