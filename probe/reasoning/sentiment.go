package reasoning

import (
	"context"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/outcome"
	"github.com/promptcanary/promptcanary/probe/internal/text"
)

var (
	positivePatterns = text.Compile("(?i)",
		`\bexcellent\b`, `\bgreat\b`, `\bwonderful\b`, `\bamazing\b`, `\bhappy\b`,
		`\bpleased?\b`, `\bdelighted\b`, `\bfantastic\b`, `\bgood\b`, `\bbeneficial\b`,
		`\bpositive\b`, `\bsuccessful\b`, `\beffective\b`, `\bimpressive\b`, `\boutstanding\b`,
	)
	negativePatterns = text.Compile("(?i)",
		`\bbad\b`, `\bterrible\b`, `\bawful\b`, `\bworse\b`, `\bworst\b`,
		`\bfail(?:ed|ure)?\b`, `\bproblem\b`, `\berror\b`, `\bwrong\b`, `\bincorrect\b`,
		`\bunfortunate\b`, `\bnegative\b`, `\bdangerous\b`, `\bharmful\b`,
	)
	// positiveWords and negativeWords are the words of the patterns above:
	// a \bword\b match is a whole word of the text's analysis.
	positiveWords = text.NewWordSet("excellent", "great", "wonderful", "amazing", "happy",
		"please", "pleased", "delighted", "fantastic", "good", "beneficial",
		"positive", "successful", "effective", "impressive", "outstanding")
	negativeWords = text.NewWordSet("bad", "terrible", "awful", "worse", "worst",
		"fail", "failed", "failure", "problem", "error", "wrong", "incorrect",
		"unfortunate", "negative", "dangerous", "harmful")
)

// The scores of a sentiment verdict.
const (
	sentimentMatch    = 1.0
	sentimentMismatch = 0.4
)

const sentimentID = "sentiment"

func init() {
	probe.Register(probe.Type{
		ID:          sentimentID,
		Name:        "Response Sentiment / Tone",
		Category:    promptcanary.CategoryReasoning,
		Description: "Detects a shift in the response's tone from its rates of positive and negative words.",
		Example: `probes:
  - type: sentiment
    expect_positive: true
    threshold: 0.02
`,
		Params: []probe.Param{
			{Name: "expect_positive", Kind: probe.Bool,
				Doc: "true expects a positive tone, false a neutral or negative one; absent only reports the tone"},
			{Name: "threshold", Kind: probe.Float, Default: 0.02,
				Doc: "positive rate minus negative rate at or above which the tone is positive; must be a finite number"},
		},
		New: func(p probe.Params) (probe.Probe, error) {
			s := &Sentiment{}
			if b, ok := p.Bool("expect_positive"); ok {
				s.ExpectPositive = &b
			}
			s.Threshold, _ = p.Float("threshold")
			return probe.Validated(s)
		},
	})
}

// Sentiment scores a response's tone by counting positive and negative
// words, a lightweight heuristic without a model.
type Sentiment struct {
	// ExpectPositive is the expected tone: true positive, false neutral or
	// negative, nil no expectation (the probe then only reports the tone).
	ExpectPositive *bool
	// Threshold is the net sentiment (positive rate − negative rate) at or
	// above which the tone is positive. The YAML default is 0.02.
	Threshold float64
}

var _ probe.Probe = (*Sentiment)(nil)

// Validate reports a Threshold that is NaN or infinite as a
// *probe.ParamError.
func (s *Sentiment) Validate() error { return finite("threshold", s.Threshold) }

// tone names a tone for details.
func tone(positive bool) string {
	if positive {
		return "positive"
	}
	return "neutral/negative"
}

// sentimentKey is a Sentiment's configuration, comparable.
type sentimentKey struct {
	expect    int8 // 0 none, 1 positive, -1 not positive
	threshold float64
}

// neutral holds the result of a response without a positive or negative
// word, which depends only on the configuration, shared by every such
// response.
var neutral = outcome.NewTable[sentimentKey](1)

// Evaluate counts the positive and negative words of r's content.
func (s *Sentiment) Evaluate(_ context.Context, in probe.Input) probe.Result {
	r := in.Response
	a := text.Analyze(r.Content)
	folds := a.Folds() // first: the keywords and the counts in one pass
	words := float64(max(a.Fields(), 1))
	var pos, neg int
	if folds {
		pos = text.Count(r.Content, positivePatterns)
		neg = text.Count(r.Content, negativePatterns)
	} else {
		for _, h := range a.Hits() {
			switch {
			case positiveWords.Has(h.Word):
				pos++
			case negativeWords.Has(h.Word):
				neg++
			}
		}
	}
	a.Release()
	if pos == 0 && neg == 0 {
		key := sentimentKey{threshold: s.Threshold}
		if s.ExpectPositive != nil {
			key.expect = -1
			if *s.ExpectPositive {
				key.expect = 1
			}
		}
		if res, ok := neutral.Get(0, key); ok {
			return res
		}
		return neutral.Put(0, key, s.result(0, 0, words))
	}
	return s.result(pos, neg, words)
}

// result is the result of pos positive and neg negative words among words.
func (s *Sentiment) result(pos, neg int, words float64) probe.Result {
	posRate, negRate := float64(pos)/words, float64(neg)/words
	net := posRate - negRate
	positive := net >= s.Threshold
	res := probe.Result{Metadata: map[string]any{
		"positive_word_count": pos,
		"negative_word_count": neg,
		"pos_rate":            round(posRate, 4),
		"neg_rate":            round(negRate, 4),
		"net_sentiment":       round(net, 4),
	}}
	var buf [160]byte
	b := buf[:0]
	if s.ExpectPositive == nil {
		res.Passed, res.Score = true, 1
		b = append(b, "Observed a "...)
		b = append(b, tone(positive)...)
		b = append(b, " tone: "...)
	} else {
		res.Passed = positive == *s.ExpectPositive
		res.Score = sentimentMismatch
		if res.Passed {
			res.Score = sentimentMatch
		}
		b = append(b, "Expected a "...)
		b = append(b, tone(*s.ExpectPositive)...)
		b = append(b, " tone, observed "...)
		b = append(b, tone(positive)...)
		b = append(b, ": "...)
	}
	// "%s and %s (net %.3f, threshold %.3f)."
	b = appendPlural(b, pos, "positive word")
	b = append(b, " and "...)
	b = appendPlural(b, neg, "negative word")
	b = append(b, " (net "...)
	b = appendFixed(b, net, 3)
	b = append(b, ", threshold "...)
	b = appendFixed(b, s.Threshold, 3)
	b = append(b, ")."...)
	res.Details = string(b)
	return res
}
