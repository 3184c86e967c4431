package cli

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/runner"
	"github.com/promptcanary/promptcanary/suite"
)

// settings are the provider and engine flags shared by run and compare.
type settings struct {
	providers   []string
	baseURL     string
	temperature float64
	maxTokens   int
	seed        int64
	noSeed      bool
	samples     int
	concurrency int
	maxErrors   int
	timeout     time.Duration
	retries     int
	rpm, tpm    int
	noProgress  bool
}

func (s *settings) flags(c *cobra.Command) {
	f := c.Flags()
	f.StringArrayVarP(&s.providers, "provider", "p", nil, "provider as NAME/MODEL, e.g. sim/stable, openai/gpt-4o-mini, replay/logs.jsonl; repeat to run several side by side (default: providers: or provider: in canary.yaml)")
	f.StringVar(&s.baseURL, "base-url", "", "API base URL for the provider (an OpenAI-compatible server, a proxy)")
	f.Float64VarP(&s.temperature, "temperature", "t", 0, "sampling temperature (default: canary.yaml, else 0)")
	f.IntVar(&s.maxTokens, "max-tokens", 0, "maximum tokens per answer (default: canary.yaml, else 1024)")
	f.Int64Var(&s.seed, "seed", 0, "seed sent to providers that support one (default: canary.yaml, else 42)")
	f.BoolVar(&s.noSeed, "no-seed", false, "send no seed")
	f.IntVar(&s.samples, "samples", 0, "independent samples per prompt (default: canary.yaml, else 1)")
	f.IntVar(&s.concurrency, "concurrency", runner.DefaultConcurrency, "calls in flight at once, per provider")
	f.IntVar(&s.maxErrors, "max-errors", 0, "provider calls allowed to fail before exiting with code 3")
	f.DurationVar(&s.timeout, "timeout", 120*time.Second, "timeout of each call attempt")
	f.IntVar(&s.retries, "retries", 3, "retries of a call after a rate limit, server error, reset or timeout")
	f.IntVar(&s.rpm, "rpm", 0, "requests per minute per provider (default: rpm: in providers:, else unlimited)")
	f.IntVar(&s.tpm, "tpm", 0, "tokens per minute per provider (default: tpm: in providers:, else unlimited)")
	f.BoolVar(&s.noProgress, "no-progress", false, "do not show a progress bar")
}

// target is one provider to run, with everything needed to open and pace it.
type target struct {
	spec    string
	cfg     promptcanary.ProviderConfig
	opts    provider.Options
	limits  runner.Limits
	timeout time.Duration
}

// noBaseURL are the providers that call no remote API, so a base URL means
// nothing to them.
var noBaseURL = []string{"sim", "replay", "http", "exec"}

// resolve merges flags, canary.yaml and built-in defaults into the
// providers to run and the samples per prompt.
func (s *settings) resolve(c *cobra.Command, st *suite.Suite, getenv func(string) string) ([]target, int, error) {
	f := c.Flags()
	d := st.Defaults
	yamlDir := filepath.Dir(st.Path)

	type pick struct {
		spec    string
		baseDir string
	}
	var picks []pick
	switch {
	case len(s.providers) > 0:
		for _, p := range s.providers {
			picks = append(picks, pick{p, ""})
		}
	case len(st.Providers) > 0:
		for _, p := range st.Providers {
			picks = append(picks, pick{p.Spec, yamlDir})
		}
	case d.Provider != "":
		picks = append(picks, pick{d.Provider, yamlDir})
	default:
		return nil, 0, usageErr(errors.New("no provider given"),
			"pass --provider NAME/MODEL (for example --provider sim/stable), or set provider: or providers: in "+st.Path)
	}

	base := promptcanary.ProviderConfig{Temperature: 0, MaxTokens: 1024}
	seed := int64(42)
	base.Seed = &seed
	if f.Changed("temperature") {
		base.Temperature = s.temperature
	} else if d.Temperature != nil {
		base.Temperature = *d.Temperature
	}
	if base.Temperature < 0 || base.Temperature > 2 {
		return nil, 0, usageErr(fmt.Errorf("--temperature %v is out of range", base.Temperature), "use a value from 0 to 2")
	}
	if f.Changed("max-tokens") {
		base.MaxTokens = s.maxTokens
	} else if d.MaxTokens != nil {
		base.MaxTokens = *d.MaxTokens
	}
	if base.MaxTokens <= 0 {
		return nil, 0, usageErr(fmt.Errorf("--max-tokens %d must be positive", base.MaxTokens))
	}
	switch {
	case s.noSeed:
		base.Seed = nil
	case f.Changed("seed"):
		v := s.seed
		base.Seed = &v
	case d.Seed != nil:
		v := *d.Seed
		base.Seed = &v
	}
	samples := 1
	if f.Changed("samples") {
		samples = s.samples
	} else if d.Samples != nil {
		samples = *d.Samples
	}
	for _, check := range []struct {
		bad  bool
		flag string
		v    int
	}{
		{samples < 1, "--samples", samples}, {s.concurrency < 1, "--concurrency", s.concurrency},
		{s.maxErrors < 0, "--max-errors", s.maxErrors}, {s.retries < 0, "--retries", s.retries},
		{s.rpm < 0, "--rpm", s.rpm}, {s.tpm < 0, "--tpm", s.tpm},
	} {
		if check.bad {
			return nil, 0, usageErr(fmt.Errorf("%s %d is out of range", check.flag, check.v))
		}
	}
	if s.timeout <= 0 {
		return nil, 0, usageErr(fmt.Errorf("--timeout %v must be positive", s.timeout), "for example --timeout 60s")
	}

	seen := map[string]bool{}
	targets := make([]target, 0, len(picks))
	for _, p := range picks {
		if _, _, err := provider.Split(p.spec); err != nil {
			return nil, 0, usageErr(err)
		}
		if seen[p.spec] {
			return nil, 0, usageErr(fmt.Errorf("provider %q is given twice", p.spec))
		}
		seen[p.spec] = true
		t := target{spec: p.spec, cfg: base, timeout: s.timeout,
			opts: provider.Options{BaseDir: p.baseDir, Getenv: getenv, HTTPClient: httpClient(s.concurrency)}}
		t.cfg.ModelID = p.spec
		t.cfg.ExtraParams = map[string]any{}
		settings := map[string]any{}
		if entry := st.Provider(p.spec); entry != nil {
			maps.Copy(settings, entry.Settings)
			t.limits = runner.Limits{RPM: entry.RPM, TPM: entry.TPM}
			if entry.Timeout > 0 && !c.Flags().Changed("timeout") {
				t.timeout = entry.Timeout
			}
		}
		name, _, _ := provider.Split(p.spec)
		takesURL := !slices.Contains(noBaseURL, name)
		switch {
		case s.baseURL != "" && !takesURL:
			return nil, 0, usageErr(fmt.Errorf("--base-url does not apply to %s", p.spec), "it sets the API address of openai, anthropic, gemini, ollama and the OpenAI-compatible providers")
		case s.baseURL != "":
			settings["base_url"] = s.baseURL
		case d.BaseURL != "" && len(picks) == 1 && takesURL && settings["base_url"] == nil:
			settings["base_url"] = d.BaseURL
		}
		if len(settings) > 0 {
			t.opts.Settings = settings
		}
		if s.rpm > 0 {
			t.limits.RPM = s.rpm
		}
		if s.tpm > 0 {
			t.limits.TPM = s.tpm
		}
		targets = append(targets, t)
	}
	return targets, samples, nil
}

// httpClient keeps one idle connection per call in flight, so a run at
// concurrency C reuses C connections (TLS handshakes included) instead of
// re-dialling past net/http's default of two idle connections per host.
// Deadlines come from the run engine's per-call context.
func httpClient(concurrency int) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = max(concurrency, 2)
	tr.MaxIdleConns = max(tr.MaxIdleConns, concurrency)
	return &http.Client{Transport: tr}
}

// engine returns the run engine options for one target.
func (s *settings) engine(t target) runner.Options {
	return runner.Options{
		Concurrency: s.concurrency,
		Timeout:     t.timeout,
		MaxAttempts: s.retries + 1,
		Limits:      t.limits,
		Tool:        toolName(),
	}
}
