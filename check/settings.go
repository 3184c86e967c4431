package check

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/http"
	"path/filepath"
	"strconv"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/modelrules"
	"github.com/promptcanary/promptcanary/runner"
	"github.com/promptcanary/promptcanary/suite"
)

// DefaultTimeout bounds each call attempt unless the suite or the caller
// says otherwise.
const DefaultTimeout = 120 * time.Second

// DefaultRetries is how often a call is retried after a server error, a
// reset or a timeout; rate limits are retried within the retry budget
// (DefaultMaxRetryWait) instead.
const DefaultRetries = 3

// DefaultMaxRetryWait bounds the time one provider's run spends waiting
// between retries unless the caller says otherwise.
const DefaultMaxRetryWait = runner.DefaultMaxRetryWait

// Settings are what the caller asked for on top of canary.yaml. A nil
// pointer or an empty value means "not set": the suite's value, else the
// built-in default, applies.
type Settings struct {
	// Providers to run, as NAME/MODEL; empty means the suite's providers:
	// or provider:.
	Providers []string
	// BaseURL overrides the API address of every remote provider.
	BaseURL     string
	Temperature *float64
	MaxTokens   *int
	Seed        *int64
	// NoSeed sends no seed at all.
	NoSeed  bool
	Samples *int
	// MaxAnswerBytes bounds the bytes kept of each answer; nil means the
	// suite's max_answer_bytes:, else promptcanary.DefaultMaxAnswerBytes.
	MaxAnswerBytes *int
	// Concurrency bounds the calls in flight per provider; 0 means
	// runner.DefaultConcurrency.
	Concurrency int
	// Timeout bounds each call attempt; nil means the provider entry's
	// timeout:, else DefaultTimeout.
	Timeout *time.Duration
	// Retries of one call; nil means DefaultRetries.
	Retries *int
	// RPM and TPM pace each provider; 0 means the provider entry's, else
	// unlimited.
	RPM, TPM int
	// MaxRetryWait bounds the time one provider's run may spend waiting
	// between retries; 0 means DefaultMaxRetryWait, a negative value no
	// waiting at all.
	MaxRetryWait time.Duration
	// Getenv reads API keys and ${ENV} values; nil means os.Getenv.
	Getenv func(string) string
	// Secrets collects every secret the providers read, so that one
	// scrubber keeps them out of everything persisted or printed; nil
	// collects nothing.
	Secrets *redact.Set
}

// Target is one provider to run, with everything needed to open and pace it.
type Target struct {
	// Spec is "name/model" as given.
	Spec    string
	Config  promptcanary.ProviderConfig
	Options provider.Options
	Limits  runner.Limits
	Timeout time.Duration
	// MaxAnswerBytes bounds the bytes kept of each answer.
	MaxAnswerBytes int
	// Entry is the suite's providers: entry for Spec, nil when none.
	Entry *suite.ProviderSpec
	// Adjustments say, one sentence each, what the model's rules changed
	// in the request canary.yaml asked for (Config is what is sent); see
	// modelrules.Apply.
	Adjustments []string
	// Warnings say what may go wrong with the request as sent, which the
	// rules did not change; see modelrules.Warnings.
	Warnings []string
}

// Resolve merges s, the suite's defaults and the built-in defaults into
// the providers to run and the samples per prompt. Every mistake is a
// *ConfigError; one in a setting of s wraps a *FieldError.
func Resolve(st *suite.Suite, s Settings) ([]Target, int, error) {
	picks, err := pickProviders(st, s)
	if err != nil {
		return nil, 0, err
	}
	v, err := resolveValues(st.Defaults, s)
	if err != nil {
		return nil, 0, err
	}
	hc := httpClient(v.concurrency)
	seen := map[string]bool{}
	targets := make([]Target, 0, len(picks))
	var ruleErrs []error
	for _, p := range picks {
		if _, _, err := provider.Split(p.spec); err != nil {
			return nil, 0, configErr(err)
		}
		if seen[p.spec] {
			return nil, 0, configErr(fmt.Errorf("provider %q is given twice", p.spec))
		}
		seen[p.spec] = true
		t, err := newTarget(st, s, v, p, len(picks) == 1, hc)
		if err != nil {
			return nil, 0, err
		}
		if err := applyRules(st, &t); err != nil {
			ruleErrs = append(ruleErrs, err) // every provider's, all at once
			continue
		}
		targets = append(targets, t)
	}
	if len(ruleErrs) > 0 {
		return nil, 0, configErr(errors.Join(ruleErrs...))
	}
	return targets, v.samples, nil
}

// pick is a provider to run and the directory its paths are relative to.
type pick struct{ spec, baseDir string }

// pickProviders returns the providers to run: those of s, else the
// suite's providers:, else its provider:.
func pickProviders(st *suite.Suite, s Settings) ([]pick, error) {
	yamlDir := filepath.Dir(st.Path)
	var picks []pick
	switch {
	case len(s.Providers) > 0:
		for _, p := range s.Providers {
			picks = append(picks, pick{p, ""})
		}
	case len(st.Providers) > 0:
		for _, p := range st.Providers {
			picks = append(picks, pick{p.Spec, yamlDir})
		}
	case st.Defaults.Provider != "":
		picks = append(picks, pick{st.Defaults.Provider, yamlDir})
	default:
		return nil, fieldErr(func(n ...string) (string, []string) {
			return "no provider given", []string{"pass " + n[0] + " NAME/MODEL (for example " + n[0] + " sim/stable), or set provider: or providers: in " + st.Path}
		}, "providers")
	}
	return picks, nil
}

// values are the settings every target shares, resolved and checked.
type values struct {
	base                                     promptcanary.ProviderConfig
	samples, retries, maxAnswer, concurrency int
}

// resolveValues merges s over the suite's defaults d over the built-in
// defaults, and checks every value against its bounds.
func resolveValues(d suite.Defaults, s Settings) (values, error) {
	v := values{base: promptcanary.ProviderConfig{Temperature: 0, MaxTokens: 1024}, samples: 1,
		retries: DefaultRetries, maxAnswer: promptcanary.DefaultMaxAnswerBytes, concurrency: s.Concurrency}
	seed := int64(42)
	v.base.Seed = &seed
	v.base.Temperature = *cmp.Or(s.Temperature, d.Temperature, &v.base.Temperature)
	v.base.MaxTokens = *cmp.Or(s.MaxTokens, d.MaxTokens, &v.base.MaxTokens)
	switch {
	case s.NoSeed:
		v.base.Seed = nil
	case s.Seed != nil:
		v.base.Seed = copyOf(*s.Seed)
	case d.Seed != nil:
		v.base.Seed = copyOf(*d.Seed)
	}
	v.samples = *cmp.Or(s.Samples, d.Samples, &v.samples)
	v.retries = *cmp.Or(s.Retries, &v.retries)
	v.maxAnswer = *cmp.Or(s.MaxAnswerBytes, d.MaxAnswerBytes, &v.maxAnswer)
	if v.concurrency == 0 {
		v.concurrency = runner.DefaultConcurrency
	}
	return v, checkValues(v, s)
}

// copyOf returns a pointer to a copy of x.
func copyOf[T any](x T) *T { return &x }

// checkValues checks the resolved values, and the settings of s that are
// not merged, against their bounds.
func checkValues(v values, s Settings) error {
	if t := v.base.Temperature; math.IsNaN(t) || t < promptcanary.MinTemperature || t > promptcanary.MaxTemperature {
		return outOfRange("temperature", fmt.Sprint(t), fmt.Sprint(promptcanary.MinTemperature), fmt.Sprint(promptcanary.MaxTemperature), func(string) string {
			return fmt.Sprintf("use a value from %g to %g; 0 is the most repeatable", promptcanary.MinTemperature, promptcanary.MaxTemperature)
		})
	}
	for _, c := range []struct {
		field    string
		v        int
		min, max int
	}{
		{"max_tokens", v.base.MaxTokens, 1, promptcanary.MaxMaxTokens},
		{"samples", v.samples, 1, promptcanary.MaxSamples},
		{"concurrency", v.concurrency, 1, promptcanary.MaxConcurrency},
		{"retries", v.retries, 0, promptcanary.MaxRetries},
		{"rpm", s.RPM, 0, promptcanary.MaxRate},
		{"tpm", s.TPM, 0, promptcanary.MaxRate},
		{"max_answer_bytes", v.maxAnswer, promptcanary.MinMaxAnswerBytes, promptcanary.MaxMaxAnswerBytes},
	} {
		if err := inRange(c.field, c.v, c.min, c.max); err != nil {
			return err
		}
	}
	if s.Timeout != nil && (*s.Timeout <= 0 || *s.Timeout > 24*time.Hour) {
		return outOfRange("timeout", s.Timeout.String(), "", "24h", func(name string) string {
			return "use a positive duration of at most 24h, for example " + name + " 60s"
		})
	}
	if s.MaxRetryWait > 24*time.Hour {
		return outOfRange("max_retry_wait", s.MaxRetryWait.String(), "0s", "24h", func(name string) string {
			return "use a duration from 0s (no waiting) to 24h, for example " + name + " 5m"
		})
	}
	return nil
}

// newTarget builds the target for p from the suite's providers: entry for
// it and the settings; only says whether p is the run's one provider, the
// only one the suite's base_url: applies to.
func newTarget(st *suite.Suite, s Settings, v values, p pick, only bool, hc *http.Client) (Target, error) {
	t := Target{Spec: p.spec, Config: v.base, Timeout: DefaultTimeout, MaxAnswerBytes: v.maxAnswer,
		Options: provider.Options{BaseDir: p.baseDir, Getenv: s.Getenv, HTTPClient: hc, Secrets: s.Secrets, MaxAnswerBytes: v.maxAnswer}}
	t.Config.ModelID = p.spec
	t.Config.ExtraParams = map[string]any{}
	settings := map[string]any{}
	if entry := st.Provider(p.spec); entry != nil {
		t.Entry = entry
		maps.Copy(settings, entry.Settings)
		maps.Copy(t.Config.ExtraParams, entry.ExtraParams)
		t.Limits = runner.Limits{RPM: entry.RPM, TPM: entry.TPM}
		if entry.Timeout > 0 {
			t.Timeout = entry.Timeout
		}
	}
	if s.Timeout != nil {
		t.Timeout = *s.Timeout
	}
	// A name no provider registered fails when it is checked, with its
	// own message.
	takesURL := provider.CapabilitiesOf(p.spec).BaseURL || !provider.Registered(p.spec)
	switch {
	case s.BaseURL != "" && !takesURL:
		return t, fieldErr(func(n ...string) (string, []string) {
			return fmt.Sprintf("%s does not apply to %s", n[0], p.spec), []string{"it sets the API address of openai, anthropic, gemini, ollama and the OpenAI-compatible providers"}
		}, "base_url")
	case s.BaseURL != "":
		settings["base_url"] = s.BaseURL
	case st.Defaults.BaseURL != "" && only && takesURL && settings["base_url"] == nil:
		settings["base_url"] = st.Defaults.BaseURL
	}
	if len(settings) > 0 {
		t.Options.Settings = settings
	}
	if s.RPM > 0 {
		t.Limits.RPM = s.RPM
	}
	if s.TPM > 0 {
		t.Limits.TPM = s.TPM
	}
	return t, nil
}

// applyRules makes t's request what its model accepts (see
// modelrules.Apply) and keeps the notes on what changed.
func applyRules(st *suite.Suite, t *Target) error {
	if !provider.CapabilitiesOf(t.Spec).VendorModels {
		return nil // the user writes the request (http/, exec/), or no model is called
	}
	api, _ := t.Options.Settings["api"].(string)
	cfg, notes, err := modelrules.ApplyVia(t.Config, api)
	if err != nil {
		if t.Entry != nil {
			return configErr(locate(st, t.Entry, t.Spec, err))
		}
		return configErr(fmt.Errorf("provider %s: %w", t.Spec, err))
	}
	t.Config, t.Adjustments, t.Warnings = cfg, notes, modelrules.Warnings(cfg)
	r := modelrules.For(t.Spec)
	if field, _ := t.Options.Settings["max_tokens_field"].(string); r.TokenField != "" && field != "" && field != r.TokenField {
		_, model, _ := provider.Split(t.Spec)
		t.Warnings = append(t.Warnings, fmt.Sprintf("%s takes its token limit in %s, but the providers: entry sets max_tokens_field: %s: the API will refuse it unless a gateway translates it", model, r.TokenField, field))
	}
	return nil
}

// inRange checks one integer setting against its bounds.
func inRange(field string, v, lo, hi int) error {
	if v < lo || v > hi {
		return outOfRange(field, strconv.Itoa(v), strconv.Itoa(lo), strconv.Itoa(hi), func(string) string {
			return fmt.Sprintf("use a value from %d to %d", lo, hi)
		})
	}
	return nil
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
