// Package runner executes a run: every prompt of a plan, for every sample,
// against a provider, with bounded concurrency, evaluating each response
// with the prompt's probes.
package runner

import (
	"cmp"
	"slices"

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
	// FirstSample is added to each sample index a provider is asked for
	// (provider.Request.Sample); the run's results stay numbered from 0.
	// A provider that answers by sample (the simulator, replay files, the
	// exec and http templates) gives a run that continues others into one
	// baseline answers of its own instead of the first run's again.
	FirstSample int
	// ConfigHash fingerprints the plan (see suite.Suite.Hash).
	ConfigHash string
	// PromptHashes fingerprint each prompt with its probes and sampling
	// parameters, so a comparison can tell a changed prompt ("stale
	// baseline") from drift.
	PromptHashes map[string]string
	// References are the answers of the baseline the run is compared
	// against, by prompt id (see References): probes that compare an
	// answer with reference answers (probe.Deps.References, such as similarity)
	// judge each response against those of its prompt, and a prompt
	// without any passes them as skipped. Nil means the run has no
	// baseline: such probes then judge each response against the run's
	// other responses to its prompt (leave-one-out) once every call is
	// done, so that a baseline saved from the run holds the spread of the
	// model's own answers, the counterpart of a later run's closeness to
	// them.
	References map[string][]promptcanary.Response
	// Models are the models the probes call (probe.Deps.Models), with their
	// settings and limits (see suite.Suite.Plan); the run opens them
	// before its first call. A model a probe calls that is not listed is
	// opened with the probe's settings when it is first called.
	Models []Model
}

// References returns the answers of run by prompt id, in sample order, for
// Plan.References. The map is not nil even when run holds no answers (a
// baseline of the original tool), so that probes judged against it skip
// rather than compare a run with itself.
func References(run *promptcanary.Run) map[string][]promptcanary.Response {
	refs := map[string][]promptcanary.Response{}
	if run == nil {
		return refs
	}
	for _, r := range run.LLMResponses {
		refs[r.PromptID] = append(refs[r.PromptID], r)
	}
	for _, rs := range refs {
		slices.SortStableFunc(rs, func(a, b promptcanary.Response) int { return cmp.Compare(a.Sample, b.Sample) })
	}
	return refs
}

// Referenced reports whether some prompt of p has a probe that judges an
// answer against reference answers (probe.Deps.References): only then do
// References and Rescore matter to a run of p.
func (p *Plan) Referenced() bool {
	for i := range p.Items {
		if len(referenced(&p.Items[i])) > 0 {
			return true
		}
	}
	return false
}
