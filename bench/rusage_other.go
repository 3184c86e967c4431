//go:build !unix

package main

import "time"

// cpuTime reports that CPU time is unavailable on this system.
func cpuTime() (time.Duration, bool) { return 0, false }

// peakRSS reports that the peak resident set size is unknown here.
func peakRSS() int64 { return 0 }
