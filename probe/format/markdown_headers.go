package format

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/text"
)

// The probe finds the matches of the regexp (?m)^#{1,6}\s+(.+)$ (a
// Markdown ATX header line, group 1 its text) by scanning lines; see
// headers.

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

// Evaluate looks for the expected headers. The metadata holds
// "found_headers" (every header text in the response, in order) and
// "missing_headers" (the expected headers not found, as configured).
func (m *MarkdownHeaders) Evaluate(_ context.Context, in probe.Input) probe.Result {
	r := in.Response
	found := headers(r.Content)
	missing := []string{}
	for _, h := range m.ExpectedHeaders {
		if !slices.ContainsFunc(found, func(f string) bool { return m.equal(f, h) }) {
			missing = append(missing, h)
		}
	}
	score := 1.0
	if n := len(m.ExpectedHeaders); n > 0 {
		score = float64(n-len(missing)) / float64(n)
	}
	details := "Found " + strconv.Itoa(len(found)) + " headers; all " + strconv.Itoa(len(m.ExpectedHeaders)) + " expected headers are present."
	if len(missing) > 0 {
		details = "Found " + strconv.Itoa(len(found)) + " headers; missing " + quoteList(missing) + "."
	}
	return probe.Result{Passed: len(missing) == 0, Score: score, Details: details, Metadata: map[string]any{
		"found_headers":   found,
		"missing_headers": missing,
	}}
}

// equal compares a found header with an expected one, as the lowercased
// strings when case is ignored.
func (m *MarkdownHeaders) equal(found, want string) bool {
	if m.CaseSensitive {
		return found == want
	}
	if len(found) != len(want) || !isASCII(found) || !isASCII(want) {
		//lint:ignore SA6005 the Python original compares str.lower(); EqualFold also folds ſ to s and K (Kelvin) to k, which changes verdicts (probe/benchmark goldens)
		return strings.ToLower(found) == strings.ToLower(want)
	}
	for i := 0; i < len(found); i++ {
		if asciiLower(found[i]) != asciiLower(want[i]) {
			return false
		}
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func asciiLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// headers returns the trimmed group 1 of every match of headerRE in s, in
// order, found by scanning lines instead of running the regexp. A match
// starts at a line start with one to six '#'; \s+ is greedy and may cross
// newlines; (.+) then runs to the end of its line. When the white space
// runs to the end of the text, \s+ gives back up to its last character
// that is not a newline, and (.+) matches white space (a header that
// trims to ""). The search resumes at the end of each match.
func headers(s string) []string {
	found := []string{}
	for i := 0; i < len(s); {
		// i is a line start.
		if end, h, ok := headerAt(s, i); ok {
			found = append(found, strings.TrimSpace(h))
			i = end // at a newline or the end: the next line starts after it
			if i < len(s) {
				i++
			}
			continue
		}
		nl := strings.IndexByte(s[i:], '\n')
		if nl < 0 {
			break
		}
		i += nl + 1
	}
	return found
}

// headerAt matches headerRE at line start i and returns the end of the
// match and group 1.
func headerAt(s string, i int) (end int, group string, ok bool) {
	j := i
	for j < len(s) && s[j] == '#' {
		j++
	}
	if j == i || j-i > 6 {
		return 0, "", false
	}
	k := j
	for k < len(s) && text.IsRegexpSpace(s[k]) {
		k++
	}
	if k == j {
		return 0, "", false
	}
	if k == len(s) {
		// Give back white space until (.+) can match a character that is
		// not a newline, keeping \s+ non-empty.
		k--
		for k > j && s[k] == '\n' {
			k--
		}
		if k == j {
			return 0, "", false
		}
	}
	e := strings.IndexByte(s[k:], '\n')
	if e < 0 {
		e = len(s)
	} else {
		e += k
	}
	return e, s[k:e], true
}
