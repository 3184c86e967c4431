package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/runner"
	"github.com/promptcanary/promptcanary/suite"

	// The probes the bench suite uses and the client it drives.
	_ "github.com/promptcanary/promptcanary/probe/builtin"
	_ "github.com/promptcanary/promptcanary/provider/openai"
)

// benchProvider is the provider string the engine calls: the real OpenAI
// client, pointed at the fake server through the base_url setting.
const benchProvider = "openai/bench-model"

// probesPerResponse is the number of probes the bench suite runs on every
// response (json_validity and direct_answer).
const probesPerResponse = 2

// scenario is one measured configuration.
type scenario struct {
	Name string `json:"name"`
	// Calls is N, the calls the run makes: prompts × samples.
	Calls       int `json:"calls"`
	Concurrency int `json:"concurrency"`
	Samples     int `json:"samples"`
	// Server shapes the fake server's answers.
	Server serverConfig `json:"server"`
	// Timeout, MaxAttempts, BackoffBase and MaxRetryWait are the
	// engine's options.
	Timeout      time.Duration `json:"timeout"`
	MaxAttempts  int           `json:"max_attempts"`
	BackoffBase  time.Duration `json:"backoff_base"`
	MaxRetryWait time.Duration `json:"max_retry_wait"`
	// IdleConns, when > 0, gives the client an HTTP transport keeping that
	// many idle connections to the server; 0 uses http.DefaultClient, as
	// the CLI does.
	IdleConns int `json:"idle_conns"`
}

// validate reports every problem with sc at once.
func (sc *scenario) validate() error {
	var errs []error
	if sc.Calls < 1 {
		errs = append(errs, fmt.Errorf("-n %d: want at least 1 call", sc.Calls))
	}
	if sc.Concurrency < 1 {
		errs = append(errs, fmt.Errorf("-c %d: want at least 1", sc.Concurrency))
	}
	if sc.Samples < 1 {
		errs = append(errs, fmt.Errorf("-samples %d: want at least 1", sc.Samples))
	} else if sc.Calls%sc.Samples != 0 {
		errs = append(errs, fmt.Errorf("-n %d is not a multiple of -samples %d: N is prompts × samples", sc.Calls, sc.Samples))
	}
	s := &sc.Server
	if s.Latency < 0 || s.Jitter < 0 || s.RetryAfter < 0 {
		errs = append(errs, errors.New("-latency, -jitter and -retry-after must not be negative"))
	}
	for _, r := range []struct {
		flag string
		v    float64
	}{{"-fail-429", s.Fail429}, {"-fail-500", s.Fail500}, {"-fail-timeout", s.FailTimeout}} {
		if !(r.v >= 0 && r.v <= 1) {
			errs = append(errs, fmt.Errorf("%s %g: want a fraction in [0, 1]", r.flag, r.v))
		}
	}
	if sum := s.Fail429 + s.Fail500 + s.FailTimeout; sum > 1+1e-9 {
		errs = append(errs, fmt.Errorf("failure rates add up to %g: want at most 1", sum))
	}
	if s.FailTimeout > 0 && sc.Timeout <= 0 {
		errs = append(errs, errors.New("-fail-timeout needs a positive -timeout, or hung calls never end"))
	}
	if sc.Timeout < 0 || sc.BackoffBase < 0 || sc.MaxRetryWait < 0 {
		errs = append(errs, errors.New("-timeout, -backoff and -max-retry-wait must not be negative"))
	}
	if sc.MaxAttempts < 1 {
		errs = append(errs, fmt.Errorf("-attempts %d: want at least 1", sc.MaxAttempts))
	}
	if sc.IdleConns < 0 {
		errs = append(errs, fmt.Errorf("-idle-conns %d: want 0 or more", sc.IdleConns))
	}
	return errors.Join(errs...)
}

// ideal is the wall time of a perfect engine: N calls in waves of C, each
// wave taking one latency, so ceil(N / C) × latency. It ignores retries,
// jitter and the time to build requests and evaluate responses.
func ideal(calls, concurrency int, latency time.Duration) time.Duration {
	if calls <= 0 || concurrency <= 0 {
		return 0
	}
	waves := (calls + concurrency - 1) / concurrency
	return time.Duration(waves) * latency
}

// result is what one scenario measured.
type result struct {
	Scenario scenario      `json:"scenario"`
	Wall     time.Duration `json:"wall"`
	Ideal    time.Duration `json:"ideal"`
	// CPU is the process's user + system time during the run, server
	// included; CPUOK is false where getrusage is unavailable.
	CPU   time.Duration `json:"cpu"`
	CPUOK bool          `json:"cpu_ok"`
	// PeakRSS is the process's peak resident set size in bytes, 0 when
	// unknown. It is a high-water mark for the whole process lifetime.
	PeakRSS int64 `json:"peak_rss"`
	// Alloc is the bytes allocated on the heap during the run (TotalAlloc
	// delta), server included.
	Alloc uint64 `json:"alloc"`
	// Responses and Errors are what the run recorded; Attempts counts every
	// attempt of every call.
	Responses int          `json:"responses"`
	Errors    int          `json:"errors"`
	Attempts  int          `json:"attempts"`
	Server    serverCounts `json:"server"`
}

// efficiency is ideal / wall, 0 when either is unknown.
func (r *result) efficiency() float64 {
	if r.Wall <= 0 || r.Ideal <= 0 {
		return 0
	}
	return float64(r.Ideal) / float64(r.Wall)
}

// callsPerSecond is N / wall.
func (r *result) callsPerSecond() float64 {
	if r.Wall <= 0 {
		return 0
	}
	return float64(r.Scenario.Calls) / r.Wall.Seconds()
}

// benchSuite returns canary.yaml text for prompts prompts, each judged by
// json_validity and direct_answer.
func benchSuite(prompts int) []byte {
	var b strings.Builder
	b.Grow(64 * prompts)
	b.WriteString("name: bench\nprobes:\n  - json_validity\n  - direct_answer\nprompts:\n")
	for i := range prompts {
		fmt.Fprintf(&b, "  - id: p%05d\n    text: Return a JSON object with an integer answer and a status for item %d.\n", i, i)
	}
	return []byte(b.String())
}

// buildPlan parses the bench suite for sc and plans it against the bench
// provider.
func buildPlan(sc *scenario) (*runner.Plan, error) {
	st, err := suite.Parse("bench.yaml", benchSuite(sc.Calls/sc.Samples))
	if err != nil {
		return nil, fmt.Errorf("parse bench suite: %w", err)
	}
	cfg := promptcanary.ProviderConfig{ModelID: benchProvider, MaxTokens: 64}
	return st.Plan(cfg, sc.Samples), nil
}

// openClient opens the real OpenAI client against base, with no key.
func openClient(base string, idleConns int) (provider.Provider, *http.Client, error) {
	hc := http.DefaultClient
	if idleConns > 0 {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConns = idleConns
		tr.MaxIdleConnsPerHost = idleConns
		hc = &http.Client{Transport: tr}
	}
	opts := provider.Options{
		Settings: map[string]any{"base_url": base + "/v1"},
		Getenv:   func(string) string { return "" },
	}
	if idleConns > 0 {
		opts.HTTPClient = hc
	}
	p, err := provider.Open(benchProvider, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("open bench provider: %w", err)
	}
	return p, hc, nil
}

// runScenario starts a fake server, runs the bench suite through the real
// engine and client against it, and measures the run.
func runScenario(ctx context.Context, sc scenario) (*result, error) {
	if err := sc.validate(); err != nil {
		return nil, err
	}
	plan, err := buildPlan(&sc)
	if err != nil {
		return nil, err
	}
	fs := newFakeServer(sc.Server)
	srv := fs.start()
	defer srv.Close()
	defer fs.shutdown()
	p, hc, err := openClient(srv.URL, sc.IdleConns)
	if err != nil {
		return nil, err
	}
	defer hc.CloseIdleConnections()
	opts := runner.Options{
		Concurrency: sc.Concurrency,
		Timeout:     sc.Timeout,
		MaxAttempts: sc.MaxAttempts,
		BackoffBase: sc.BackoffBase,
		// 0 is the engine's default budget, as with the CLI's flag.
		MaxRetryWait: sc.MaxRetryWait,
		Tool:         "promptcanary-bench",
	}

	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	u0, cpuOK := cpuTime()
	start := time.Now()
	run, err := runner.Execute(ctx, plan, p, opts)
	wall := time.Since(start)
	u1, _ := cpuTime()
	runtime.ReadMemStats(&m1)
	if err != nil {
		return nil, fmt.Errorf("run scenario %q: %w", sc.Name, err)
	}

	res := &result{
		Scenario:  sc,
		Wall:      wall,
		Ideal:     ideal(sc.Calls, sc.Concurrency, sc.Server.Latency),
		CPU:       u1 - u0,
		CPUOK:     cpuOK,
		PeakRSS:   peakRSS(),
		Alloc:     m1.TotalAlloc - m0.TotalAlloc,
		Responses: len(run.LLMResponses),
		Errors:    len(run.Errors),
		Server:    fs.counts(),
	}
	for i := range run.LLMResponses {
		res.Attempts += run.LLMResponses[i].Attempts
	}
	for i := range run.Errors {
		res.Attempts += run.Errors[i].Attempts
	}
	return res, check(res, run)
}

// check makes sure the run measured what the bench claims: every call
// accounted for, and every answer of the fake server judged and passed.
func check(res *result, run *promptcanary.Run) error {
	var errs []error
	if got, want := res.Responses+res.Errors, res.Scenario.Calls; got != want {
		errs = append(errs, fmt.Errorf("responses + errors = %d, want %d calls", got, want))
	}
	if got, want := len(run.ProbeResults), probesPerResponse*res.Responses; got != want {
		errs = append(errs, fmt.Errorf("got %d probe results, want %d", got, want))
	}
	for i := range run.ProbeResults {
		if pr := &run.ProbeResults[i]; !pr.Passed {
			errs = append(errs, fmt.Errorf("probe %s failed on %s: %s", pr.ProbeID, pr.PromptID, pr.Details))
			break
		}
	}
	for i := range run.LLMResponses {
		if r := &run.LLMResponses[i]; r.SystemFingerprint != benchFingerprint || r.ResponseID == "" {
			errs = append(errs, fmt.Errorf("response to %s: fingerprint %q, id %q: the client did not read the fake server's body", r.PromptID, r.SystemFingerprint, r.ResponseID))
			break
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("check scenario %q: %w", res.Scenario.Name, errors.Join(errs...))
	}
	return nil
}
