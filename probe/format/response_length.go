package format

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
)

// DefaultLengthTolerance is the default relative tolerance of
// response_length around its baseline (±50%).
const DefaultLengthTolerance = 0.5

// ResponseLength checks the length of the response in characters (Unicode
// code points), against hard bounds and optionally against a baseline.
//
// A response shorter than MinChars, or longer than MaxChars when that is
// set, fails with 0. With BaselineChars set, dev = |length/BaselineChars − 1|:
// within Tolerance the result passes with 1 − (dev/Tolerance)×0.2, beyond it
// fails with max(0, 1 − dev). Otherwise the result passes with 1.
type ResponseLength struct {
	// MinChars is the shortest acceptable length (YAML default 1).
	MinChars int
	// MaxChars is the longest acceptable length; 0 means no limit.
	MaxChars int
	// BaselineChars is the expected length; 0 means no baseline comparison.
	BaselineChars int
	// Tolerance is the accepted relative deviation from BaselineChars; 0
	// means DefaultLengthTolerance.
	Tolerance float64
}

var _ probe.Probe = (*ResponseLength)(nil)

func init() {
	probe.Register(probe.Type{
		ID:          "response_length",
		Name:        "Response Length",
		Category:    promptcanary.CategoryFormat,
		Description: "Checks the response length in characters against bounds and an optional baseline.",
		Example: `probes:
  - type: response_length
    min_chars: 20
    max_chars: 600
    baseline_chars: 250
    tolerance: 0.5
`,
		Params: []probe.Param{
			{Name: "min_chars", Kind: probe.Int, Default: 1,
				Doc: "shortest acceptable response, in characters"},
			{Name: "max_chars", Kind: probe.Int,
				Doc: "longest acceptable response, in characters; omit for no limit"},
			{Name: "baseline_chars", Kind: probe.Int,
				Doc: "expected response length in characters, to score drift against"},
			{Name: "tolerance", Kind: probe.Float, Default: DefaultLengthTolerance,
				Doc: "accepted relative deviation from baseline_chars (0.5 = ±50%)"},
		},
		New: newResponseLength,
	})
}

func newResponseLength(p probe.Params) (probe.Probe, error) {
	var errs []error
	l := &ResponseLength{}
	l.MinChars, _ = p.Int("min_chars")
	if l.MinChars < 0 {
		errs = append(errs, &probe.ParamError{Param: "min_chars",
			Msg: fmt.Sprintf("must be >= 0, got %d", l.MinChars)})
	}
	if v, ok := p.Int("max_chars"); ok {
		switch {
		case v < 1:
			errs = append(errs, &probe.ParamError{Param: "max_chars",
				Msg: fmt.Sprintf("must be > 0, got %d", v), Hint: "omit max_chars for no upper limit"})
		case v < l.MinChars:
			errs = append(errs, &probe.ParamError{Param: "max_chars",
				Msg:  fmt.Sprintf("must be >= min_chars (%d), got %d", l.MinChars, v),
				Hint: "no response could pass; raise max_chars or lower min_chars"})
		}
		l.MaxChars = v
	}
	if v, ok := p.Int("baseline_chars"); ok {
		if v < 1 {
			errs = append(errs, &probe.ParamError{Param: "baseline_chars",
				Msg: fmt.Sprintf("must be > 0, got %d", v), Hint: "omit baseline_chars to skip the baseline comparison"})
		}
		l.BaselineChars = v
	}
	l.Tolerance, _ = p.Float("tolerance")
	if math.IsNaN(l.Tolerance) || math.IsInf(l.Tolerance, 0) || l.Tolerance <= 0 {
		errs = append(errs, &probe.ParamError{Param: "tolerance",
			Msg: fmt.Sprintf("must be a finite number > 0, got %v", l.Tolerance), Hint: "0.5 accepts ±50% around baseline_chars"})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return l, nil
}

// Evaluate measures the untrimmed response. The metadata holds "char_count",
// plus "baseline_chars" and "ratio_to_baseline" (rounded to 3 decimals) when
// the length was compared with the baseline.
func (l *ResponseLength) Evaluate(_ context.Context, in probe.Input) probe.Result {
	r := in.Response
	n := utf8.RuneCountInString(r.Content)
	if n < l.MinChars {
		return probe.Result{Metadata: map[string]any{"char_count": n},
			Details: "Response is too short: " + strconv.Itoa(n) + " characters, minimum " + strconv.Itoa(l.MinChars) + "."}
	}
	if l.MaxChars > 0 && n > l.MaxChars {
		return probe.Result{Metadata: map[string]any{"char_count": n},
			Details: "Response is too long: " + strconv.Itoa(n) + " characters, maximum " + strconv.Itoa(l.MaxChars) + "."}
	}
	if l.BaselineChars <= 0 {
		return probe.Result{Passed: true, Score: 1, Metadata: map[string]any{"char_count": n},
			Details: "Response length " + strconv.Itoa(n) + " characters is within bounds."}
	}
	tol := l.Tolerance
	if tol <= 0 || math.IsNaN(tol) {
		tol = DefaultLengthTolerance
	}
	ratio := float64(n) / float64(l.BaselineChars)
	dev := math.Abs(ratio - 1)
	passed := dev <= tol
	var score float64
	if passed {
		score = 1 - (dev/tol)*0.2
	} else {
		score = max(0, 1-dev)
	}
	meta := map[string]any{
		"char_count":        n,
		"baseline_chars":    l.BaselineChars,
		"ratio_to_baseline": math.Round(ratio*1000) / 1000,
	}
	verdict := "within"
	if !passed {
		verdict = "outside"
	}
	// As fmt's %.1f%% and ±%.0f%%.
	return probe.Result{Passed: passed, Score: score, Metadata: meta,
		Details: "Response length " + strconv.Itoa(n) + " characters is " + strconv.FormatFloat(ratio*100, 'f', 1, 64) +
			"% of the baseline " + strconv.Itoa(l.BaselineChars) + ", " + verdict + " the ±" +
			strconv.FormatFloat(tol*100, 'f', 0, 64) + "% tolerance."}
}
