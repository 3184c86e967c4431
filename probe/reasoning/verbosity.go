package reasoning

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/text"
)

const verbosityID = "verbosity"

func init() {
	probe.Register(probe.Type{
		ID:          verbosityID,
		Name:        "Response Verbosity",
		Category:    promptcanary.CategoryReasoning,
		Description: "Detects significant changes in the response's word count.",
		Example: `probes:
  - type: verbosity
    expected_words: 120
    tolerance: 0.5
    min_words: 20
    max_words: 300
`,
		Params: []probe.Param{
			{Name: "expected_words", Kind: probe.Int,
				Doc: "approximate expected word count; optional, 0 means none; must be >= 0"},
			{Name: "tolerance", Kind: probe.Float, Default: 0.5,
				Doc: "accepted fractional deviation from expected_words (0.5 = ±50%); must be >= 0 and < 1"},
			{Name: "min_words", Kind: probe.Int, Default: 1,
				Doc: "fewest words accepted; must be >= 0"},
			{Name: "max_words", Kind: probe.Int,
				Doc: "most words accepted; optional, 0 means no limit; otherwise must be >= min_words"},
		},
		New: func(p probe.Params) (probe.Probe, error) {
			v := &Verbosity{}
			v.ExpectedWords, _ = p.Int("expected_words")
			v.Tolerance, _ = p.Float("tolerance")
			v.MinWords, _ = p.Int("min_words")
			v.MaxWords, _ = p.Int("max_words")
			return probe.Validated(v)
		},
	})
}

// Verbosity checks a response's word count against hard bounds and,
// optionally, an expected count with a tolerance.
type Verbosity struct {
	// ExpectedWords is the expected word count; 0 means none.
	ExpectedWords int
	// Tolerance is the accepted fractional deviation from ExpectedWords, in
	// [0,1). The YAML default is 0.5.
	Tolerance float64
	// MinWords is the fewest words accepted. The YAML default is 1.
	MinWords int
	// MaxWords is the most words accepted; 0 means no upper bound.
	MaxWords int
}

var _ probe.Probe = (*Verbosity)(nil)

// Validate reports every field the scoring formula cannot use, each as a
// *probe.ParamError: a negative count, a tolerance outside [0,1) (the score
// divides by 1−tolerance) and MaxWords below MinWords.
func (v *Verbosity) Validate() error {
	var errs []error
	if v.ExpectedWords < 0 {
		errs = append(errs, &probe.ParamError{Param: "expected_words", Msg: fmt.Sprintf("must be >= 0, got %d", v.ExpectedWords)})
	}
	if err := finite("tolerance", v.Tolerance); err != nil {
		errs = append(errs, err)
	} else if v.Tolerance < 0 || v.Tolerance >= 1 {
		errs = append(errs, &probe.ParamError{Param: "tolerance", Msg: fmt.Sprintf("must be >= 0 and < 1, got %v", v.Tolerance),
			Hint: "the score divides by 1 - tolerance"})
	}
	if v.MinWords < 0 {
		errs = append(errs, &probe.ParamError{Param: "min_words", Msg: fmt.Sprintf("must be >= 0, got %d", v.MinWords)})
	}
	switch {
	case v.MaxWords < 0:
		errs = append(errs, &probe.ParamError{Param: "max_words", Msg: fmt.Sprintf("must be >= 0, got %d", v.MaxWords)})
	case v.MaxWords > 0 && v.MaxWords < v.MinWords:
		errs = append(errs, &probe.ParamError{Param: "max_words",
			Msg: fmt.Sprintf("must be >= min_words (%d), got %d", v.MinWords, v.MaxWords)})
	}
	return errors.Join(errs...)
}

// Evaluate counts the words of r's content and scores the count.
func (v *Verbosity) Evaluate(_ context.Context, in probe.Input) probe.Result {
	r := in.Response
	a := text.Analyze(r.Content)
	words := a.Fields()
	a.Release()
	meta := map[string]any{"word_count": words}
	if words < v.MinWords {
		return probe.Result{Metadata: meta,
			Details: "Too few words: " + strconv.Itoa(words) + ", minimum " + strconv.Itoa(v.MinWords) + "."}
	}
	if v.MaxWords > 0 && words > v.MaxWords {
		return probe.Result{Metadata: meta,
			Details: "Too many words: " + strconv.Itoa(words) + ", maximum " + strconv.Itoa(v.MaxWords) + "."}
	}
	if v.ExpectedWords <= 0 {
		return probe.Result{Passed: true, Score: 1, Metadata: meta,
			Details: "Response has " + plural(words, "word") + "."}
	}
	ratio := float64(words) / float64(v.ExpectedWords)
	dev := ratio - 1
	if dev < 0 {
		dev = -dev
	}
	meta["expected_words"] = v.ExpectedWords
	meta["ratio"] = round(ratio, 3)
	return probe.Result{
		Passed:   dev <= v.Tolerance,
		Score:    max(0, 1-max(0, dev-v.Tolerance)/(1-v.Tolerance)),
		Metadata: meta,
		// "Response has %s against an expected %d (%.1f%% of expected, tolerance ±%.0f%%)."
		Details: "Response has " + plural(words, "word") + " against an expected " + strconv.Itoa(v.ExpectedWords) +
			" (" + strconv.FormatFloat(ratio*100, 'f', 1, 64) + "% of expected, tolerance ±" +
			strconv.FormatFloat(v.Tolerance*100, 'f', 0, 64) + "%).",
	}
}
