// Command answers measures what large answers cost, the figures of issue
// 19's "Answer size": a check of 10 prompts × 10 samples against an
// OpenAI-compatible server on the loopback interface that answers every
// call with 5 MB of text, run as `promptcanary run` and as a monitor check
// (`promptcanary serve --once`, compared with the baseline the run saved). It prints, for each command, its peak
// resident set and what it added to its SQLite store.
//
//	go run ./bench/answers                          # 5 MB answers, the default 1 MiB bound
//	go run ./bench/answers -size 1000000            # 1 MB answers
//	go run ./bench/answers -max-answer-bytes 4194304
//
// Every command is a child process (this program re-executed as the
// promptcanary command line, under the same soft memory limit as
// cmd/promptcanary), so its peak resident set (VmHWM) is its own; the
// server runs in this process. Exit status: 0 after printing, 2 on a flag
// error, 1 when a step failed.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/promptcanary/promptcanary/internal/cli"
	"github.com/promptcanary/promptcanary/internal/memlimit"
)

// childFlag makes this program the promptcanary command line.
const childFlag = "-promptcanary"

// statsEnv names the file a child writes its peak resident set to.
const statsEnv = "PROMPTCANARY_ANSWERS_STATS"

// memProfileEnv names the file a child writes its allocation profile to
// (with ".run" or ".serve" added), when set.
const memProfileEnv = "PROMPTCANARY_ANSWERS_MEMPROFILE"

// maxPeakRSS is issue 19's bound on a check's peak resident set.
const maxPeakRSS = 150 << 20

func main() {
	if len(os.Args) > 1 && os.Args[1] == childFlag {
		os.Exit(child(os.Args[2:]))
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// config is what the flags set.
type config struct {
	size, prompts, samples, maxAnswer int
	baselineSamples                   int
	dir                               string
	verbose                           bool
}

func run(args []string, stdout, stderr io.Writer) int {
	var c config
	fs := flag.NewFlagSet("answers", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&c.size, "size", 5_000_000, "bytes of every answer the server sends")
	fs.IntVar(&c.prompts, "prompts", 10, "prompts in the suite")
	fs.IntVar(&c.samples, "samples", 10, "samples per prompt")
	fs.IntVar(&c.baselineSamples, "baseline-samples", 30, "samples per prompt of the baseline the monitor check is compared with (30, the default of run --save-baseline)")
	fs.IntVar(&c.maxAnswer, "max-answer-bytes", 0, "max_answer_bytes: of the suite (0: the default, 1 MiB)")
	fs.BoolVar(&c.verbose, "v", false, "print what each command writes (with GODEBUG=gctrace=1, its collections)")
	fs.StringVar(&c.dir, "dir", "", "work in this directory and keep it (default: a temporary directory, removed)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := measure(&c, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "answers: %v\n", err)
		return 1
	}
	return 0
}

// measure runs the commands and prints their figures.
func measure(c *config, stdout, stderr io.Writer) error {
	dir := c.dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "answers-*")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: answerer(c.size)}
	go srv.Serve(ln)
	defer srv.Close()
	if err := writeFiles(c, dir, "http://"+ln.Addr().String()+"/v1"); err != nil {
		return err
	}
	suite, monitor := filepath.Join(dir, "canary.yaml"), filepath.Join(dir, "monitor.yaml")
	samples := strconv.Itoa(c.samples)
	steps := []struct {
		what, db string
		target   bool // held against maxPeakRSS
		args     []string
	}{
		{"`run`", "run.db", true, []string{"run", "--config", suite, "--no-progress", "--output-md", filepath.Join(dir, "report.md")}},
		{"`run --save-baseline` (the monitor's baseline)", "run.db", false, []string{"run", "--config", suite, "--no-progress", "--save-baseline", "--samples", samples, "--baseline-samples", strconv.Itoa(c.baselineSamples)}},
		{"monitor check (`serve --once`, compared with that baseline)", "monitor.db", true, []string{"serve", "--once", "--config", monitor}},
	}
	fmt.Fprintf(stdout, "Check: %d prompts × %d samples (baseline %d samples), every answer %s from a loopback OpenAI-compatible server; max_answer_bytes %s.\n\n",
		c.prompts, c.samples, c.baselineSamples, mb(int64(c.size)), boundName(c.maxAnswer))
	fmt.Fprintln(stdout, "| command | peak RSS | store growth | target | |")
	fmt.Fprintln(stdout, "|---|---:|---:|---:|---|")
	var outcomes []string
	for _, s := range steps {
		db := filepath.Join(dir, s.db)
		before := storeBytes(db)
		rss, line, err := runChild(dir, s.args, c.verbose, stderr)
		if err != nil {
			return fmt.Errorf("%s: %w", s.what, err)
		}
		target, mark := "—", ""
		if s.target {
			target, mark = "≤ 150 MiB", "ok"
			if rss > maxPeakRSS {
				mark = "**over**"
			}
		}
		fmt.Fprintf(stdout, "| %s | %s | %s | %s | %s |\n", s.what, mib(rss), mb(storeBytes(db)-before), target, mark)
		outcomes = append(outcomes, s.what+": "+line)
	}
	fmt.Fprintln(stdout)
	for _, o := range outcomes {
		fmt.Fprintln(stdout, o)
	}
	return nil
}

// answerer is an OpenAI-compatible chat completions handler whose every
// answer is size bytes of prose, written in pieces.
func answerer(size int) http.Handler {
	line := "The quick brown fox jumps over the lazy dog, again and again. "
	chunk := []byte(strings.Repeat(line, 1024))
	var calls atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		// Every answer differs (its first words), as a model's would, so
		// that no store can keep one copy of them all.
		io.WriteString(w, `{"id":"chatcmpl-bench","object":"chat.completion","model":"bench-1","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Answer `+strconv.FormatInt(calls.Add(1), 10)+`. `)
		for left := size; left > 0; left -= len(chunk) {
			w.Write(chunk[:min(left, len(chunk))])
		}
		io.WriteString(w, `"}}],"usage":{"prompt_tokens":12,"completion_tokens":`+strconv.Itoa(size/4)+`,"total_tokens":`+strconv.Itoa(12+size/4)+`}}`)
	})
}

// writeFiles writes canary.yaml and monitor.yaml into dir.
func writeFiles(c *config, dir, baseURL string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "name: big-answers\nstore: run.db\nsamples: %d\n", c.samples)
	if c.maxAnswer > 0 {
		fmt.Fprintf(&b, "max_answer_bytes: %d\n", c.maxAnswer)
	}
	fmt.Fprintf(&b, "providers:\n  - id: openai/bench-1\n    base_url: %s\n    timeout: 60s\n", baseURL)
	b.WriteString("probes:\n  - direct_answer\n  - {type: refusal, expect_refusal: false}\n  - {type: response_length, min_chars: 1, max_chars: 2000}\n  - {type: verbosity, max_words: 300}\n  - json_validity\n")
	b.WriteString("prompts:\n")
	for i := range c.prompts {
		fmt.Fprintf(&b, "  - {id: p%02d, text: 'Write as much as you can about topic %d.'}\n", i, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "canary.yaml"), []byte(b.String()), 0o644); err != nil {
		return err
	}
	mon := fmt.Sprintf("listen: 127.0.0.1:0\nstore: monitor.db\nchecks:\n  - {name: big-answers, suite: canary.yaml, provider: openai/bench-1, samples: %d, confirm: false}\n", c.samples)
	return os.WriteFile(filepath.Join(dir, "monitor.yaml"), []byte(mon), 0o644)
}

// runChild runs this program as the promptcanary command line with args
// in dir and returns its peak resident set. Exit status 1 (probe failures,
// an open incident) counts as success.
func runChild(dir string, args []string, verbose bool, stderr io.Writer) (int64, string, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, "", err
	}
	stats := filepath.Join(dir, "stats")
	cmd := exec.Command(exe, append([]string{childFlag}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), statsEnv+"="+stats, "OPENAI_API_KEY=sk-bench-0123456789abcdef")
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	if verbose {
		fmt.Fprint(stderr, out.String(), errOut.String())
	}
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		fmt.Fprint(stderr, out.String(), errOut.String())
		return 0, "", err
	}
	data, err := os.ReadFile(stats)
	if err != nil {
		return 0, "", fmt.Errorf("no usage written: %w\n%s", err, errOut.String())
	}
	rss, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	return rss, outcome(out.String()), err
}

// outcome is the line of a command's output that says what it found: the
// verdict of a run, the line of a check of serve --once.
func outcome(out string) string {
	check := ""
	for line := range strings.Lines(out) {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "✓") || strings.HasPrefix(line, "✗"):
			return line
		case check == "" && strings.Contains(line, "big-answers  openai/"):
			check = line
		}
	}
	return check
}

// child is the promptcanary command line, as cmd/promptcanary runs it,
// writing its peak resident set to $PROMPTCANARY_ANSWERS_STATS at exit.
func child(args []string) int {
	memlimit.Apply(os.Getenv, memlimit.Default)
	code := cli.Main(context.Background(), args, cli.Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	if path := os.Getenv(memProfileEnv); path != "" {
		f, err := os.Create(path + "." + args[0])
		if err == nil {
			err = pprof.Lookup("allocs").WriteTo(f, 0)
			f.Close()
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "answers: %v\n", err)
			return 4
		}
	}
	if path := os.Getenv(statsEnv); path != "" {
		if err := os.WriteFile(path, []byte(strconv.FormatInt(hwm(), 10)), 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "answers: %v\n", err)
			return 4
		}
	}
	return code
}

// hwm returns VmHWM of /proc/self/status in bytes, 0 when unavailable.
func hwm() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kib * 1024
		}
	}
	return 0
}

// storeBytes is the size of a SQLite database with its journal files.
func storeBytes(db string) int64 {
	var n int64
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if fi, err := os.Stat(db + suffix); err == nil {
			n += fi.Size()
		}
	}
	return n
}

func boundName(n int) string {
	if n == 0 {
		return "1 MiB (the default)"
	}
	return strconv.Itoa(n)
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
func mb(n int64) string  { return fmt.Sprintf("%.2f MB", float64(n)/1e6) }
