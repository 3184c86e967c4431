package reasoning

import (
	"fmt"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/text"
)

// hedgePatterns mark tentative language.
var hedgePatterns = text.Compile("(?i)",
	`\bI think\b`,
	`\bI believe\b`,
	`\bI'm not sure\b`,
	`\bperhaps\b`,
	`\bmaybe\b`,
	`\bmight\b`,
	`\bcould be\b`,
	`\bpossibly\b`,
	`\bprobably\b`,
	`\blikely\b`,
	`\bseems?\b`,
	`\bappears?\b`,
	`\bsuggest[s]?\b`,
	`\bit's possible\b`,
	`\buncertain\b`,
	`\bunsure\b`,
	`\bnot entirely\b`,
	`\btend[s]? to\b`,
	`\bgenerally\b`,
)

const (
	confidenceID   = "confidence_language"
	confidenceName = "Confidence Language"
	confidenceDesc = "Detects changes in how confidently or tentatively the model answers, from its rate of hedging words."
)

func init() {
	probe.Register(probe.Type{
		ID:          confidenceID,
		Name:        confidenceName,
		Category:    promptcanary.CategoryReasoning,
		Description: confidenceDesc,
		Example: `probes:
  - type: confidence_language
    expect_hedging: false
    threshold: 0.03
`,
		Params: []probe.Param{
			{Name: "expect_hedging", Kind: probe.Bool, Default: false,
				Doc: "true expects tentative language; false expects a confident answer"},
			{Name: "threshold", Kind: probe.Float, Default: 0.03,
				Doc: "hedges per word at or above which the answer counts as hedging; must be > 0"},
		},
		New: func(p probe.Params) (probe.Probe, error) {
			c := &ConfidenceLanguage{}
			c.ExpectHedging, _ = p.Bool("expect_hedging")
			c.Threshold, _ = p.Float("threshold")
			if err := c.Validate(); err != nil {
				return nil, err
			}
			return c, nil
		},
	})
}

// ConfidenceLanguage measures the rate of hedging phrases ("I think",
// "perhaps", "might", …) per word and checks it against an expectation.
type ConfidenceLanguage struct {
	// ExpectHedging, when true, requires a hedge rate of at least
	// Threshold; when false it requires less. The YAML default is false.
	ExpectHedging bool
	// Threshold is the hedge rate (hedges per word) that counts as
	// hedging; it must be > 0. The YAML default is 0.03.
	Threshold float64
}

var _ probe.Probe = (*ConfidenceLanguage)(nil)

// ID returns "confidence_language".
func (c *ConfidenceLanguage) ID() string { return confidenceID }

// Name returns the display name.
func (c *ConfidenceLanguage) Name() string { return confidenceName }

// Category returns the reasoning category.
func (c *ConfidenceLanguage) Category() promptcanary.Category { return promptcanary.CategoryReasoning }

// Description returns a one-sentence description.
func (c *ConfidenceLanguage) Description() string { return confidenceDesc }

// Validate reports a Threshold that is not a positive finite number (the
// score divides by it) as a *probe.ParamError.
func (c *ConfidenceLanguage) Validate() error {
	if err := finite("threshold", c.Threshold); err != nil {
		return err
	}
	if c.Threshold <= 0 {
		return &probe.ParamError{Param: "threshold", Msg: fmt.Sprintf("must be > 0, got %v", c.Threshold),
			Hint: "the score divides by threshold"}
	}
	return nil
}

// Evaluate computes the hedge rate of r's content.
func (c *ConfidenceLanguage) Evaluate(_ *promptcanary.Prompt, r *promptcanary.Response) probe.Result {
	hedges := text.Count(r.Content, hedgePatterns)
	rate := float64(hedges) / float64(max(text.WordCount(r.Content), 1))
	has := rate >= c.Threshold
	res := probe.Result{Metadata: map[string]any{
		"hedge_rate":    round(rate, 4),
		"hedge_matches": hedges,
	}}
	found := plural(hedges, "hedging phrase")
	if c.ExpectHedging {
		res.Passed = has
		res.Score = min(1, rate/c.Threshold)
		if has {
			res.Details = fmt.Sprintf("Hedging found as expected: %s, rate %.3f (threshold %.3f).", found, rate, c.Threshold)
		} else {
			res.Details = fmt.Sprintf("Expected hedging but found %s, rate %.3f below threshold %.3f.", found, rate, c.Threshold)
		}
		return res
	}
	res.Passed = !has
	res.Score = max(0, 1-rate/max(2*c.Threshold, 0.01))
	if has {
		res.Details = fmt.Sprintf("Unexpected hedging: %s, rate %.3f (threshold %.3f).", found, rate, c.Threshold)
	} else {
		res.Details = fmt.Sprintf("Response sounds confident: %s, rate %.3f below threshold %.3f.", found, rate, c.Threshold)
	}
	return res
}
