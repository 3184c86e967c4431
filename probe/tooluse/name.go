package tooluse

import (
	"context"
	"strconv"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/outcome"
	"github.com/promptcanary/promptcanary/probe/internal/text"
)

// Name is the tool_call_name probe: it checks that the model calls the
// expected function. A call to another function scores 0.3 (a drift signal
// rather than a complete failure); no call at all scores 0.
type Name struct {
	// Expected is the function name that must be called.
	Expected string
	// CaseSensitive compares names exactly; by default case is ignored.
	CaseSensitive bool
	// Aliases are other accepted names (an old API name, for example).
	Aliases []string
}

var _ probe.Probe = (*Name)(nil)

const (
	nameID = "tool_call_name"
	// wrongNameScore is the score of a call to an unexpected function.
	wrongNameScore = 0.3
)

func init() {
	probe.Register(probe.Type{
		ID:          nameID,
		Name:        "Tool Call Name",
		Category:    promptcanary.CategoryToolUse,
		Description: "Verifies the model calls the expected function by name.",
		Example: `probes:
  - type: tool_call_name
    expected_name: get_weather
    case_sensitive: false
    allow_aliases: [weather_lookup]
`,
		Params: []probe.Param{
			{Name: "expected_name", Kind: probe.String, Required: true,
				Doc: "the function name the model must call"},
			{Name: "case_sensitive", Kind: probe.Bool, Default: false,
				Doc: "compare names exactly instead of ignoring case"},
			{Name: "allow_aliases", Kind: probe.StringList, Default: []string{},
				Doc: "other function names that are accepted too"},
		},
		New: func(p probe.Params) (probe.Probe, error) {
			expected := p.String("expected_name")
			if strings.TrimSpace(expected) == "" {
				return nil, &probe.ParamError{Param: "expected_name", Msg: "must not be empty",
					Hint: "give the function name the model must call"}
			}
			cs, _ := p.Bool("case_sensitive")
			return &Name{Expected: expected, CaseSensitive: cs, Aliases: p.Strings("allow_aliases")}, nil
		},
	})
}

// noNameKey is what the result of a response without a call depends on.
type noNameKey struct{ expected, source string }

// noNames holds the result of a response without a call.
var noNames = outcome.NewTable[noNameKey](1)

// Evaluate passes when any called function has the expected name or an
// alias.
func (p *Name) Evaluate(_ context.Context, pin probe.Input) probe.Result {
	r := pin.Response
	in := getInput(r)
	defer in.release()
	names, source := in.names()
	if len(names) == 0 {
		// No call: the result depends only on the expected name and the
		// source, and is shared.
		key := noNameKey{expected: p.Expected, source: source}
		if res, ok := noNames.Get(0, key); ok {
			return res
		}
		score, details := p.judge(nil)
		return noNames.Put(0, key, probe.Result{Passed: score == 1, Score: score, Details: details,
			Metadata: map[string]any{"extracted_names": []string{}, "expected": p.Expected, "source": source}})
	}
	score, details := p.judge(names)
	names = fresh(names)
	return probe.Result{
		Passed:  score == 1,
		Score:   score,
		Details: details,
		Metadata: map[string]any{
			"extracted_names": names,
			"expected":        p.Expected,
			"source":          source,
		},
	}
}

// judge scores the extracted names: 1 for a match, wrongNameScore for other
// names, 0 for none.
func (p *Name) judge(names []string) (float64, string) {
	if len(names) == 0 {
		return 0, "No function call detected in the response."
	}
	for _, n := range names {
		if p.accepts(n) {
			return 1, "Correct function name found: " + quoteList(names) + "."
		}
	}
	return wrongNameScore, "Wrong function called: " + quoteList(names) + "; expected " + strconv.Quote(p.Expected) + "."
}

// accepts reports whether name is the expected name or an alias.
func (p *Name) accepts(name string) bool {
	if p.equal(name, p.Expected) {
		return true
	}
	for _, a := range p.Aliases {
		if p.equal(name, a) {
			return true
		}
	}
	return false
}

func (p *Name) equal(a, b string) bool {
	if p.CaseSensitive {
		return a == b
	}
	return strings.EqualFold(a, b)
}

// Details quote at most this many items, each cut to previewChars: the
// values come from model output.
const (
	maxListed    = 8
	previewChars = 80
)

// quoteList renders values for details, quoted and bounded in size.
func quoteList(values []string) string {
	return text.QuoteList(values, maxListed, quotePreview)
}

// quotePreview quotes the preview of v.
func quotePreview(v string) string { return strconv.Quote(text.Preview(v, previewChars)) }
