// Package factual holds the built-in FACTUAL probes. factual_consistency
// compares a response with a known-correct answer; it registers itself with
// the probe registry from init.
package factual

import (
	"context"
	"strconv"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/text"
)

// MatchMode says how factual_consistency compares the response with the
// expected value.
type MatchMode string

// The match modes. The zero MatchMode means Contains.
const (
	// Contains passes when the expected value occurs anywhere in the response.
	Contains MatchMode = "contains"
	// Exact passes when the trimmed response equals the trimmed expected value.
	Exact MatchMode = "exact"
	// StartsWith passes when the trimmed response starts with the expected value.
	StartsWith MatchMode = "startswith"
)

// previewChars is how many characters of the response the metadata keeps.
const previewChars = 200

// Consistency checks a response against a known-correct expected value,
// ignoring case unless CaseSensitive is set. It passes with score 1 on a
// match and fails with 0 otherwise.
type Consistency struct {
	// ExpectedValue is the correct answer text.
	ExpectedValue string
	// MatchMode is how to compare; "" means Contains.
	MatchMode MatchMode
	// CaseSensitive compares exactly instead of ignoring case.
	CaseSensitive bool
}

var _ probe.Probe = (*Consistency)(nil)

func init() {
	probe.Register(probe.Type{
		ID:          "factual_consistency",
		Name:        "Factual Consistency",
		Category:    promptcanary.CategoryFactual,
		Description: "Checks the response against a known-correct expected value.",
		Example: `probes:
  - type: factual_consistency
    expected_value: Paris
    match_mode: contains
    case_sensitive: false
`,
		Params: []probe.Param{
			{Name: "expected_value", Kind: probe.String, Required: true,
				Doc: "the correct answer text (a number such as 4 means the text \"4\")"},
			{Name: "match_mode", Kind: probe.String, Default: string(Contains),
				Enum: []string{string(Contains), string(Exact), string(StartsWith)},
				Doc:  "contains: anywhere in the response; exact: the whole trimmed response; startswith: at the start of the trimmed response"},
			{Name: "case_sensitive", Kind: probe.Bool, Default: false,
				Doc: "compare exactly instead of ignoring case"},
		},
		New: newConsistency,
	})
}

func newConsistency(p probe.Params) (probe.Probe, error) {
	c := &Consistency{ExpectedValue: p.String("expected_value"), MatchMode: MatchMode(p.String("match_mode"))}
	c.CaseSensitive, _ = p.Bool("case_sensitive")
	if c.ExpectedValue == "" {
		return nil, &probe.ParamError{Param: "expected_value", Msg: "must not be empty",
			Hint: "an empty expected value matches every response"}
	}
	return c, nil
}

// Evaluate compares the response with ExpectedValue. The metadata holds
// "expected", "match_mode" and "response_preview" (the first 200
// characters of the response). An unknown MatchMode fails with score 0.
func (c *Consistency) Evaluate(_ context.Context, in probe.Input) probe.Result {
	r := in.Response
	mode := c.MatchMode
	if mode == "" {
		mode = Contains
	}
	meta := map[string]any{
		"expected":         c.ExpectedValue,
		"match_mode":       modeValue(mode),
		"response_preview": text.Preview(r.Content, previewChars),
	}
	content, want := r.Content, c.ExpectedValue
	if !c.CaseSensitive {
		// The lowercased response, shared with the other probes that
		// ignore case on the same response.
		l := text.Lower(r.Content)
		defer l.Release()
		content = l.String()
	}
	var ok bool
	switch mode {
	case Contains:
		if c.CaseSensitive {
			ok = strings.Contains(content, want)
		} else {
			ok = text.ContainsLower(content, want)
		}
	case Exact:
		if !c.CaseSensitive {
			want = strings.ToLower(want)
		}
		ok = strings.TrimSpace(content) == strings.TrimSpace(want)
	case StartsWith:
		if !c.CaseSensitive {
			want = strings.ToLower(want)
		}
		ok = strings.HasPrefix(strings.TrimSpace(content), want)
	default:
		return probe.Result{Metadata: meta,
			Details: "Unknown match mode " + strconv.Quote(string(mode)) + "; use contains, exact or startswith."}
	}
	if ok {
		return probe.Result{Passed: true, Score: 1, Metadata: meta,
			Details: "Expected value " + strconv.Quote(c.ExpectedValue) + " found in the response (mode " + string(mode) + ")."}
	}
	return probe.Result{Metadata: meta,
		Details: "Expected value " + strconv.Quote(c.ExpectedValue) + " not found in the response (mode " + string(mode) + ")."}
}

// modeValue returns the metadata value of mode; the known modes are
// constants, which need no allocation in an interface.
func modeValue(mode MatchMode) any {
	switch mode {
	case Contains:
		return string(Contains)
	case Exact:
		return string(Exact)
	case StartsWith:
		return string(StartsWith)
	}
	return string(mode)
}
