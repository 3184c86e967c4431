//go:build unix

package main

import (
	"runtime"
	"syscall"
	"time"
)

// selfUsage is this process's usage so far.
func selfUsage() usage {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	u := usage{peakRSS: hwm(), user: time.Duration(ru.Utime.Nano()), sys: time.Duration(ru.Stime.Nano())}
	if u.peakRSS == 0 {
		u.peakRSS = int64(ru.Maxrss) * 1024
		if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
			u.peakRSS = int64(ru.Maxrss)
		}
	}
	return u
}
