// Package suite loads and validates canary.yaml: the prompts to send and the
// probes that judge the answers.
//
// The file format is the original PromptCanary's, read unchanged, plus a few
// additions: per-prompt probes, probe instance ids, tools offered with a
// prompt and run defaults (provider, temperature, max_tokens, seed, samples).
// Validation is strict and complete: every unknown key, wrong type, bad
// probe parameter and duplicate id is reported at once, each with its file,
// line, field path and a hint, before any provider is called.
package suite

import (
	"fmt"
	"os"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/runner"
)

// DefaultName is the suite name used when the file sets none, as in the
// original tool.
const DefaultName = "unnamed-suite"

// Suite is a loaded, validated canary.yaml.
type Suite struct {
	// Path is the file the suite came from.
	Path string
	// Name is the suite's name, DefaultName when the file sets none.
	Name                string
	Description         string
	Tags                []string
	DefaultSystemPrompt string
	// Prompts are in file order. Each SystemPrompt is already resolved: the
	// prompt's own, else DefaultSystemPrompt.
	Prompts []promptcanary.Prompt
	// Probes are the suite-wide probe instances, in file order.
	Probes []probe.Instance
	// PromptProbes maps a prompt id to the prompt's own probe instances,
	// which run on that prompt only, after the suite-wide ones.
	PromptProbes map[string][]probe.Instance
	// Defaults are the run settings the file sets.
	Defaults Defaults
	// Providers are the `providers:` entries: what to run when no provider
	// is given on the command line, and each provider's settings.
	Providers []ProviderSpec
	// Judges are the `judges:` entries: the settings, rate limits and
	// timeouts of the models that llm_judge probes call, which are never
	// run as providers.
	Judges []ProviderSpec
	// Prices override the built-in price table, keyed by model or
	// NAME/MODEL (USD per million tokens).
	Prices map[string]provider.Price
}

// Defaults are run settings the file may set; nil or "" means "not set in the
// file", leaving the choice to the command line or built-in defaults.
type Defaults struct {
	// Provider is the top-level `provider:`, such as "sim/stable", checked
	// for NAME/MODEL shape only.
	Provider string
	// ProviderLine is the line of `provider:` in the file, for messages
	// about it; 0 when the file sets none.
	ProviderLine int
	// Temperature is `temperature:`, in [promptcanary.MinTemperature,
	// promptcanary.MaxTemperature].
	Temperature *float64
	// MaxTokens is `max_tokens:`, in [1, promptcanary.MaxMaxTokens].
	MaxTokens *int
	// Seed is `seed:`.
	Seed *int64
	// Samples is `samples:`, in [1, promptcanary.MaxSamples].
	Samples *int
	// MaxAnswerBytes is `max_answer_bytes:`, the bytes kept of each
	// answer, in [promptcanary.MinMaxAnswerBytes,
	// promptcanary.MaxMaxAnswerBytes].
	MaxAnswerBytes *int
	// BaseURL is `base_url:`, the API base URL for the provider given by
	// `provider:` or --provider (an OpenAI-compatible server, say).
	BaseURL string
	// Store is `store:`, the run history database, as written: relative to
	// the file's directory; "" means DefaultStore. StorePath resolves it.
	Store string
}

// Load reads and parses the suite file at path. A configuration mistake is
// reported as a *ValidationError; a file that cannot be read as a plain
// wrapped error.
func Load(path string) (*Suite, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read suite %q: %w", path, err)
	}
	return Parse(path, data)
}

// Parse parses and validates a suite from data; filename names it in
// problems and becomes Suite.Path. Every problem found is returned together
// as a *ValidationError. Probe types are looked up in the probe registry, so
// the probes used must be registered before Parse is called.
func Parse(filename string, data []byte) (*Suite, error) {
	p := newParser(filename)
	s := p.parse(data)
	if len(p.problems) > 0 {
		p.sortProblems()
		return nil, &ValidationError{Problems: p.problems}
	}
	s.Path = filename
	s.applyPrices()
	return s, nil
}

// priced is a probe that prices calls (cost): it takes the prices: of
// canary.yaml, which override the built-in price table.
type priced interface {
	SetPrices(map[string]provider.Price)
}

// applyPrices hands the suite's prices to every probe that prices calls.
func (s *Suite) applyPrices() {
	if len(s.Prices) == 0 {
		return
	}
	set := func(insts []probe.Instance) {
		for _, in := range insts {
			if p, ok := in.Probe.(priced); ok {
				p.SetPrices(s.Prices)
			}
		}
	}
	set(s.Probes)
	for _, insts := range s.PromptProbes {
		set(insts)
	}
}

// ProbesFor returns the probe instances that judge the prompt with the given
// id: the suite-wide ones followed by the prompt's own. The slice is fresh;
// callers may modify it.
func (s *Suite) ProbesFor(promptID string) []probe.Instance {
	own := s.PromptProbes[promptID]
	out := make([]probe.Instance, 0, len(s.Probes)+len(own))
	out = append(out, s.Probes...)
	return append(out, own...)
}

// Plan turns the suite into a run plan for the given provider configuration
// and sample count. cfg is used as given: merging the file's Defaults with
// command-line settings is the caller's job.
func (s *Suite) Plan(cfg promptcanary.ProviderConfig, samples int) *runner.Plan {
	items := make([]runner.Item, len(s.Prompts))
	hashes := make(map[string]string, len(s.Prompts))
	// A baseline stays valid across models and seeds: comparing another
	// model, or the same one with a new seed, is what drift checks are for.
	staleCfg := cfg
	staleCfg.ModelID, staleCfg.Seed = "", nil
	for i, pr := range s.Prompts {
		items[i] = runner.Item{Prompt: pr, Probes: s.ProbesFor(pr.ID)}
		hashes[pr.ID] = s.PromptHash(pr.ID, staleCfg)
	}
	return &runner.Plan{
		Suite:        s.Name,
		Items:        items,
		Config:       cfg,
		Samples:      samples,
		ConfigHash:   s.Hash(cfg),
		PromptHashes: hashes,
		Models:       s.models(items),
	}
}
