package match

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/text"
)

// Op is the comparison a text probe makes between the response and each of
// its values.
type Op int

// The text comparisons, one probe type each.
const (
	// Contains holds when the value occurs anywhere in the response.
	Contains Op = iota + 1
	// Equals holds when the response is the value.
	Equals
	// StartsWith holds when the response begins with the value.
	StartsWith
	// EndsWith holds when the response ends with the value.
	EndsWith
)

// ID returns the probe type id of op: contains, equals, starts_with or
// ends_with.
func (op Op) ID() string {
	switch op {
	case Contains:
		return "contains"
	case Equals:
		return "equals"
	case StartsWith:
		return "starts_with"
	case EndsWith:
		return "ends_with"
	}
	return "unknown"
}

// verbs returns the op's verb phrase for details, positive and negative.
func (op Op) verbs() (yes, no string) {
	switch op {
	case Equals:
		return "equals", "does not equal"
	case StartsWith:
		return "starts with", "does not start with"
	case EndsWith:
		return "ends with", "does not end with"
	}
	return "contains", "does not contain"
}

// Mode says how many of a text probe's values must hold.
type Mode string

// The modes.
const (
	// Any passes when at least one value holds; the score is 1 or 0.
	Any Mode = "any"
	// All passes when every value holds; the score is the share that hold.
	All Mode = "all"
)

// TextConfig configures a text probe.
type TextConfig struct {
	// Values are the strings compared with the response; none may be empty.
	Values []string
	// Mode is Any or All; "" means Any.
	Mode Mode
	// CaseSensitive compares bytes exactly; otherwise both sides are
	// compared lower-cased (strings.ToLower).
	CaseSensitive bool
	// Trim compares the response with its surrounding white space removed.
	Trim bool
	// Not inverts the verdict: with Any the probe passes when no value
	// holds (scored as the share of values that do not hold), with All when
	// at least one value does not hold (scored 1 or 0).
	Not bool
}

// Text is one of the contains, equals, starts_with and ends_with probes.
// Build it with NewText; it is safe for concurrent use.
type Text struct {
	op     Op
	cfg    TextConfig
	folded []folded // the lower-cased values, when not case-sensitive
	mode   any      // cfg.Mode boxed once, for metadata
	q      quoter
	// outcomes caches the result of each outcome (the set of values that
	// hold, as a bit mask) of a probe with up to maxCachedValues values:
	// results of the same outcome share their details and metadata.
	outcomes []atomic.Pointer[probe.Result]
}

// maxCachedValues is the most values whose outcomes' results a text probe
// caches (2^maxCachedValues of them).
const maxCachedValues = 6

var _ probe.Probe = (*Text)(nil)

// NewText builds a text probe. It reports each invalid value as a
// *probe.ParamError: an empty list or value, a repeated value, a value that
// trimming makes impossible to match, and values that no response could
// match all at once with mode all.
func NewText(op Op, c TextConfig) (*Text, error) {
	if op < Contains || op > EndsWith {
		return nil, fmt.Errorf("match: unknown text op %d", int(op))
	}
	if c.Mode == "" {
		c.Mode = Any
	}
	var errs []error
	if c.Mode != Any && c.Mode != All {
		errs = append(errs, &probe.ParamError{Param: "mode", Msg: fmt.Sprintf("invalid value %q", c.Mode), Hint: "use one of: any, all"})
	}
	if len(c.Values) == 0 {
		errs = append(errs, &probe.ParamError{Param: "values", Msg: "nothing to check: values is empty",
			Hint: fmt.Sprintf("list the text to compare with, for example values: [%s]", exampleValue(op))})
	}
	t := &Text{op: op, cfg: c, mode: string(c.Mode)}
	t.cfg.Values = append([]string(nil), c.Values...)
	seen := make(map[string]int, len(c.Values))
	for i, v := range c.Values {
		param := fmt.Sprintf("values[%d]", i)
		if v == "" {
			errs = append(errs, &probe.ParamError{Param: param, Msg: "must not be empty",
				Hint: "an empty value " + emptyMeaning(op) + "; remove it"})
			continue
		}
		key := t.key(v)
		if j, dup := seen[key]; dup {
			errs = append(errs, &probe.ParamError{Param: param, Msg: fmt.Sprintf("value %q repeats values[%d]", v, j),
				Hint: "list each value once" + map[bool]string{true: "", false: " (case_sensitive is false, so values that differ only in case repeat)"}[c.CaseSensitive]})
			continue
		}
		seen[key] = i
		if c.Trim {
			if err := trimConflict(op, param, v); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if c.Mode == All && len(errs) == 0 {
		if err := t.impossibleAll(); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if !c.CaseSensitive {
		t.folded = make([]folded, len(c.Values))
		for i, v := range c.Values {
			t.folded[i] = newFolded(v)
		}
	}
	t.q = newQuoter(t.cfg.Values)
	if len(c.Values) <= maxCachedValues {
		t.outcomes = make([]atomic.Pointer[probe.Result], 1<<len(c.Values))
	}
	return t, nil
}

// key is v as the probe compares it.
func (t *Text) key(v string) string {
	if t.cfg.CaseSensitive {
		return v
	}
	return strings.ToLower(v)
}

func exampleValue(op Op) string {
	switch op {
	case Equals:
		return "yes"
	case StartsWith:
		return "{"
	case EndsWith:
		return "}"
	}
	return "Paris"
}

func emptyMeaning(op Op) string {
	if op == Equals {
		return "matches only an empty response"
	}
	return op.verbs0() + " every response"
}

// verbs0 is the verb used of an empty value: "occurs in", "starts", "ends".
func (op Op) verbs0() string {
	switch op {
	case StartsWith:
		return "starts"
	case EndsWith:
		return "ends"
	}
	return "occurs in"
}

// trimConflict reports a value that a trimmed response can never match:
// one with white space where the trimmed response has none.
func trimConflict(op Op, param, v string) error {
	lead := strings.TrimLeftFunc(v, unicode.IsSpace) != v
	trail := strings.TrimRightFunc(v, unicode.IsSpace) != v
	var where string
	switch {
	case op == Equals && (lead || trail):
		where = "surrounding"
	case op == StartsWith && lead:
		where = "leading"
	case op == EndsWith && trail:
		where = "trailing"
	default:
		return nil
	}
	return &probe.ParamError{Param: param, Msg: fmt.Sprintf("value %q has %s white space, which the trimmed response never has", v, where),
		Hint: "remove the white space from the value, or set trim: false"}
}

// impossibleAll reports values that no single response can match together
// (mode all): two different values for equals, or two values of which
// neither is a prefix (starts_with) or suffix (ends_with) of the other.
func (t *Text) impossibleAll() error {
	vs := t.cfg.Values
	for i := range vs {
		for j := i + 1; j < len(vs); j++ {
			a, b := t.key(vs[i]), t.key(vs[j])
			var ok bool
			switch t.op {
			case Equals:
				ok = a == b
			case StartsWith:
				ok = strings.HasPrefix(a, b) || strings.HasPrefix(b, a)
			case EndsWith:
				ok = strings.HasSuffix(a, b) || strings.HasSuffix(b, a)
			default:
				ok = true
			}
			if !ok {
				return &probe.ParamError{Param: "mode",
					Msg:  fmt.Sprintf("no response can match both %q and %q, as mode all requires", vs[i], vs[j]),
					Hint: "use mode: any to accept any of the values, or one probe per value"}
			}
		}
	}
	return nil
}

var textNames = map[Op]string{Contains: "Contains", Equals: "Equals", StartsWith: "Starts With", EndsWith: "Ends With"}

var textDescs = map[Op]string{
	Contains:   "Checks that the response contains any (or all) of the given strings, or with not: none of them.",
	Equals:     "Checks that the trimmed response equals one of the given strings, or with not: none of them.",
	StartsWith: "Checks that the trimmed response starts with any (or all) of the given strings, or with not: none of them.",
	EndsWith:   "Checks that the trimmed response ends with any (or all) of the given strings, or with not: none of them.",
}

// holds reports whether value i holds for the response text s.
func (t *Text) holds(i int, s string) bool {
	if t.cfg.CaseSensitive {
		v := t.cfg.Values[i]
		switch t.op {
		case Equals:
			return s == v
		case StartsWith:
			return strings.HasPrefix(s, v)
		case EndsWith:
			return strings.HasSuffix(s, v)
		}
		return text.IndexRare(s, v) >= 0
	}
	f := &t.folded[i]
	switch t.op {
	case Contains:
		if !t.cfg.Trim {
			return text.IndexRare(s, f.low) >= 0 // s is lowercase (Evaluate)
		}
	case Equals:
		return equalLower(s, f.low)
	case StartsWith:
		return hasLowerPrefix(s, f.low)
	case EndsWith:
		return hasLowerSuffix(s, f.low)
	}
	return containsLower(s, f)
}

// Evaluate compares the response (trimmed when Trim is set) with each
// value. The metadata holds "matched" and "unmatched", the values that hold
// and those that do not, in configuration order, and "mode" and "not" as
// configured. Results of the same outcome share their metadata.
func (t *Text) Evaluate(_ context.Context, in probe.Input) probe.Result {
	r := in.Response
	s := r.Content
	if t.cfg.Trim {
		s = strings.TrimSpace(s)
	}
	if t.op == Contains && !t.cfg.CaseSensitive && !t.cfg.Trim {
		// strings.ToLower of the response, shared with the other probes
		// that ignore case, holds f.low exactly when containsLower does.
		l := text.Lower(s)
		defer l.Release()
		s = l.String()
	}
	n := len(t.cfg.Values)
	var small [64]bool
	held := small[:0]
	if n > len(small) {
		held = make([]bool, 0, n)
	}
	count, mask := 0, 0
	for i := range n {
		h := t.holds(i, s)
		held = append(held, h)
		if h {
			count++
			mask |= 1 << i
		}
	}
	if t.outcomes != nil {
		if res := t.outcomes[mask].Load(); res != nil {
			return *res
		}
	}
	// One backing array for both lists: matched first, then unmatched.
	buf := make([]string, n)
	m, u := 0, count
	for i, h := range held {
		if h {
			buf[m] = t.cfg.Values[i]
			m++
		} else {
			buf[u] = t.cfg.Values[i]
			u++
		}
	}
	matched, unmatched := buf[:count:count], buf[count:]

	all := t.cfg.Mode == All
	plain := count > 0
	if all {
		plain = count == n
	}
	passed := plain != t.cfg.Not
	score := 0.0
	switch {
	case all != t.cfg.Not: // every value must hold (all), or must not (not any)
		sat := count
		if t.cfg.Not {
			sat = n - count
		}
		score = float64(sat) / float64(n)
	case passed:
		score = 1
	}
	res := probe.Result{Passed: passed, Score: score, Details: t.describe(matched, unmatched, passed),
		Metadata: map[string]any{"matched": matched, "unmatched": unmatched, "mode": t.mode, "not": t.cfg.Not}}
	if t.outcomes != nil {
		t.outcomes[mask].Store(&res)
	}
	return res
}

// describe is the sentence naming the values that decided the verdict.
func (t *Text) describe(matched, unmatched []string, passed bool) string {
	yes, no := t.op.verbs()
	n := len(matched) + len(unmatched)
	var s string
	switch {
	case !t.cfg.Not && t.cfg.Mode == Any && passed:
		s = "The response " + yes + " " + t.q.quote(matched[0]) + "."
	case !t.cfg.Not && t.cfg.Mode == Any:
		s = "The response " + t.q.noneOf(no, yes, unmatched) + "."
	case !t.cfg.Not && passed:
		s = "The response " + yes + " " + t.q.allOf(matched) + "."
	case !t.cfg.Not:
		s = "The response " + no + " " + t.q.list(unmatched) + " (" + strconv.Itoa(len(matched)) + " of " + strconv.Itoa(n) + " values hold)."
	case t.cfg.Mode == Any && passed:
		s = "Inverted check (not: true): the response " + t.q.noneOf(no, yes, unmatched) + ", as required."
	case t.cfg.Mode == Any:
		s = "Inverted check (not: true): the response " + yes + " " + t.q.list(matched) + ", which it must not."
	case passed:
		s = "Inverted check (not: true): the response " + no + " " + t.q.list(unmatched) + ", so not all " + strconv.Itoa(n) + " values hold, as required."
	default:
		s = "Inverted check (not: true): the response " + yes + " " + t.q.allOf(matched) + ", which it must not."
	}
	return s
}

// noneOf says that no value holds: `does not contain "a"` or `contains
// none of "a", "b"`.
func (q quoter) noneOf(no, yes string, values []string) string {
	if len(values) == 1 {
		return no + " " + q.quote(values[0])
	}
	return yes + " none of " + q.list(values)
}

// allOf names every value: `"a"` or `all 3 values`.
func (q quoter) allOf(values []string) string {
	if len(values) == 1 {
		return q.quote(values[0])
	}
	return "all " + strconv.Itoa(len(values)) + " values"
}

// detailChars is how many characters of a value details quote.
const detailChars = 60

// quote quotes v for details, cut to detailChars characters.
func quote(v string) string {
	p := text.Preview(v, detailChars)
	if len(p) < len(v) {
		return strconv.Quote(p) + "…"
	}
	return strconv.Quote(v)
}

// quoter quotes the values of a probe for details, each computed once.
type quoter map[string]string

// newQuoter quotes values.
func newQuoter(values ...[]string) quoter {
	q := quoter{}
	for _, vs := range values {
		for _, v := range vs {
			q[v] = quote(v)
		}
	}
	return q
}

// quote is quote(v), computed when the probe was built.
func (q quoter) quote(v string) string {
	if s, ok := q[v]; ok {
		return s
	}
	return quote(v)
}

// list quotes up to 5 values, comma-separated, and counts the rest.
func (q quoter) list(vs []string) string {
	const most = 5
	if len(vs) == 1 {
		return q.quote(vs[0])
	}
	return text.QuoteList(vs, most, q.quote)
}

// textParams are the parameters of a text probe whose trim default is trim.
func textParams(op Op, trim bool) []probe.Param {
	yes, _ := op.verbs()
	trimDoc := "compare the response with its surrounding white space removed"
	if op == Contains {
		trimDoc += " (matters only for values that start or end with white space)"
	}
	return []probe.Param{
		{Name: "values", Kind: probe.StringList, Required: true,
			Doc: "the strings the response " + yes + "; none may be empty"},
		{Name: "mode", Kind: probe.String, Default: string(Any), Enum: []string{string(Any), string(All)},
			Doc: "any: one value must hold (score 1 or 0); all: every value must hold (score = share that hold)"},
		{Name: "case_sensitive", Kind: probe.Bool, Default: true,
			Doc: "compare exactly; false compares both sides lower-cased"},
		{Name: "trim", Kind: probe.Bool, Default: trim, Doc: trimDoc},
		{Name: "not", Kind: probe.Bool, Default: false,
			Doc: "invert the verdict: with any, pass when no value holds (score = share that do not); with all, pass when some value does not hold"},
	}
}

// newTextFunc returns the probe.Type New function of op.
func newTextFunc(op Op) func(probe.Params) (probe.Probe, error) {
	return func(p probe.Params) (probe.Probe, error) {
		c := TextConfig{Values: p.Strings("values"), Mode: Mode(p.String("mode"))}
		c.CaseSensitive, _ = p.Bool("case_sensitive")
		c.Trim, _ = p.Bool("trim")
		c.Not, _ = p.Bool("not")
		return NewText(op, c)
	}
}

// registerText registers op's probe type.
func registerText(op Op, trim bool, example string) {
	probe.Register(probe.Type{
		ID:          op.ID(),
		Name:        textNames[op],
		Category:    promptcanary.CategoryFormat,
		Description: textDescs[op],
		Example:     example,
		Params:      textParams(op, trim),
		New:         newTextFunc(op),
	})
}
