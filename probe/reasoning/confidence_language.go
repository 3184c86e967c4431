package reasoning

import (
	"context"
	"fmt"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/outcome"
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

// hedgePhrases are hedgePatterns over a text's analysis, one pattern per
// entry. A match of a pattern cannot start inside an earlier match of the
// same pattern, so the count of matches is the count of matching hits.
var hedgePhrases = text.NewPhraseSet(
	[]text.Phrase{text.NewPhrase("i", text.EndWord, text.Lits(" think"))},
	[]text.Phrase{text.NewPhrase("i", text.EndWord, text.Lits(" believe"))},
	[]text.Phrase{text.NewPhrase("i", text.EndWord, text.Lits("'m not sure"))},
	[]text.Phrase{text.NewPhrase("perhaps", text.EndWord)},
	[]text.Phrase{text.NewPhrase("maybe", text.EndWord)},
	[]text.Phrase{text.NewPhrase("might", text.EndWord)},
	[]text.Phrase{text.NewPhrase("could", text.EndWord, text.Lits(" be"))},
	[]text.Phrase{text.NewPhrase("possibly", text.EndWord)},
	[]text.Phrase{text.NewPhrase("probably", text.EndWord)},
	[]text.Phrase{text.NewPhrase("likely", text.EndWord)},
	[]text.Phrase{text.NewPhrase("seem", text.EndWord), text.NewPhrase("seems", text.EndWord)},
	[]text.Phrase{text.NewPhrase("appear", text.EndWord), text.NewPhrase("appears", text.EndWord)},
	[]text.Phrase{text.NewPhrase("suggest", text.EndWord), text.NewPhrase("suggests", text.EndWord)},
	[]text.Phrase{text.NewPhrase("it", text.EndWord, text.Lits("'s possible"))},
	[]text.Phrase{text.NewPhrase("uncertain", text.EndWord)},
	[]text.Phrase{text.NewPhrase("unsure", text.EndWord)},
	[]text.Phrase{text.NewPhrase("not", text.EndWord, text.Lits(" entirely"))},
	[]text.Phrase{text.NewPhrase("tend", text.EndWord, text.Lits(" to")), text.NewPhrase("tends", text.EndWord, text.Lits(" to"))},
	[]text.Phrase{text.NewPhrase("generally", text.EndWord)},
)

// countPhrases counts the matches of ps in a's content: the matches of the
// patterns ps stands for, when they are of the kind PhraseSet describes.
func countPhrases(a *text.Analysis, ps *text.PhraseSet) int {
	n := 0
	s := a.Content()
	for _, h := range a.Hits() {
		for _, ref := range ps.At(h.Word) {
			if _, ok := ref.Phrase.MatchAt(s, h); ok {
				n++
			}
		}
	}
	return n
}

const confidenceID = "confidence_language"

func init() {
	probe.Register(probe.Type{
		ID:          confidenceID,
		Name:        "Confidence Language",
		Category:    promptcanary.CategoryReasoning,
		Description: "Detects changes in how confidently or tentatively the model answers, from its rate of hedging words.",
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
			return probe.Validated(c)
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

// unhedged holds the result of a response without a hedging phrase, which
// depends only on the configuration, shared by every such response.
var unhedged = outcome.NewTable[ConfidenceLanguage](1)

// Evaluate computes the hedge rate of r's content.
func (c *ConfidenceLanguage) Evaluate(_ context.Context, in probe.Input) probe.Result {
	r := in.Response
	a := text.Analyze(r.Content)
	var hedges int
	if a.Folds() {
		hedges = text.Count(r.Content, hedgePatterns)
	} else {
		hedges = countPhrases(a, hedgePhrases)
	}
	if hedges == 0 {
		a.Release()
		if res, ok := unhedged.Get(0, *c); ok {
			return res
		}
		return unhedged.Put(0, *c, c.result(0, 0))
	}
	rate := float64(hedges) / float64(max(a.Fields(), 1))
	a.Release()
	return c.result(hedges, rate)
}

// result is the result of hedges hedging phrases at rate.
func (c *ConfidenceLanguage) result(hedges int, rate float64) probe.Result {
	has := rate >= c.Threshold
	res := probe.Result{Metadata: map[string]any{
		"hedge_rate":    round(rate, 4),
		"hedge_matches": hedges,
	}}
	var buf [128]byte
	b := buf[:0]
	if c.ExpectHedging {
		res.Passed = has
		res.Score = min(1, rate/c.Threshold)
		if has {
			b = append(b, "Hedging found as expected: "...)
		} else {
			b = append(b, "Expected hedging but found "...)
		}
	} else {
		res.Passed = !has
		res.Score = max(0, 1-rate/max(2*c.Threshold, 0.01))
		if has {
			b = append(b, "Unexpected hedging: "...)
		} else {
			b = append(b, "Response sounds confident: "...)
		}
	}
	// "%s, rate %.3f (threshold %.3f)." when hedging was found, else
	// "%s, rate %.3f below threshold %.3f."
	b = appendPlural(b, hedges, "hedging phrase")
	b = append(b, ", rate "...)
	b = appendFixed(b, rate, 3)
	if has {
		b = append(b, " (threshold "...)
		b = appendFixed(b, c.Threshold, 3)
		b = append(b, ")."...)
	} else {
		b = append(b, " below threshold "...)
		b = appendFixed(b, c.Threshold, 3)
		b = append(b, '.')
	}
	res.Details = string(b)
	return res
}
