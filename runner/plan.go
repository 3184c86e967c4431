// Package runner executes a run: every prompt of a plan, for every sample,
// against a provider, with bounded concurrency, evaluating each response
// with the prompt's probes.
package runner

import (
	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
)

// Item is one prompt with the probe instances that judge its responses
// (the suite-wide probes followed by the prompt's own).
type Item struct {
	Prompt promptcanary.Prompt
	Probes []probe.Instance
}

// Plan is everything a run needs besides the provider.
type Plan struct {
	Suite string
	Items []Item
	// Config carries the provider string (ModelID) and sampling parameters.
	Config promptcanary.ProviderConfig
	// Samples per prompt; values below 1 mean 1.
	Samples int
	// ConfigHash fingerprints the plan (see suite.Suite.Hash).
	ConfigHash string
	// PromptHashes fingerprint each prompt with its probes and sampling
	// parameters, so a comparison can tell a changed prompt ("stale
	// baseline") from drift.
	PromptHashes map[string]string
}
