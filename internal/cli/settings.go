package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/check"
	"github.com/promptcanary/promptcanary/runner"
	"github.com/promptcanary/promptcanary/suite"
)

// settings are the provider and engine flags shared by run and compare.
type settings struct {
	providers    []string
	baseURL      string
	temperature  float64
	maxTokens    int
	seed         int64
	noSeed       bool
	samples      int
	concurrency  int
	maxErrors    int
	timeout      time.Duration
	retries      int
	rpm, tpm     int
	maxRetryWait time.Duration
	maxAnswer    int
	noProgress   bool
	prompts      []string
	tags         []string
}

func (s *settings) flags(c *cobra.Command) {
	f := c.Flags()
	f.StringArrayVarP(&s.providers, "provider", "p", nil, "provider as NAME/MODEL, e.g. sim/stable, openai/gpt-4o-mini, replay/logs.jsonl; repeat to run several side by side (default: providers: or provider: in canary.yaml)")
	f.StringVar(&s.baseURL, "base-url", "", "API base URL for the provider (an OpenAI-compatible server, a proxy)")
	f.Float64VarP(&s.temperature, "temperature", "t", 0, "sampling temperature from 0 to 2 (default: canary.yaml, else 0)")
	f.IntVar(&s.maxTokens, "max-tokens", 0, "maximum tokens per answer (default: canary.yaml, else 1024)")
	f.Int64Var(&s.seed, "seed", 0, "seed sent to providers that support one (default: canary.yaml, else 42)")
	f.BoolVar(&s.noSeed, "no-seed", false, "send no seed")
	f.IntVar(&s.samples, "samples", 0, "independent samples per prompt (default: canary.yaml, else 1)")
	f.IntVar(&s.concurrency, "concurrency", runner.DefaultConcurrency, "calls in flight at once, per provider")
	f.IntVar(&s.maxErrors, "max-errors", 0, "provider calls allowed to fail before exiting with code 3 (a run that measured nothing exits 3 regardless)")
	f.DurationVar(&s.timeout, "timeout", check.DefaultTimeout, "timeout of each call attempt (default: timeout: of the provider entry, else 2m)")
	f.IntVar(&s.retries, "retries", check.DefaultRetries, "retries of a call after a server error, reset or timeout (rate limits are retried within --max-retry-wait)")
	f.IntVar(&s.rpm, "rpm", 0, "requests per minute per provider (default: rpm: in providers:, else unlimited)")
	f.IntVar(&s.tpm, "tpm", 0, "tokens per minute per provider (default: tpm: in providers:, else unlimited)")
	f.DurationVar(&s.maxRetryWait, "max-retry-wait", check.DefaultMaxRetryWait, "retry budget per provider: the waits of its calls (Retry-After, backoff), added up; rate limits are retried while it lasts; a longer wait fails the call; 0 never waits")
	f.IntVar(&s.maxAnswer, "max-answer-bytes", 0, fmt.Sprintf("bytes kept of each answer, %d to %d; a longer one is cut, marked and judged by its first part (default: max_answer_bytes: in canary.yaml, else %d, 1 MiB)", promptcanary.MinMaxAnswerBytes, promptcanary.MaxMaxAnswerBytes, promptcanary.DefaultMaxAnswerBytes))
	f.BoolVar(&s.noProgress, "no-progress", false, "do not show a progress bar")
	f.StringArrayVar(&s.prompts, "prompt", nil, "run only this prompt id (repeatable)")
	f.StringArrayVar(&s.tags, "tag", nil, "run only the prompts with this tag (repeatable; with --prompt, either matches)")
}

// workflow turns the flags the user set into the workflow's settings:
// a flag left unset leaves canary.yaml's value in force.
func (s *settings) workflow(c *cobra.Command, getenv func(string) string) check.Settings {
	f := c.Flags()
	w := check.Settings{
		Providers:    s.providers,
		BaseURL:      s.baseURL,
		NoSeed:       s.noSeed,
		Concurrency:  s.concurrency,
		RPM:          s.rpm,
		TPM:          s.tpm,
		MaxRetryWait: s.maxRetryWait,
		Getenv:       getenv,
	}
	if f.Changed("temperature") {
		w.Temperature = &s.temperature
	}
	if f.Changed("max-tokens") {
		w.MaxTokens = &s.maxTokens
	}
	if f.Changed("seed") {
		w.Seed = &s.seed
	}
	if f.Changed("samples") {
		w.Samples = &s.samples
	}
	if f.Changed("timeout") {
		w.Timeout = &s.timeout
	}
	if f.Changed("max-answer-bytes") {
		w.MaxAnswerBytes = &s.maxAnswer
	}
	if s.maxRetryWait == 0 {
		w.MaxRetryWait = -1 // --max-retry-wait 0: never wait
	}
	w.Retries = &s.retries
	return w
}

// resolve selects the prompts asked for and resolves the targets.
func (s *settings) resolve(c *cobra.Command, st *suite.Suite, w check.Settings) (*suite.Suite, []check.Target, int, error) {
	if s.maxRetryWait < 0 {
		return nil, nil, 0, usageErr(fmt.Errorf("--max-retry-wait %v is out of range", s.maxRetryWait), "use a duration from 0s (never wait) to 24h, for example --max-retry-wait 5m")
	}
	if s.concurrency < 1 {
		return nil, nil, 0, usageErr(fmt.Errorf("--concurrency %d is out of range", s.concurrency), fmt.Sprintf("use a value from 1 to %d", promptcanary.MaxConcurrency))
	}
	if s.maxErrors < 0 {
		return nil, nil, 0, usageErr(fmt.Errorf("--max-errors %d is out of range", s.maxErrors), "use 0 or more")
	}
	sel, err := selectPrompts(st, s.prompts, s.tags)
	if err != nil {
		return nil, nil, 0, err
	}
	targets, samples, err := check.Resolve(sel, w)
	if err != nil {
		return nil, nil, 0, err
	}
	return sel, targets, samples, nil
}
