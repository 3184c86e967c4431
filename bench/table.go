package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// tableHeader names the columns of the results table; README.md explains
// each one.
var tableHeader = []string{
	"Scenario", "N", "C", "Latency", "Failures", "Wall", "Ideal", "Efficiency",
	"CPU", "CPU/call", "Peak RSS", "Alloc/call", "Calls/s", "Attempts", "Errors", "Conns",
}

// writeTable writes one Markdown row per result.
func writeTable(w io.Writer, results []*result) error {
	bw := bufio.NewWriter(w)
	row := func(cells []string) {
		bw.WriteString("| ")
		bw.WriteString(strings.Join(cells, " | "))
		bw.WriteString(" |\n")
	}
	row(tableHeader)
	sep := make([]string, len(tableHeader))
	for i := range sep {
		sep[i] = "---:"
	}
	sep[0], sep[4] = "---", "---"
	row(sep)
	for _, r := range results {
		row(cells(r))
	}
	return bw.Flush()
}

// cells formats one result as table cells, in tableHeader order.
func cells(r *result) []string {
	sc := &r.Scenario
	n := float64(sc.Calls)
	ideal, eff := "–", "–"
	if r.Ideal > 0 {
		ideal, eff = formatDuration(r.Ideal), fmt.Sprintf("%.0f%%", 100*r.efficiency())
	}
	cpu, perCall := "n/a", "n/a"
	if r.CPUOK {
		cpu = formatDuration(r.CPU)
		perCall = fmt.Sprintf("%.0f µs", float64(r.CPU.Microseconds())/n)
	}
	rss := "n/a"
	if r.PeakRSS > 0 {
		rss = fmt.Sprintf("%.1f MiB", float64(r.PeakRSS)/(1<<20))
	}
	latency := formatDuration(sc.Server.Latency)
	if sc.Server.Jitter > 0 {
		latency += " ± " + formatDuration(sc.Server.Jitter)
	}
	if sc.Samples > 1 {
		latency += fmt.Sprintf(" (%d samples)", sc.Samples)
	}
	return []string{
		sc.Name,
		strconv.Itoa(sc.Calls),
		strconv.Itoa(sc.Concurrency),
		latency,
		failures(&sc.Server),
		formatDuration(r.Wall),
		ideal,
		eff,
		cpu,
		perCall,
		rss,
		fmt.Sprintf("%.1f KiB", float64(r.Alloc)/n/1024),
		fmt.Sprintf("%.0f", r.callsPerSecond()),
		strconv.Itoa(r.Attempts),
		strconv.Itoa(r.Errors),
		strconv.FormatInt(r.Server.Conns, 10),
	}
}

// failures describes the injected failure rates, "–" for none.
func failures(s *serverConfig) string {
	var parts []string
	pct := func(f float64) string { return strconv.FormatFloat(100*f, 'f', -1, 64) + "%" }
	if s.Fail429 > 0 {
		parts = append(parts, pct(s.Fail429)+" 429")
	}
	if s.Fail500 > 0 {
		parts = append(parts, pct(s.Fail500)+" 500")
	}
	if s.FailTimeout > 0 {
		parts = append(parts, pct(s.FailTimeout)+" hang")
	}
	if len(parts) == 0 {
		return "–"
	}
	return strings.Join(parts, " + ")
}

// formatDuration prints d in ms below 10 s, in s above, with three
// significant figures where it matters.
func formatDuration(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	switch {
	case d == 0:
		return "0 ms"
	case ms < 10:
		return strconv.FormatFloat(ms, 'f', 2, 64) + " ms"
	case ms < 10_000:
		return strconv.FormatFloat(ms, 'f', 0, 64) + " ms"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + " s"
}

// machine describes where the figures were measured.
func machine() string {
	s := fmt.Sprintf("Machine: %s/%s, %d CPUs, GOMAXPROCS %d, %s", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version())
	if m := cpuModel(); m != "" {
		s += ", " + m
	}
	return s + "."
}

// cpuModel reads the CPU model name on Linux, "" elsewhere.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
