// Command bench measures the run engine: it starts a local OpenAI-compatible
// server with configurable latency and failure rates, runs a suite of N calls
// at concurrency C through runner.Execute and the real openai client, and
// prints a Markdown table of wall time against the ideal, CPU time, peak
// memory and allocations.
//
//	go run ./bench                      # the default matrix
//	go run ./bench -n 500 -c 32 -latency 20ms -fail-429 0.1
//
// Without scenario flags it runs the default matrix, each scenario in a
// fresh child process so peak memory is per scenario. With any of -n, -c,
// -samples, -latency, -jitter, -fail-429, -fail-500 or -fail-timeout it runs
// that one scenario instead. It exits 1 on a harness error and 2 on a flag
// error, never because of slow figures.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"time"
)

// Exit codes.
const (
	exitOK      = 0
	exitHarness = 1
	exitUsage   = 2
)

// childFlag runs one scenario given as JSON and prints its result as JSON;
// the matrix uses it to run each scenario in a fresh process.
const childFlag = "child-scenario"

// scenarioFlags are the flags that select a single custom scenario.
var scenarioFlags = map[string]bool{
	"n": true, "c": true, "samples": true, "latency": true, "jitter": true,
	"fail-429": true, "fail-500": true, "fail-timeout": true,
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// options are the parsed command line.
type options struct {
	custom scenario
	// isCustom is set when a scenario flag was given.
	isCustom bool
	// fork runs each matrix scenario in a child process.
	fork  bool
	child string
}

// parseFlags reads args; the custom scenario's engine and server knobs
// (-timeout, -attempts, -backoff, -retry-after, -seed, -idle-conns) also
// apply to every matrix scenario.
func parseFlags(args []string, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &options{custom: scenario{Name: "custom"}}
	sc := &o.custom
	fs.IntVar(&sc.Calls, "n", 200, "calls N = prompts × samples")
	fs.IntVar(&sc.Concurrency, "c", 16, "concurrency C: calls in flight")
	fs.IntVar(&sc.Samples, "samples", 1, "samples per prompt (N must be a multiple)")
	fs.DurationVar(&sc.Server.Latency, "latency", 50*time.Millisecond, "server latency per request")
	fs.DurationVar(&sc.Server.Jitter, "jitter", 0, "latency spread: uniform over latency ± jitter")
	fs.Float64Var(&sc.Server.Fail429, "fail-429", 0, "fraction of requests answered 429 with retry-after")
	fs.Float64Var(&sc.Server.Fail500, "fail-500", 0, "fraction of requests answered 500")
	fs.Float64Var(&sc.Server.FailTimeout, "fail-timeout", 0, "fraction of requests held until the client's -timeout")
	fs.DurationVar(&sc.Server.RetryAfter, "retry-after", 10*time.Millisecond, "delay a 429 asks for (retry-after-ms; Retry-After in whole seconds, rounded up)")
	fs.Uint64Var(&sc.Server.Seed, "seed", 1, "seed of the failure and jitter draws")
	fs.DurationVar(&sc.Timeout, "timeout", time.Second, "engine timeout per call attempt")
	fs.IntVar(&sc.MaxAttempts, "attempts", 4, "engine attempts per call (retries + 1)")
	fs.DurationVar(&sc.BackoffBase, "backoff", 5*time.Millisecond, "engine backoff base for retries without retry-after")
	fs.DurationVar(&sc.MaxRetryWait, "max-retry-wait", 0, "engine retry budget (0: the default 3m); rate limits are retried while it lasts")
	fs.IntVar(&sc.IdleConns, "idle-conns", 0, "idle connections the client keeps per host; 0 uses http.DefaultClient like the CLI")
	fs.BoolVar(&o.fork, "fork", true, "run each matrix scenario in a fresh child process, so peak RSS is per scenario")
	fs.StringVar(&o.child, childFlag, "", "internal: run one scenario given as JSON and print its result as JSON")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	fs.Visit(func(f *flag.Flag) {
		if scenarioFlags[f.Name] {
			o.isCustom = true
		}
	})
	if err := sc.validate(); err != nil {
		fs.Usage()
		return nil, err
	}
	return o, nil
}

// matrix returns the default scenarios, with base's engine and server
// knobs. The "64 idle conns" row repeats "wide" with a client transport
// that keeps a connection per slot, to show what http.DefaultClient's two
// idle connections per host cost.
func matrix(base scenario) []scenario {
	mk := func(name string, n, c int, latency time.Duration, f429, f500 float64) scenario {
		sc := base
		sc.Name, sc.Calls, sc.Concurrency, sc.Samples = name, n, c, 1
		sc.Server.Latency, sc.Server.Jitter = latency, 0
		sc.Server.Fail429, sc.Server.Fail500, sc.Server.FailTimeout = f429, f500, 0
		return sc
	}
	pooled := mk("wide, 64 idle conns", 1000, 64, 50*time.Millisecond, 0, 0)
	pooled.IdleConns = 64
	return []scenario{
		mk("issue target", 200, 16, 50*time.Millisecond, 0, 0),
		mk("sequential", 200, 1, 5*time.Millisecond, 0, 0),
		mk("wide", 1000, 64, 50*time.Millisecond, 0, 0),
		pooled,
		mk("failures", 200, 16, 50*time.Millisecond, 0.05, 0.05),
		mk("30% rate limited", 200, 16, 50*time.Millisecond, 0.30, 0),
		mk("CPU floor (no latency)", 1000, 16, 0, 0, 0),
	}
}

// run is the whole command; it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "bench: error: %v\n", err)
		return exitUsage
	}
	if o.child != "" {
		return runChild(ctx, o.child, stdout, stderr)
	}
	scenarios := []scenario{o.custom}
	if !o.isCustom {
		scenarios = matrix(o.custom)
	}
	results := make([]*result, 0, len(scenarios))
	for _, sc := range scenarios {
		fmt.Fprintf(stderr, "bench: %s: N=%d C=%d latency=%s\n", sc.Name, sc.Calls, sc.Concurrency, sc.Server.Latency)
		var res *result
		if o.fork && len(scenarios) > 1 {
			res, err = forkScenario(ctx, sc, stderr)
		} else {
			res, err = runScenario(ctx, sc)
		}
		if err != nil {
			fmt.Fprintf(stderr, "bench: error: %v\n", err)
			return exitHarness
		}
		results = append(results, res)
	}
	if err := writeTable(stdout, results); err != nil {
		fmt.Fprintf(stderr, "bench: error: write table: %v\n", err)
		return exitHarness
	}
	fmt.Fprintf(stdout, "\n%s\n", machine())
	if o.fork && len(scenarios) > 1 {
		fmt.Fprintln(stdout, "Each scenario ran in a fresh process; the fake server runs in that process, so CPU, memory and allocations include its share.")
	} else {
		fmt.Fprintln(stdout, "The fake server runs in this process, so CPU, memory and allocations include its share.")
	}
	return exitOK
}

// runChild runs the scenario encoded in spec and prints its result.
func runChild(ctx context.Context, spec string, stdout, stderr io.Writer) int {
	var sc scenario
	if err := json.Unmarshal([]byte(spec), &sc); err != nil {
		fmt.Fprintf(stderr, "bench: error: decode scenario: %v\n", err)
		return exitUsage
	}
	res, err := runScenario(ctx, sc)
	if err != nil {
		fmt.Fprintf(stderr, "bench: error: %v\n", err)
		return exitHarness
	}
	if err := json.NewEncoder(stdout).Encode(res); err != nil {
		fmt.Fprintf(stderr, "bench: error: encode result: %v\n", err)
		return exitHarness
	}
	return exitOK
}

// forkScenario runs sc in a child process of this executable.
func forkScenario(ctx context.Context, sc scenario, stderr io.Writer) (*result, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("fork scenario %q: find executable: %w", sc.Name, err)
	}
	spec, err := json.Marshal(sc)
	if err != nil {
		return nil, fmt.Errorf("fork scenario %q: %w", sc.Name, err)
	}
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, exe, "-"+childFlag, string(spec))
	cmd.Stdout = &out
	cmd.Stderr = stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("fork scenario %q: %w", sc.Name, err)
	}
	var res result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		return nil, fmt.Errorf("fork scenario %q: decode result: %w", sc.Name, err)
	}
	return &res, nil
}
