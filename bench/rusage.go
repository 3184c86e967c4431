package main

import (
	"strconv"
	"strings"
)

// parseHWM reads the "VmHWM:  1234 kB" line of a /proc status file.
func parseHWM(status string) int64 {
	for line := range strings.Lines(status) {
		rest, ok := strings.CutPrefix(line, "VmHWM:")
		if !ok {
			continue
		}
		num, ok := strings.CutSuffix(strings.TrimSpace(rest), " kB")
		if !ok {
			return 0
		}
		kib, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
		if err != nil || kib < 0 {
			return 0
		}
		return kib * 1024
	}
	return 0
}
