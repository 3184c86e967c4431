package format

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/outcome"
	"github.com/promptcanary/promptcanary/probe/internal/text"
)

// KeywordPresence checks that required keywords appear in the response and
// forbidden ones do not, as substrings. Each missing required or present
// forbidden keyword is a violation; the score is 1 − violations/checks
// (1 when nothing is checked) and the result passes with no violation.
type KeywordPresence struct {
	// RequiredKeywords must each occur in the response.
	RequiredKeywords []string
	// ForbiddenKeywords must not occur in the response.
	ForbiddenKeywords []string
	// CaseSensitive matches exactly instead of ignoring case.
	CaseSensitive bool

	// outcomes caches the result of each outcome (which keywords occur)
	// of a probe built from parameters, whose fields do not change.
	outcomes *outcome.Cache
}

var _ probe.Probe = (*KeywordPresence)(nil)

func init() {
	probe.Register(probe.Type{
		ID:          "keyword_presence",
		Name:        "Keyword Presence",
		Category:    promptcanary.CategoryFormat,
		Description: "Checks that required keywords appear in the response and forbidden ones do not.",
		Example: `probes:
  - type: keyword_presence
    required_keywords: [Paris]
    forbidden_keywords: [London, Berlin]
    case_sensitive: false
`,
		Params: []probe.Param{
			{Name: "required_keywords", Kind: probe.StringList, Default: []string{},
				Doc: "words or phrases that must appear in the response"},
			{Name: "forbidden_keywords", Kind: probe.StringList, Default: []string{},
				Doc: "words or phrases that must not appear in the response"},
			{Name: "case_sensitive", Kind: probe.Bool, Default: false,
				Doc: "match keywords exactly instead of ignoring case"},
		},
		New: newKeywordPresence,
	})
}

func newKeywordPresence(p probe.Params) (probe.Probe, error) {
	cs, _ := p.Bool("case_sensitive")
	k := &KeywordPresence{
		RequiredKeywords:  p.Strings("required_keywords"),
		ForbiddenKeywords: p.Strings("forbidden_keywords"),
		CaseSensitive:     cs,
	}
	var errs []error
	if len(k.RequiredKeywords)+len(k.ForbiddenKeywords) == 0 {
		errs = append(errs, &probe.ParamError{
			Msg:  "nothing to check: required_keywords and forbidden_keywords are both empty",
			Hint: "list at least one keyword in required_keywords or forbidden_keywords, for example required_keywords: [Paris]"})
	}
	errs = append(errs, emptyItems("required_keywords", k.RequiredKeywords, "an empty keyword occurs in every response; remove it")...)
	errs = append(errs, emptyItems("forbidden_keywords", k.ForbiddenKeywords, "an empty keyword occurs in every response; remove it")...)
	for _, f := range k.ForbiddenKeywords {
		if f == "" {
			continue // reported above
		}
		if slices.ContainsFunc(k.RequiredKeywords, func(r string) bool { return k.equal(r, f) }) {
			errs = append(errs, &probe.ParamError{Param: "forbidden_keywords",
				Msg:  fmt.Sprintf("keyword %q is also in required_keywords", f),
				Hint: "a keyword cannot be both required and forbidden; remove it from one list"})
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	k.outcomes = outcome.New(len(k.RequiredKeywords) + len(k.ForbiddenKeywords))
	return k, nil
}

// emptyItems reports each empty string of a list parameter, which would
// match (or never match) every response.
func emptyItems(param string, list []string, hint string) []error {
	var errs []error
	for i, s := range list {
		if s == "" {
			errs = append(errs, &probe.ParamError{Param: fmt.Sprintf("%s[%d]", param, i), Msg: "must not be empty", Hint: hint})
		}
	}
	return errs
}

func (k *KeywordPresence) equal(a, b string) bool {
	if k.CaseSensitive {
		return a == b
	}
	//lint:ignore SA6005 the Python original compares str.lower(); EqualFold also folds ſ to s and K (Kelvin) to k, which changes verdicts (probe/benchmark goldens)
	return strings.ToLower(a) == strings.ToLower(b)
}

// Evaluate checks the keywords. The metadata holds "missing_required" and
// "found_forbidden", as configured and in configuration order. A probe
// built from parameters (probe.New) shares the result of an outcome among
// the responses with that outcome; its fields must not change.
func (k *KeywordPresence) Evaluate(_ context.Context, in probe.Input) probe.Result {
	r := in.Response
	content := r.Content
	if !k.CaseSensitive {
		// The lowercased response, shared with the other probes that
		// ignore case on the same response.
		l := text.Lower(r.Content)
		defer l.Release()
		content = l.String()
	}
	contains := func(kw string) bool {
		if !k.CaseSensitive {
			return text.ContainsLower(content, kw)
		}
		return strings.Contains(content, kw)
	}
	// Bit i: keyword i of the required, then of the forbidden, occurs;
	// worked out first when the outcome may be cached.
	nReq := len(k.RequiredKeywords)
	var mask uint
	occurs := func(i int, kw string) bool {
		if k.outcomes != nil {
			return mask&(1<<i) != 0
		}
		return contains(kw)
	}
	if k.outcomes != nil {
		for i, kw := range k.RequiredKeywords {
			if contains(kw) {
				mask |= 1 << i
			}
		}
		for i, kw := range k.ForbiddenKeywords {
			if contains(kw) {
				mask |= 1 << (nReq + i)
			}
		}
		if res, ok := k.outcomes.Get(mask); ok {
			return res
		}
	}
	missing := []string{}
	for i, kw := range k.RequiredKeywords {
		if !occurs(i, kw) {
			missing = append(missing, kw)
		}
	}
	forbidden := []string{}
	for i, kw := range k.ForbiddenKeywords {
		if occurs(nReq+i, kw) {
			forbidden = append(forbidden, kw)
		}
	}
	checks := len(k.RequiredKeywords) + len(k.ForbiddenKeywords)
	violations := len(missing) + len(forbidden)
	score := 1 - float64(violations)/float64(max(checks, 1))

	var details string
	switch {
	case violations == 0:
		details = "All " + strconv.Itoa(checks) + " keyword checks passed."
	case len(missing) > 0 && len(forbidden) > 0:
		details = "Missing required keywords " + quoteList(missing) + " and found forbidden keywords " + quoteList(forbidden) + "."
	case len(missing) > 0:
		details = "Missing required keywords " + quoteList(missing) + "."
	default:
		details = "Found forbidden keywords " + quoteList(forbidden) + "."
	}
	return k.outcomes.Put(mask, probe.Result{Passed: violations == 0, Score: score, Details: details, Metadata: map[string]any{
		"missing_required": missing,
		"found_forbidden":  forbidden,
	}})
}
