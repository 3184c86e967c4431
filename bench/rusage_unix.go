//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
	"time"
)

// cpuTime returns the user + system CPU time the process has used so far.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

// peakRSS returns the process's peak resident set size in bytes, 0 when
// unknown. On Linux it is VmHWM from /proc/self/status: ru_maxrss survives
// execve, so under `go run` it would report the go command's own peak.
// Elsewhere it is ru_maxrss (KiB on Linux, bytes on macOS).
func peakRSS() int64 {
	if n := vmHWM(); n > 0 {
		return n
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) * 1024
}

// vmHWM returns VmHWM of /proc/self/status in bytes, 0 when unavailable.
func vmHWM() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	return parseHWM(string(data))
}
