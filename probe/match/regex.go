package match

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/text"
)

// RegexConfig configures the regex probe.
type RegexConfig struct {
	// MustMatch are RE2 patterns that must each match somewhere in the
	// response.
	MustMatch []string
	// MustNotMatch are RE2 patterns none of which may match.
	MustNotMatch []string
	// Flags is a set of RE2 flags applied to every pattern: i (ignore
	// case), m (^ and $ match at line breaks), s (. matches a line break).
	Flags string
	// Not inverts the verdict: the probe passes when some pattern does not
	// hold, with score 1, and fails with 0 when all hold.
	Not bool
}

// Regex is the regex probe: it matches RE2 patterns (Go's regexp) against
// the untrimmed response. A pattern holds when it is in MustMatch and
// matches, or in MustNotMatch and does not. The score is the share of
// patterns that hold, and the probe passes when they all do. Build it with
// NewRegex; it is safe for concurrent use.
type Regex struct {
	cfg     RegexConfig
	must    []filtered
	mustNot []filtered
	q       quoter
	// outcomes caches the result of each outcome in which no
	// must_not_match pattern matches (whose details quote the answer): the
	// set of must_match patterns that fail, as a bit mask, when there are
	// at most maxCachedValues of them. Results of the same outcome share
	// their details and metadata.
	outcomes []atomic.Pointer[probe.Result]
}

var _ probe.Probe = (*Regex)(nil)

const (
	regexID = "regex"
	// regexHint is the hint of a pattern that does not compile.
	regexHint = "patterns use RE2 syntax (Go regexp): no lookahead, lookbehind or backreferences; in YAML, single-quote a pattern so backslashes stay as written"
)

func init() {
	probe.Register(probe.Type{
		ID:          regexID,
		Name:        "Regular Expression",
		Category:    promptcanary.CategoryFormat,
		Description: "Checks the response against RE2 patterns that must match and patterns that must not.",
		Example: `probes:
  - type: regex
    must_match: ['\b\d{4}-\d{2}-\d{2}\b', '^Answer:']
    must_not_match: ['(?:as an ai|language model)']
    flags: im
    not: false
`,
		Params: []probe.Param{
			{Name: "must_match", Kind: probe.StringList, Default: []string{},
				Doc: "RE2 patterns that must each match somewhere in the response"},
			{Name: "must_not_match", Kind: probe.StringList, Default: []string{},
				Doc: "RE2 patterns none of which may match"},
			{Name: "flags", Kind: probe.String, Default: "",
				Doc: "flags for every pattern: i (ignore case), m (^ and $ match at each line), s (. matches a line break)"},
			{Name: "not", Kind: probe.Bool, Default: false,
				Doc: "invert the verdict: pass (score 1) when some pattern does not hold, fail (score 0) when all hold"},
		},
		New: func(p probe.Params) (probe.Probe, error) {
			c := RegexConfig{MustMatch: p.Strings("must_match"), MustNotMatch: p.Strings("must_not_match"), Flags: p.String("flags")}
			c.Not, _ = p.Bool("not")
			return NewRegex(c)
		},
	})
}

// ParseFlags checks a flags string (any of i, m and s, each at most once)
// and returns the RE2 group that sets them, such as "(?im)", or "" for no
// flags.
func ParseFlags(flags string) (string, error) {
	var set [3]bool // i, m, s
	for _, r := range flags {
		k := strings.IndexRune("ims", r)
		if k < 0 {
			return "", fmt.Errorf("unknown flag %q", r)
		}
		if set[k] {
			return "", fmt.Errorf("flag %q is repeated", r)
		}
		set[k] = true
	}
	var b strings.Builder
	for k, on := range set {
		if on {
			b.WriteByte("ims"[k])
		}
	}
	if b.Len() == 0 {
		return "", nil
	}
	return "(?" + b.String() + ")", nil
}

// NewRegex compiles the patterns. Each problem is a *probe.ParamError: no
// pattern at all, an empty or repeated pattern, a pattern in both lists, a
// bad flag, and a pattern that does not compile (with Go's message).
func NewRegex(c RegexConfig) (*Regex, error) {
	var errs []error
	prefix, err := ParseFlags(c.Flags)
	if err != nil {
		errs = append(errs, &probe.ParamError{Param: "flags", Msg: err.Error(),
			Hint: "use any of i (ignore case), m (multi-line) and s (dot matches a line break), for example flags: im"})
	}
	if len(c.MustMatch)+len(c.MustNotMatch) == 0 {
		errs = append(errs, &probe.ParamError{Msg: "nothing to check: must_match and must_not_match are both empty",
			Hint: "list at least one pattern, for example must_match: ['^\\{']"})
	}
	x := &Regex{cfg: c}
	x.cfg.MustMatch = append([]string(nil), c.MustMatch...)
	x.cfg.MustNotMatch = append([]string(nil), c.MustNotMatch...)
	seen := map[string]string{}
	compile := func(param string, patterns []string) []filtered {
		out := make([]filtered, 0, len(patterns))
		for i, pat := range patterns {
			name := fmt.Sprintf("%s[%d]", param, i)
			if pat == "" {
				errs = append(errs, &probe.ParamError{Param: name, Msg: "must not be empty",
					Hint: "an empty pattern matches every response; remove it"})
				continue
			}
			if prev, dup := seen[pat]; dup {
				errs = append(errs, &probe.ParamError{Param: name, Msg: fmt.Sprintf("pattern %q repeats %s", pat, prev),
					Hint: "list each pattern once; a pattern cannot both match and not match"})
				continue
			}
			seen[pat] = name
			// Compile the pattern alone first, so that Go's message quotes
			// what the user wrote and not the flag group.
			if _, err := regexp.Compile(pat); err != nil {
				errs = append(errs, &probe.ParamError{Param: name, Msg: err.Error(), Hint: compileHint(pat)})
				continue
			}
			re, err := regexp.Compile(prefix + pat)
			if err != nil {
				errs = append(errs, &probe.ParamError{Param: name, Msg: err.Error(), Hint: regexHint})
				continue
			}
			out = append(out, newFiltered(re))
		}
		return out
	}
	x.q = newQuoter(x.cfg.MustMatch, x.cfg.MustNotMatch)
	x.must = compile("must_match", c.MustMatch)
	x.mustNot = compile("must_not_match", c.MustNotMatch)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(x.must) <= maxCachedValues {
		x.outcomes = make([]atomic.Pointer[probe.Result], 1<<len(x.must))
	}
	return x, nil
}

// compileHint explains a pattern that does not compile, naming the Perl
// features RE2 lacks when the pattern uses one.
func compileHint(pat string) string {
	switch {
	case strings.Contains(pat, "(?<=") || strings.Contains(pat, "(?<!"):
		return "RE2 has no lookbehind (?<=…) or (?<!…); match the preceding text as well, or check it with a second pattern"
	case strings.Contains(pat, "(?=") || strings.Contains(pat, "(?!"):
		return "RE2 has no lookahead (?=…) or (?!…); list the text that must not follow in must_not_match instead"
	case backref.MatchString(pat):
		return "RE2 has no backreferences (\\1); spell out the repeated text"
	}
	return regexHint
}

// backref finds a backreference such as \1 in a pattern.
var backref = regexp.MustCompile(`(^|[^\\])(\\\\)*\\[1-9]`)

// snippetChars is how many characters of a forbidden match details quote.
const snippetChars = 60

// Evaluate matches every pattern. The metadata holds "failed_must_match"
// (patterns that did not match), "failed_must_not_match" (patterns that
// did), in configuration order, and "not". Results of the same outcome
// share their metadata, unless a must_not_match pattern matched.
func (x *Regex) Evaluate(_ context.Context, in probe.Input) probe.Result {
	s := in.Response.Content
	m := regexMatches{folds: text.HasFolds(s), firstNot: -1}
	// The failed must_match patterns: in m.failedMust, or with outcomes as
	// a mask, listed only when the outcome is not cached.
	for i := range x.must {
		if !x.must[i].MatchString(s, m.folds) {
			if x.outcomes != nil {
				m.mask |= 1 << i
			} else {
				m.failedMust = append(m.failedMust, x.cfg.MustMatch[i])
			}
			m.failedMusts++
		}
	}
	for i := range x.mustNot {
		if x.mustNot[i].MatchString(s, m.folds) {
			m.failedNot = append(m.failedNot, x.cfg.MustNotMatch[i])
			if m.firstNot < 0 {
				m.firstNot = i
			}
		}
	}
	var cached *atomic.Pointer[probe.Result]
	if m.firstNot < 0 && x.outcomes != nil {
		cached = &x.outcomes[m.mask]
		if res := cached.Load(); res != nil {
			return *res
		}
	}
	res := x.result(s, &m)
	if cached != nil {
		cached.Store(&res)
	}
	return res
}

// regexMatches is what matching the patterns against one response found.
type regexMatches struct {
	// folds is text.HasFolds of the response.
	folds bool
	// mask has the bit of each failed must_match pattern when outcomes
	// are cached; failedMust names them otherwise (and, once result has
	// listed the mask, always). failedMusts counts them either way.
	mask        int
	failedMust  []string
	failedMusts int
	// failedNot names the must_not_match patterns that matched, firstNot
	// is the index of the first (-1 for none).
	failedNot []string
	firstNot  int
}

// result is the result of matching response s as m says, its failed
// patterns listed in configuration order.
func (x *Regex) result(s string, m *regexMatches) probe.Result {
	for i := range x.must {
		if m.mask&(1<<i) != 0 {
			m.failedMust = append(m.failedMust, x.cfg.MustMatch[i])
		}
	}
	if m.failedMust == nil {
		m.failedMust = []string{}
	}
	if m.failedNot == nil {
		m.failedNot = []string{}
	}
	n := len(x.must) + len(x.mustNot)
	failed := m.failedMusts + len(m.failedNot)
	holds := failed == 0
	passed := holds != x.cfg.Not
	var score float64
	switch {
	case x.cfg.Not && passed:
		score = 1
	case !x.cfg.Not:
		score = float64(n-failed) / float64(max(n, 1))
	}
	var details string
	switch {
	case !x.cfg.Not && holds:
		details = "All " + strconv.Itoa(n) + " pattern(s) hold."
	case !x.cfg.Not:
		details = "The response " + x.why(s, m) + " (" + strconv.Itoa(n-failed) + " of " + strconv.Itoa(n) + " patterns hold)."
	case passed:
		details = "Inverted check (not: true): the response " + x.why(s, m) + ", so not all patterns hold, as required."
	default:
		details = "Inverted check (not: true): all " + strconv.Itoa(n) + " pattern(s) hold, which they must not."
	}
	return probe.Result{Passed: passed, Score: score, Details: details, Metadata: map[string]any{
		"failed_must_match":     m.failedMust,
		"failed_must_not_match": m.failedNot,
		"not":                   x.cfg.Not,
	}}
}

// why says which patterns do not hold in response s, quoting the first
// forbidden match.
func (x *Regex) why(s string, m *regexMatches) string {
	var parts []string
	if len(m.failedMust) > 0 {
		parts = append(parts, "did not match "+x.q.list(m.failedMust))
	}
	if m.firstNot >= 0 {
		loc := x.mustNot[m.firstNot].FindStringIndex(s, m.folds)
		part := "matched forbidden " + x.q.list(m.failedNot)
		if loc != nil {
			part += " (first at " + quote(text.Preview(s[loc[0]:loc[1]], snippetChars)) + ")"
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, " and ")
}
