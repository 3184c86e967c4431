package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// statsEnv names the file a child writes its usage to.
const statsEnv = "PROMPTCANARY_SCALE_STATS"

// cpuProfileEnv and memProfileEnv name the files a child writes its CPU
// and heap profiles to, when set (see child).
const (
	cpuProfileEnv = "PROMPTCANARY_SCALE_CPUPROFILE"
	memProfileEnv = "PROMPTCANARY_SCALE_MEMPROFILE"
)

// usage is what one command cost: its peak resident set and its CPU time.
type usage struct {
	peakRSS   int64 // bytes
	user, sys time.Duration
}

func (u usage) cpu() time.Duration { return u.user + u.sys }

// String is the form a child writes and parseUsage reads.
func (u usage) String() string {
	return fmt.Sprintf("%d %d %d", u.peakRSS, u.user.Nanoseconds(), u.sys.Nanoseconds())
}

func parseUsage(s string) (usage, error) {
	f := strings.Fields(s)
	if len(f) != 3 {
		return usage{}, fmt.Errorf("usage %q: want 3 numbers", s)
	}
	var n [3]int64
	for i := range f {
		v, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return usage{}, fmt.Errorf("usage %q: %w", s, err)
		}
		n[i] = v
	}
	return usage{peakRSS: n[0], user: time.Duration(n[1]), sys: time.Duration(n[2])}, nil
}

// parseTimeV reads the peak RSS and CPU times from the report of GNU
// time -v.
func parseTimeV(report string) (usage, error) {
	var u usage
	found := 0
	for line := range strings.Lines(report) {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ": ")
		if !ok {
			continue
		}
		switch k {
		case "Maximum resident set size (kbytes)":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return u, fmt.Errorf("time -v: %q: %w", line, err)
			}
			u.peakRSS, found = n*1024, found+1
		case "User time (seconds)", "System time (seconds)":
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return u, fmt.Errorf("time -v: %q: %w", line, err)
			}
			d := time.Duration(f * float64(time.Second))
			if k[0] == 'U' {
				u.user = d
			} else {
				u.sys = d
			}
			found++
		}
	}
	if found != 3 {
		return u, fmt.Errorf("time -v printed no peak RSS and CPU times:\n%s", report)
	}
	return u, nil
}

// hwm returns VmHWM of /proc/self/status in bytes, 0 when unavailable:
// the peak resident set of this process image (ru_maxrss would also
// count what the parent held before exec on Linux).
func hwm() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(data)) {
		rest, ok := strings.CutPrefix(line, "VmHWM:")
		if !ok {
			continue
		}
		num, _ := strings.CutSuffix(strings.TrimSpace(rest), " kB")
		kib, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
		if err != nil {
			return 0
		}
		return kib * 1024
	}
	return 0
}
