package format

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
)

// headerRE matches a Markdown ATX header line; group 1 is its text.
var headerRE = regexp.MustCompile(`(?m)^#{1,6}\s+(.+)$`)

// MarkdownHeaders checks that the response has Markdown headers (lines
// starting with one to six '#') whose trimmed text equals each expected
// header. The score is the fraction of expected headers found (1 when none
// are expected) and the result passes when none is missing.
type MarkdownHeaders struct {
	// ExpectedHeaders are the header texts that must appear, without '#'.
	ExpectedHeaders []string
	// CaseSensitive compares header texts exactly instead of ignoring case.
	CaseSensitive bool
}

var _ probe.Probe = (*MarkdownHeaders)(nil)

func init() {
	probe.Register(probe.Type{
		ID:          "markdown_headers",
		Name:        "Markdown Headers",
		Category:    promptcanary.CategoryFormat,
		Description: "Checks that the expected Markdown section headers are present.",
		Example: `probes:
  - type: markdown_headers
    expected_headers: [Summary, Risks, Next Steps]
    case_sensitive: false
`,
		Params: []probe.Param{
			{Name: "expected_headers", Kind: probe.StringList, Required: true,
				Doc: "header texts that must appear, without the leading #"},
			{Name: "case_sensitive", Kind: probe.Bool, Default: false,
				Doc: "compare header texts exactly instead of ignoring case"},
		},
		New: func(p probe.Params) (probe.Probe, error) {
			cs, _ := p.Bool("case_sensitive")
			m := &MarkdownHeaders{ExpectedHeaders: p.Strings("expected_headers"), CaseSensitive: cs}
			var errs []error
			if len(m.ExpectedHeaders) == 0 {
				errs = append(errs, &probe.ParamError{Param: "expected_headers",
					Msg:  "nothing to check: expected_headers is empty",
					Hint: "list the header texts that must appear, for example expected_headers: [Summary, Details]"})
			}
			errs = append(errs, emptyItems("expected_headers", m.ExpectedHeaders, "a header has text after its #; remove the empty entry")...)
			if len(errs) > 0 {
				return nil, errors.Join(errs...)
			}
			return m, nil
		},
	})
}

// ID returns "markdown_headers".
func (*MarkdownHeaders) ID() string { return "markdown_headers" }

// Name returns "Markdown Headers".
func (*MarkdownHeaders) Name() string { return "Markdown Headers" }

// Category returns the format category.
func (*MarkdownHeaders) Category() promptcanary.Category { return promptcanary.CategoryFormat }

// Description returns a one-sentence description of the probe.
func (*MarkdownHeaders) Description() string {
	return "Checks that the expected Markdown section headers are present."
}

// Evaluate looks for the expected headers. The metadata holds
// "found_headers" (every header text in the response, in order) and
// "missing_headers" (the expected headers not found, as configured).
func (m *MarkdownHeaders) Evaluate(_ *promptcanary.Prompt, r *promptcanary.Response) probe.Result {
	found := []string{}
	for _, sm := range headerRE.FindAllStringSubmatch(r.Content, -1) {
		found = append(found, strings.TrimSpace(sm[1]))
	}
	cmp := found
	if !m.CaseSensitive {
		cmp = make([]string, len(found))
		for i, h := range found {
			cmp[i] = strings.ToLower(h)
		}
	}
	missing := []string{}
	for _, h := range m.ExpectedHeaders {
		want := h
		if !m.CaseSensitive {
			want = strings.ToLower(h)
		}
		if !slices.Contains(cmp, want) {
			missing = append(missing, h)
		}
	}
	score := 1.0
	if n := len(m.ExpectedHeaders); n > 0 {
		score = float64(n-len(missing)) / float64(n)
	}
	details := fmt.Sprintf("Found %d headers; all %d expected headers are present.", len(found), len(m.ExpectedHeaders))
	if len(missing) > 0 {
		details = fmt.Sprintf("Found %d headers; missing %s.", len(found), quoteList(missing))
	}
	return probe.Result{Passed: len(missing) == 0, Score: score, Details: details, Metadata: map[string]any{
		"found_headers":   found,
		"missing_headers": missing,
	}}
}
