package format

import (
	"context"
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/outcome"
	"github.com/promptcanary/promptcanary/probe/internal/text"
)

// ExpectedKeywords checks the keywords a prompt declares in its
// expected_keywords: each must occur in the response, ignoring case. The
// score is the fraction found and the result passes when none is missing.
// A prompt that declares none is skipped and passes with 1. It has no
// parameters.
type ExpectedKeywords struct {
	// last caches the results of the outcomes (which keywords occur) of
	// the keywords it last judged: the samples of one prompt share them.
	last atomic.Pointer[keywordOutcomes]
}

// keywordOutcomes are the results of the outcomes of one list of declared
// keywords.
type keywordOutcomes struct {
	declared []string // a copy
	cache    *outcome.Cache
}

// outcomes returns the cache for the outcomes of declared, nil when there
// are too many keywords to cache.
func (e *ExpectedKeywords) outcomes(declared []string) *outcome.Cache {
	if len(declared) > outcome.MaxBits {
		return nil
	}
	if o := e.last.Load(); o != nil && slices.Equal(o.declared, declared) {
		return o.cache
	}
	o := &keywordOutcomes{declared: slices.Clone(declared), cache: outcome.New(len(declared))}
	e.last.Store(o)
	return o.cache
}

var (
	_ probe.Probe   = (*ExpectedKeywords)(nil)
	_ probe.Skipper = (*ExpectedKeywords)(nil)
)

func init() {
	probe.Register(probe.Type{
		ID:          "expected_keywords",
		Name:        "Expected Keywords (from prompt)",
		Category:    promptcanary.CategoryFormat,
		Description: "Checks that the response contains the keywords declared in the prompt's expected_keywords.",
		Example: `prompts:
  - id: capital-france
    text: What is the capital of France? Answer in one word.
    expected_keywords: [Paris]
probes:
  - type: expected_keywords
`,
		New: func(probe.Params) (probe.Probe, error) { return &ExpectedKeywords{}, nil },
	})
}

// Skips reports a prompt without expected_keywords, which Evaluate passes
// as skipped.
func (*ExpectedKeywords) Skips(p *promptcanary.Prompt) (reason, hint string) {
	if p != nil && len(p.ExpectedKeywords) > 0 {
		return "", ""
	}
	return "no expected_keywords declared", "add expected_keywords: [...] to the prompt, or use keyword_presence with its own keywords"
}

// Evaluate checks p.ExpectedKeywords against the response. The metadata
// holds "missing", the declared keywords not found. Responses with the
// same outcome in a row of the same keywords share their result.
func (e *ExpectedKeywords) Evaluate(_ context.Context, in probe.Input) probe.Result {
	p, r := in.Prompt, in.Response
	var declared []string
	if p != nil {
		declared = p.ExpectedKeywords
	}
	missing := []string{}
	if len(declared) == 0 {
		return probe.Result{Passed: true, Score: 1, Metadata: map[string]any{"missing": missing},
			Details: "The prompt declares no expected keywords, so the check was skipped."}
	}
	l := text.Lower(r.Content) // shared with the other probes that ignore case
	defer l.Release()
	cache := e.outcomes(declared)
	var found uint // bit i: keyword i occurs, when the outcome is cached
	for i, kw := range declared {
		if text.ContainsLower(l.String(), kw) {
			if cache != nil {
				found |= 1 << i
			}
		} else if cache == nil {
			missing = append(missing, kw)
		}
	}
	if res, ok := cache.Get(found); ok {
		return res
	}
	for i, kw := range declared {
		if cache != nil && found&(1<<i) == 0 {
			missing = append(missing, kw)
		}
	}
	score := float64(len(declared)-len(missing)) / float64(len(declared))
	details := "All " + strconv.Itoa(len(declared)) + " expected keywords were found."
	if len(missing) > 0 {
		details = "Missing " + strconv.Itoa(len(missing)) + " of " + strconv.Itoa(len(declared)) + " expected keywords: " + quoteList(missing) + "."
	}
	return cache.Put(found, probe.Result{Passed: len(missing) == 0, Score: score, Details: details,
		Metadata: map[string]any{"missing": missing}})
}
