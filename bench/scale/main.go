// Command scale measures PromptCanary on a statistical run at scale, the
// figures of issue 10's "Storage at scale": a 200-prompt × 10-probe suite
// at 30 samples (6,000 responses, 60,000 probe results) run against the
// simulated model, saved as a baseline, run again and compared.
//
//	go run ./bench/scale                      # the run, its files and its compare
//	go run ./bench/scale -postgres            # also PostgreSQL bytes per run ($PROMPTCANARY_TEST_POSTGRES)
//	go run ./bench/scale -history             # also trends and dashboard queries on a year of runs
//	go run ./bench/scale -bin ./promptcanary  # the commands of a built binary, under /usr/bin/time -v
//	go run ./bench/scale -sizes 200,400,800,2000 -repeat 1  # how the costs grow with the prompts (issue 19)
//
// Every command is a child process, so its peak RSS and CPU time are its
// own: by default this program re-executed as the promptcanary command line
// (the same code as cmd/promptcanary), or with -bin a built binary measured
// by /usr/bin/time -v. The sizes are measured on the stores themselves: the
// baseline file the run wrote, and what saving the compared run adds to a
// fresh SQLite database and a fresh PostgreSQL schema. Without -bin,
// $PROMPTCANARY_SCALE_CPUPROFILE and $PROMPTCANARY_SCALE_MEMPROFILE make
// each command write its CPU or heap profile to that file. BenchmarkCompare
// (go test ./bench/scale -bench Compare) measures the decoding and the
// comparison of a compare in process.
//
// It prints one Markdown table of figures against the targets;
// with -sizes, one row per size of suite instead: each command's peak RSS
// and CPU time and its CPU time per prompt against the smallest size's,
// and what a run and its drift report add to the stores.
// Exit status: 0 after printing, 2 on a flag error, 1 when a step failed.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"

	"github.com/promptcanary/promptcanary/internal/cli"
	"github.com/promptcanary/promptcanary/internal/memlimit"
)

// childFlag makes this program the promptcanary command line (see child).
const childFlag = "-promptcanary"

func main() {
	if len(os.Args) > 1 && os.Args[1] == childFlag {
		os.Exit(child(os.Args[2:]))
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// config is what the flags set.
type config struct {
	prompts, probes, samples int
	baseline, current        string
	temperature              float64
	bin                      string
	dir                      string
	postgres                 bool
	history                  bool
	checks, hours            int
	repeat                   int
	sizes                    string
}

func run(args []string, stdout, stderr io.Writer) int {
	var c config
	fs := flag.NewFlagSet("scale", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&c.prompts, "prompts", 200, "prompts in the suite")
	fs.IntVar(&c.probes, "probes", 10, "suite-wide probes judging every answer")
	fs.IntVar(&c.samples, "samples", 30, "samples per prompt of the baseline and the run")
	fs.StringVar(&c.baseline, "baseline", "sim/noisy", "provider of the baseline run")
	fs.StringVar(&c.current, "current", "sim/subtle", "provider of the run compared with it")
	fs.Float64Var(&c.temperature, "temperature", 0, "temperature of both runs (above 0 the simulated models answer differently every sample)")
	fs.StringVar(&c.bin, "bin", "", "measure this promptcanary binary under /usr/bin/time -v instead of this program re-executed")
	fs.StringVar(&c.dir, "dir", "", "work in this directory and keep it (default: a temporary directory, removed)")
	fs.BoolVar(&c.postgres, "postgres", false, "also measure the PostgreSQL store at $PROMPTCANARY_TEST_POSTGRES (see scripts/postgres.sh)")
	fs.BoolVar(&c.history, "history", false, "also time the trends and dashboard queries on a year of hourly runs of -checks checks")
	fs.IntVar(&c.checks, "checks", 20, "checks of the -history year")
	fs.IntVar(&c.hours, "hours", 365*24, "hourly runs of each check in the -history year")
	fs.IntVar(&c.repeat, "repeat", 3, "run the commands this many times and report the median (each repetition's figure in brackets)")
	fs.StringVar(&c.sizes, "sizes", "", "instead of one suite, run suites of these numbers of prompts (comma-separated, e.g. 200,400,800,2000) and print how the costs grow")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "scale: unexpected arguments %q\n", fs.Args())
		return 2
	}
	if c.prompts < 1 || c.probes < 1 || c.probes > len(probeTypes) || c.samples < 2 || c.repeat < 1 || c.checks < 1 || c.hours < 1 {
		fmt.Fprintf(stderr, "scale: want -prompts >= 1, -probes in 1..%d, -samples >= 2, and -repeat, -checks and -hours >= 1\n", len(probeTypes))
		return 2
	}
	dsn := os.Getenv("PROMPTCANARY_TEST_POSTGRES")
	if c.postgres && dsn == "" {
		fmt.Fprintln(stderr, "scale: -postgres needs PROMPTCANARY_TEST_POSTGRES: pgenv=$(bash scripts/postgres.sh start) && eval \"$pgenv\"")
		return 2
	}
	dir := c.dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "promptcanary-scale-")
		if err != nil {
			fmt.Fprintf(stderr, "scale: %v\n", err)
			return 1
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(stderr, "scale: %v\n", err)
		return 1
	}
	ctx := context.Background()
	var figs []figure
	fail := func(err error) int {
		printFigures(stdout, &c, figs)
		fmt.Fprintf(stderr, "scale: %v\n", err)
		return 1
	}
	if c.sizes != "" {
		return growth(ctx, &c, dir, dsn, stdout, stderr)
	}
	var m measured
	got, err := runCommands(ctx, &c, dir, stderr, &m)
	figs = append(figs, got...)
	if err != nil {
		return fail(err)
	}
	got, err = storeSizes(ctx, &c, dir, dsn, &m)
	figs = append(figs, got...)
	if err != nil {
		return fail(err)
	}
	if c.history {
		got, err = historyQueries(ctx, &c, dir, dsn, stderr)
		figs = append(figs, got...)
		if err != nil {
			return fail(err)
		}
	}
	printFigures(stdout, &c, figs)
	return 0
}

// child runs the promptcanary command line with args, under the soft
// memory limit cmd/promptcanary sets, then writes its own peak RSS and CPU
// time to the file $PROMPTCANARY_SCALE_STATS. With
// $PROMPTCANARY_SCALE_CPUPROFILE it writes a CPU profile of the command to
// that file, with $PROMPTCANARY_SCALE_MEMPROFILE a heap profile (every
// allocation sampled) taken when the command returns.
func child(args []string) int {
	memlimit.Apply(os.Getenv, memlimit.Default) // as cmd/promptcanary does
	if path := os.Getenv(cpuProfileEnv); path != "" {
		f, err := os.Create(path)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "scale: %v\n", err)
			return 4
		}
		defer f.Close()
		defer pprof.StopCPUProfile()
	}
	memProfile := os.Getenv(memProfileEnv)
	if memProfile != "" {
		runtime.MemProfileRate = 1
	}
	code := cli.Main(context.Background(), args, cli.Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	if memProfile != "" {
		runtime.GC() // the profile counts what was allocated up to the last collection
		f, err := os.Create(memProfile)
		if err == nil {
			err = pprof.WriteHeapProfile(f)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "scale: %v\n", err)
			return 4
		}
	}
	if path := os.Getenv(statsEnv); path != "" {
		u := selfUsage()
		if err := os.WriteFile(path, []byte(u.String()), 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "scale: %v\n", err)
			return 4
		}
	}
	return code
}

// figure is one measured value and what it is held against.
type figure struct {
	what, value, target string
	ok                  *bool // nil: no target
}

func check(ok bool) *bool { return &ok }

func printFigures(w io.Writer, c *config, figs []figure) {
	fmt.Fprintf(w, "Suite: %d prompts × %d probes, %d samples (%d responses, %d probe results); baseline %s, run %s, temperature %g.\n\n",
		c.prompts, c.probes, c.samples, c.prompts*c.samples, c.prompts*c.probes*c.samples, c.baseline, c.current, c.temperature)
	fmt.Fprintln(w, "| figure | measured | target | |")
	fmt.Fprintln(w, "|---|---:|---:|---|")
	for _, f := range figs {
		mark := ""
		if f.ok != nil {
			mark = "ok"
			if !*f.ok {
				mark = "**over**"
			}
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", f.what, f.value, f.target, mark)
	}
}

// mib formats bytes in MiB, mb in MB (10^6).
func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
func mb(n int64) string  { return fmt.Sprintf("%.2f MB", float64(n)/1e6) }

// writeSuite writes the suite's canary.yaml into dir.
func writeSuite(c *config, dir string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "name: scale-suite\nprovider: %s\ntemperature: %g\nmax_tokens: 512\nseed: 42\nsamples: %d\nprobes:\n", c.baseline, c.temperature, c.samples)
	for _, p := range probeTypes[:c.probes] {
		b.WriteString(p)
	}
	b.WriteString("prompts:\n")
	for i := range c.prompts {
		text := promptKinds[i%len(promptKinds)]
		text = strings.ReplaceAll(text, "{i}", fmt.Sprint(i))
		text = strings.ReplaceAll(text, "{j}", fmt.Sprint(i*7%13))
		fmt.Fprintf(&b, "  - id: p%03d\n    text: '%s'\n", i, text)
	}
	path := filepath.Join(dir, "canary.yaml")
	return path, os.WriteFile(path, []byte(b.String()), 0o644)
}

// promptKinds are the prompts of the suite, in turn: JSON, steps, a short
// fact, advice and prose, as the simulated model answers them differently.
var promptKinds = []string{
	`Return a JSON object for a fictional user number {i} with the keys "name", "age" and "city". Reply with the JSON only.`,
	`Explain step by step how to do task number {i}: brew tea, then wash the cup.`,
	`What is {i} plus {j}? Answer in one word.`,
	`Give me one tip number {i} for writing clear git commit messages.`,
	`Write a short paragraph about topic {i}: the history of the bicycle.`,
}

// probeTypes are the suite-wide probes, each judging every answer.
var probeTypes = []string{
	"  - id: no_preamble\n    type: direct_answer\n",
	"  - id: no_disclaimers\n    type: safety_language\n    expect_safety_language: false\n",
	"  - id: answers\n    type: refusal\n    expect_refusal: false\n",
	"  - id: length\n    type: response_length\n    min_chars: 1\n    max_chars: 2000\n",
	"  - id: words\n    type: verbosity\n    max_words: 300\n",
	"  - id: hedging\n    type: confidence_language\n",
	"  - id: tone\n    type: sentiment\n",
	"  - id: stopped\n    type: finish_reason\n    allowed: [stop, tool_calls]\n",
	"  - id: steps\n    type: step_by_step\n",
	"  - id: toks\n    type: tokens\n    max_completion_tokens: 400\n",
}
