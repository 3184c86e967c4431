package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Targets of issue 19 for suites past 200 prompts.
const (
	maxCompareRSSAtScale = 150 << 20
	// maxCPUGrowth bounds how much faster than the prompts a command's CPU
	// time may grow from the smallest size (1 is exactly linear; the
	// margin absorbs the noise of a shared machine and fixed costs).
	maxCPUGrowth = 1.25
)

// parseSizes reads -sizes: numbers of prompts, comma-separated, ascending.
func parseSizes(s string) ([]int, error) {
	var sizes []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || (len(sizes) > 0 && n <= sizes[len(sizes)-1]) {
			return nil, fmt.Errorf("-sizes %q: want ascending numbers of prompts, comma-separated", s)
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}

// growth runs the statistical run of runCommands and storeSizes at each
// of the -sizes numbers of prompts, each in a directory of its own under
// dir, and prints one row per size: what each command costs and what the
// stores keep, with the CPU time's growth against the prompts'.
func growth(ctx context.Context, c *config, dir, dsn string, stdout, stderr io.Writer) int {
	sizes, err := parseSizes(c.sizes)
	if err != nil {
		fmt.Fprintf(stderr, "scale: %v\n", err)
		return 2
	}
	var rows []measured
	for _, n := range sizes {
		cn := *c
		cn.prompts = n
		sub := filepath.Join(dir, fmt.Sprintf("prompts-%d", n))
		var m measured
		err := os.MkdirAll(sub, 0o755)
		if err == nil {
			_, err = runCommands(ctx, &cn, sub, stderr, &m)
		}
		if err == nil {
			_, err = storeSizes(ctx, &cn, sub, dsn, &m)
		}
		if err != nil {
			printGrowth(stdout, c, sizes[:len(rows)], rows, dsn != "")
			fmt.Fprintf(stderr, "scale: %d prompts: %v\n", n, err)
			return 1
		}
		rows = append(rows, m)
		fmt.Fprintf(stderr, "scale: %d prompts done\n", n)
	}
	printGrowth(stdout, c, sizes, rows, dsn != "")
	return 0
}

// printGrowth prints the table of growth. A command's CPU growth is its
// CPU time per prompt against that at the smallest size: 1.00 is linear.
func printGrowth(w io.Writer, c *config, sizes []int, rows []measured, postgres bool) {
	fmt.Fprintf(w, "Suites of %d probes, %d samples; baseline %s, run %s, temperature %g; median of %d.\n",
		c.probes, c.samples, c.baseline, c.current, c.temperature, c.repeat)
	fmt.Fprintf(w, "CPU growth is CPU time per prompt against the first size's (1.00 is linear; target ≤ %.2f); compare peak RSS target ≤ %s.\n\n", maxCPUGrowth, mib(maxCompareRSSAtScale))
	head := "| prompts | `run --save-baseline`: RSS, CPU (growth) | `run -o`: RSS, CPU (growth) | `compare --current`: RSS, CPU (growth) | SQLite: run, report |"
	rule := "|---:|---:|---:|---:|---:|"
	if postgres {
		head += " PostgreSQL: run, report |"
		rule += "---:|"
	}
	fmt.Fprintln(w, head+"  |")
	fmt.Fprintln(w, rule+"---|")
	for i, m := range rows {
		ok := m.rss[2] <= maxCompareRSSAtScale
		fmt.Fprintf(w, "| %d |", sizes[i])
		for step := range m.rss {
			g := (m.cpu[step] / float64(sizes[i])) / (rows[0].cpu[step] / float64(sizes[0]))
			ok = ok && g <= maxCPUGrowth
			fmt.Fprintf(w, " %s, %.2f s (%.2f) |", mib(int64(m.rss[step])), m.cpu[step], g)
		}
		fmt.Fprintf(w, " %s, %s |", mb(m.sqliteRun), mb(m.sqliteReport))
		if postgres {
			fmt.Fprintf(w, " %s, %s |", mb(m.pgRun), mb(m.pgReport))
		}
		mark := "ok"
		if !ok {
			mark = "**over**"
		}
		fmt.Fprintf(w, " %s |\n", mark)
	}
}
