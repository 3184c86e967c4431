package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// measured holds the figures of one size of suite as numbers: peak RSS
// (bytes) and CPU (seconds) of each command runCommands runs (the
// baseline run, the run into a file, the compare), and what one run and
// its drift report add to each store (bytes; PostgreSQL 0 when not
// measured).
type measured struct {
	rss, cpu                                 [3]float64
	sqliteRun, sqliteReport, pgRun, pgReport int64
}

// Targets of issue 10 for the statistical run.
const (
	maxBaselineFile = 3_000_000 // bytes
	maxRunStored    = 5_000_000 // bytes per run, in either store
	maxReportStored = 500_000   // bytes per drift report, in either store (issue 19)
	maxPeakRSS      = 80 << 20
	maxCompareCPU   = 500 * time.Millisecond
)

// runCommands runs the suite as a baseline, runs it again into a file and
// compares that file, each command a child process, and returns their
// figures and the size of the files they wrote; m gets the medians.
func runCommands(ctx context.Context, c *config, dir string, stderr io.Writer, m *measured) ([]figure, error) {
	current := filepath.Join(dir, "current.json")
	drift := filepath.Join(dir, "drift.json")
	type step struct {
		name string
		args []string
		cpu  bool // held against the compare's CPU target
	}
	var steps []step
	usages := make([][]usage, 3)
	for rep := range c.repeat {
		// Each repetition, and a kept -dir, starts over but for the
		// -history database.
		for _, name := range []string{"baselines", ".promptcanary", "current.json", "drift.json", "sizes.db", "sizes.db-wal", "sizes.db-shm"} {
			if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
				return nil, err
			}
		}
		suitePath, err := writeSuite(c, dir)
		if err != nil {
			return nil, err
		}
		steps = []step{
			{"`run --save-baseline` (the baseline)", []string{"run", "-c", suitePath, "--save-baseline", "--no-progress"}, false},
			{"`run -o current.json`", []string{"run", "-c", suitePath, "-p", c.current, "--no-progress", "-o", current}, false},
			{"`compare --current current.json -o drift.json`", []string{"compare", "-c", suitePath, "--current", current, "--baseline-provider", c.baseline, "--no-progress", "-o", drift}, true},
		}
		for i, s := range steps {
			u, err := command(ctx, c, dir, s.args)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", s.name, err)
			}
			usages[i] = append(usages[i], u)
		}
		fmt.Fprintf(stderr, "scale: repetition %d of %d done\n", rep+1, c.repeat)
	}
	var figs []figure
	for i, s := range steps {
		rss := medianOf(usages[i], func(u usage) float64 { return float64(u.peakRSS) })
		cpu := medianOf(usages[i], func(u usage) float64 { return u.cpu().Seconds() })
		m.rss[i], m.cpu[i] = rss, cpu
		figs = append(figs, figure{s.name + ": peak RSS", mib(int64(rss)) + spread(usages[i], func(u usage) string { return mib(u.peakRSS) }),
			"≤ 80 MiB", check(rss <= maxPeakRSS)})
		f := figure{what: s.name + ": CPU (user + system)", value: fmt.Sprintf("%.2f s", cpu) + spread(usages[i], func(u usage) string { return fmt.Sprintf("%.2f", u.cpu().Seconds()) })}
		if s.cpu {
			f.target, f.ok = "≤ 0.5 s", check(cpu <= maxCompareCPU.Seconds())
		}
		figs = append(figs, f)
	}
	baselines, err := filepath.Glob(filepath.Join(dir, "baselines", "*.json"))
	if err != nil || len(baselines) != 1 {
		return figs, fmt.Errorf("want the one baseline file the run saved, got %q (%v)", baselines, err)
	}
	for _, f := range []struct {
		what, path string
		max        int64
	}{
		{"baseline file", baselines[0], maxBaselineFile},
		{"run file (`run -o`)", current, 0},
		{"drift report file (`compare -o`)", drift, 0},
	} {
		info, err := os.Stat(f.path)
		if err != nil {
			return figs, err
		}
		fig := figure{what: f.what, value: mb(info.Size())}
		if f.max > 0 {
			fig.target, fig.ok = fmt.Sprintf("≤ %s", mb(f.max)), check(info.Size() <= f.max)
		}
		figs = append(figs, fig)
	}
	return figs, nil
}

// command runs the promptcanary command line with args in dir and returns
// what it cost. Its standard output is discarded; a failure shows its
// standard error.
func command(ctx context.Context, c *config, dir string, args []string) (usage, error) {
	var cmd *exec.Cmd
	stats := filepath.Join(dir, "usage.txt")
	if c.bin != "" {
		cmd = exec.CommandContext(ctx, "/usr/bin/time", append([]string{"-v", c.bin}, args...)...)
	} else {
		self, err := os.Executable()
		if err != nil {
			return usage{}, err
		}
		cmd = exec.CommandContext(ctx, self, append([]string{childFlag}, args...)...)
		cmd.Env = append(os.Environ(), statsEnv+"="+stats)
	}
	cmd.Dir = dir
	var errBuf bytes.Buffer
	cmd.Stderr = &errBuf
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 0 {
			return usage{}, fmt.Errorf("%v\n%s", err, errBuf.Bytes())
		}
	}
	if c.bin != "" {
		return parseTimeV(errBuf.String())
	}
	data, err := os.ReadFile(stats)
	if err != nil {
		return usage{}, err
	}
	return parseUsage(string(data))
}

// medianOf is the median of f over us.
func medianOf(us []usage, f func(usage) float64) float64 {
	v := make([]float64, len(us))
	for i, u := range us {
		v[i] = f(u)
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// spread lists every repetition's value when there were several.
func spread(us []usage, f func(usage) string) string {
	if len(us) < 2 {
		return ""
	}
	parts := make([]string, len(us))
	for i, u := range us {
		parts[i] = strings.TrimSuffix(f(u), " MiB")
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
