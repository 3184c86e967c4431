package config

import (
	"errors"
	"fmt"
	"github.com/promptcanary/promptcanary/internal/yamlwalk"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/suggest"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/suite"
)

// The keys of defaults: and of a check.
var (
	settingKeys = []string{"every", "cron", "tz", "jitter", "samples", "confirm", "confirm_after", "notify", "baseline", "max_errors", "control", "run_level"}
	defaultKeys = settingKeys
	checkKeys   = append(append([]string{"name", "suite", "provider", "providers"}, settingKeys...), candidateKeys...)
)

// nameRE is the charset of check and notifier names: they become metric
// labels, URL path segments and incident fingerprints.
var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)

// baselineRE is the charset of a pinned baseline id (a snapshot or run id,
// or a prefix of one).
var baselineRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// settings are the keys a check shares with defaults:; nil and false mean
// "not set here".
type settings struct {
	every     *time.Duration
	everyNode *yaml.Node
	cron      string
	cronNode  *yaml.Node
	cronBad   bool
	tz        string
	tzNode    *yaml.Node
	jitter    *float64
	samples   *int
	confirm   *bool
	runLevel  *bool
	notify    []string
	notifySet bool
	maxErrors *int
	baseline  *string

	// confirmAfter delays the confirmation run; confirmAfterNode is
	// where it was set, for the problem of one not shorter than the
	// interval.
	confirmAfter     *time.Duration
	confirmAfterNode *yaml.Node

	// control is the control arm's NAME/MODEL, nil when not set or
	// invalid (reported); controlNode is where it was set.
	control     *string
	controlNode *yaml.Node
}

// settings reads the setting keys of a mapping; the other keys of known
// are returned for the caller, unknown ones reported.
func (l *loader) settings(n *yaml.Node, field string, known, notifiers []string) (st settings, rest []kv) {
	for _, e := range l.Mapping(n, field, "write key: value lines indented under it, for example every: 1h") {
		k, v := e.Key, e.Val
		f := yamlwalk.Join(field, k.Value)
		switch k.Value {
		case "every":
			if yamlwalk.IsNull(v) {
				continue
			}
			st.everyNode = v
			st.every = l.duration(v, f, MinEvery, MaxEvery, fmt.Sprintf("use a duration from %s to %s, for example 30m", suite.FormatDuration(MinEvery), suite.FormatDuration(MaxEvery)))
		case "cron":
			if s, ok := l.str(v, f); ok {
				st.cron, st.cronNode = s.val, v
			}
		case "tz":
			if s, ok := l.str(v, f); ok {
				st.tzNode = v
				if _, err := loadZone(s.val); err != nil {
					l.add(v, f, err.Error(), tzHint)
				} else {
					st.tz = s.val
				}
			}
		case "jitter":
			st.jitter = l.jitter(v, f)
		case "samples":
			st.samples = l.integer(v, f, 1, promptcanary.MaxSamples)
		case "confirm":
			st.confirm = l.boolean(v, f)
		case "run_level":
			st.runLevel = l.boolean(v, f)
		case "confirm_after":
			st.confirmAfterNode = v
			st.confirmAfter = l.duration(v, f, 0, MaxEvery, "")
		case "max_errors":
			st.maxErrors = l.integer(v, f, 0, promptcanary.MaxErrorsLimit)
		case "control":
			if yamlwalk.IsNull(v) {
				continue
			}
			st.controlNode = v
			if sp, ok := l.providerSpec(v, f); ok {
				st.control = &sp
			}
		case "notify":
			st.notify, st.notifySet = l.notify(v, f, notifiers)
		case "baseline":
			if s, ok := l.str(v, f); ok {
				if s.val != DefaultBaseline && !baselineRE.MatchString(s.val) {
					l.add(v, f, fmt.Sprintf("invalid baseline %q", s.val), "write latest, or the id of a saved baseline or run (promptcanary baseline list)")
				} else {
					st.baseline = &s.val
				}
			}
		default:
			if contains(known, k.Value) {
				rest = append(rest, e)
			} else {
				l.UnknownKey(k, field, known)
			}
		}
	}
	if st.everyNode != nil && st.cronNode != nil {
		l.add(st.cronNode, yamlwalk.Join(field, "cron"), fmt.Sprintf("cannot be used with every: (line %d)", st.everyNode.Line),
			"choose one: every: for a fixed spacing, cron: for times of day")
		st.cronBad = true
	} else if st.cronNode != nil {
		tz := st.tz
		if st.tzNode != nil && tz == "" {
			tz = "UTC" // reported already; check the expression alone
		}
		if _, msg, hint := compileCron(st.cron, tz); msg != "" {
			l.add(st.cronNode, yamlwalk.Join(field, "cron"), msg, hint)
			st.cronBad = true
		}
	}
	return st, rest
}

const tzHint = "an IANA time zone name, for example Europe/Berlin or America/New_York; without tz: a cron: schedule runs in UTC"

// jitter reads a jitter: "10%" or a fraction such as 0.1, from 0 to 50%.
func (l *loader) jitter(n *yaml.Node, field string) *float64 {
	const hint = "a share of the interval from 0 to 50%, written 10% or 0.1"
	if yamlwalk.IsNull(n) {
		return nil
	}
	var (
		f    float64
		text = n.Value
	)
	switch {
	case yamlwalk.IsString(n):
		s, ok := l.str(n, field)
		if !ok {
			return nil
		}
		text = s.val
		num, pct := strings.CutSuffix(strings.TrimSpace(s.val), "%")
		v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil || v != v {
			l.add(n, field, fmt.Sprintf("invalid jitter %q", s.val), hint)
			return nil
		}
		if pct {
			v /= 100
		}
		f = v
	case n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!float" || n.ShortTag() == "!!int"):
		if err := n.Decode(&f); err != nil || f != f {
			l.add(n, field, fmt.Sprintf("invalid jitter %q", n.Value), hint)
			return nil
		}
	default:
		l.WrongType(n, field, "a percentage or a fraction", hint)
		return nil
	}
	if !(f >= 0 && f <= MaxJitter) {
		h := hint
		if f > 1 && f <= 50 && !strings.HasSuffix(strings.TrimSpace(text), "%") {
			h = fmt.Sprintf("did you mean %s%%? a bare number is a fraction of the interval", text)
		}
		l.add(n, field, fmt.Sprintf("out of range: got %s, allowed 0%% to 50%%", text), h)
		return nil
	}
	return &f
}

// notify reads a notify: list of notifier names.
func (l *loader) notify(n *yaml.Node, field string, notifiers []string) ([]string, bool) {
	names, set := l.strList(n, field, "name a notifier of notifiers:")
	if !set {
		return nil, false
	}
	out := names[:0]
	for i, name := range names {
		if contains(notifiers, name) {
			out = append(out, name)
			continue
		}
		item := l.Resolve(n.Content[i])
		hint := "define it under notifiers:"
		if len(notifiers) > 0 {
			hint = "known notifiers: " + strings.Join(notifiers, ", ")
			if c := suggest.Closest(name, notifiers); c != "" {
				hint = "did you mean " + c + "?"
			}
		}
		l.add(item, fmt.Sprintf("%s[%d]", field, i), fmt.Sprintf("unknown notifier %q", name), hint)
	}
	return out, true
}

// checks reads checks:, expanding each check into one Check per provider.
func (l *loader) checks(n *yaml.Node, defaults settings, notifiers []string) []Check {
	var out []Check
	seen := map[string]int{}
	for field, item := range l.mappings(n, "checks", "check", "a mapping with name:, suite: and provider:", "write key: value lines indented under it") {
		out = append(out, l.check(item, field, defaults, notifiers, seen)...)
	}
	return out
}

// check reads one check, returning one Check per provider, none when it
// has a problem.
func (l *loader) check(item *yaml.Node, field string, defaults settings, notifiers []string, seen map[string]int) []Check {
	st, rest := l.settings(item, field, checkKeys, notifiers)
	var (
		name, suitePath string
		nameOK, suiteOK = false, false
		s               *suite.Suite
		specs           []string
		providerNode    *yaml.Node
		providersNode   *yaml.Node
		specsOK         = true
	)
	for _, e := range rest {
		f := yamlwalk.Join(field, e.Key.Value)
		switch e.Key.Value {
		case "name":
			nameOK = l.checkName(e.Val, f, seen, &name)
		case "suite":
			s, suitePath, suiteOK = l.suite(e.Val, f)
		case "provider":
			providerNode = e.Val
			if sp, ok := l.providerSpec(e.Val, f); ok {
				specs = append(specs, sp)
			} else if !yamlwalk.IsNull(e.Val) {
				specsOK = false
			}
		case "providers":
			providersNode = e.Val
			list, ok := l.providerList(e.Val, f)
			specs = append(specs, list...)
			specsOK = specsOK && ok
		}
	}
	l.required(item, field, rest, nameOK, suitePath != "")
	if specsOK {
		specs, specsOK = l.checkProviders(item, field, specs, providerNode, providersNode, s, suitePath)
	}
	sched := l.schedule(field, st, defaults)
	if !nameOK || !suiteOK || !specsOK || sched == nil {
		return nil
	}
	confirmAfter, ok := l.confirmAfter(item, field, st, defaults, sched)
	if !ok {
		return nil
	}
	control, controlLine, okControl := l.control(item, field, st, defaults, specs)
	cand, okCandidate := l.candidate(item, field, rest, st, defaults)
	if !okControl || !okCandidate {
		return nil
	}
	c := Check{
		Name:         name,
		SuitePath:    s.Path,
		Suite:        s,
		Schedule:     sched,
		Jitter:       pick(st.jitter, defaults.jitter, DefaultJitter),
		Samples:      pick(st.samples, defaults.samples, DefaultSamples),
		Confirm:      pick(st.confirm, defaults.confirm, true),
		RunLevel:     pick(st.runLevel, defaults.runLevel, false),
		ConfirmAfter: confirmAfter,
		MaxErrors:    pick(st.maxErrors, defaults.maxErrors, 0),
		Baseline:     pick(st.baseline, defaults.baseline, DefaultBaseline),
		Notify:       defaults.notify,
		Control:      control,
		ControlLine:  controlLine,
		Candidate:    cand,
		Line:         item.Line,
	}
	if st.notifySet {
		c.Notify = st.notify
	}
	return perProvider(c, specs)
}

// required reports a check's missing name: and suite: (a key that is
// there but wrong has been reported already).
func (l *loader) required(item *yaml.Node, field string, rest []kv, named, hasSuite bool) {
	if !named && !hasKey(rest, "name") {
		l.add(item, yamlwalk.Join(field, "name"), "required field is missing", "name the check, for example name: checkout-prod")
	}
	if !hasSuite && !hasKey(rest, "suite") {
		l.add(item, yamlwalk.Join(field, "suite"), "required field is missing", "name the check's canary.yaml, for example suite: suites/checkout/canary.yaml")
	}
}

// perProvider returns one copy of c for each provider of specs, each
// with its own list of notifiers.
func perProvider(c Check, specs []string) []Check {
	out := make([]Check, len(specs))
	for i, sp := range specs {
		out[i] = c
		out[i].Provider = sp
		out[i].Notify = slices.Clone(c.Notify)
	}
	return out
}

// confirmAfter returns a check's confirm_after (its own, else the
// defaults', else 0), which must be shorter than the shortest gap between
// two slots of sched: a confirmation due later would still wait when the
// next slot comes, and that slot would be skipped as still in flight.
func (l *loader) confirmAfter(item *yaml.Node, field string, st, d settings, sched Schedule) (time.Duration, bool) {
	own := st.confirmAfterNode != nil && !yamlwalk.IsNull(st.confirmAfterNode)
	v := pick(st.confirmAfter, d.confirmAfter, 0)
	switch {
	case own && st.confirmAfter == nil:
		return 0, false // reported
	case !own && d.confirmAfterNode != nil && !yamlwalk.IsNull(d.confirmAfterNode) && d.confirmAfter == nil:
		return 0, false // reported at defaults
	}
	gap := shortestGap(sched)
	if v < gap {
		return v, true
	}
	node, from := st.confirmAfterNode, ""
	if !own {
		node, from = item, fmt.Sprintf(" (from defaults:, line %d)", d.confirmAfterNode.Line)
	}
	l.add(node, yamlwalk.Join(field, "confirm_after"),
		fmt.Sprintf("got %s%s, must be shorter than the shortest time between two slots of the check (%s, %s)",
			suite.FormatDuration(v), from, suite.FormatDuration(gap), sched),
		fmt.Sprintf("the next slot would come before the confirmation, and be skipped while the run waits: use less than %s, for example %s, or 0 to confirm at once",
			suite.FormatDuration(gap), suite.FormatDuration(gap/4)))
	return 0, false
}

// controlHint says what a control is for, in the problems of control:.
const controlHint = "a control is a second provider run beside the check's, for example a pinned snapshot beside a moving alias (control: openai/gpt-4o-2024-08-06 beside provider: openai/gpt-4o) or the raw model beside an http/ app"

// control returns a check's control: (its own, else the defaults', else
// none) with the line that set it. A control that is one of the check's
// providers compares nothing with it: a problem, at the check's own
// control: or at the check when it comes from defaults:.
func (l *loader) control(item *yaml.Node, field string, st, d settings, specs []string) (string, int, bool) {
	own := st.controlNode != nil
	switch {
	case own && st.control == nil:
		return "", 0, false // reported
	case !own && d.controlNode != nil && d.control == nil:
		return "", 0, false // reported at defaults
	case !own && d.controlNode == nil:
		return "", 0, true
	}
	v, node, from := pick(st.control, d.control, ""), st.controlNode, ""
	if !own {
		node, from = d.controlNode, fmt.Sprintf(" (from defaults:, line %d)", d.controlNode.Line)
	}
	if contains(specs, v) {
		at := node
		if !own {
			at = item
		}
		l.add(at, yamlwalk.Join(field, "control"), fmt.Sprintf("%q%s is the check's provider: it cannot be its own control", v, from),
			"name another provider as control:; "+controlHint)
		return "", 0, false
	}
	return v, node.Line, true
}

// pick returns the check's value, else the default's, else def.
func pick[T any](own, dflt *T, def T) T {
	switch {
	case own != nil:
		return *own
	case dflt != nil:
		return *dflt
	}
	return def
}

func contains(list []string, s string) bool { return slices.Contains(list, s) }

func hasKey(ps []kv, key string) bool {
	for _, p := range ps {
		if p.Key.Value == key {
			return true
		}
	}
	return false
}

// checkProviders returns the providers of a check: its provider: or
// providers:, else its suite's. Both keys, or none anywhere, is a problem.
func (l *loader) checkProviders(item *yaml.Node, field string, specs []string, providerNode, providersNode *yaml.Node, s *suite.Suite, suitePath string) ([]string, bool) {
	if providerNode != nil && providersNode != nil && !yamlwalk.IsNull(providerNode) && !yamlwalk.IsNull(providersNode) {
		l.add(providersNode, yamlwalk.Join(field, "providers"), fmt.Sprintf("cannot be used with provider: (line %d)", providerNode.Line),
			"use providers: [a, b] alone to check several providers")
		return nil, false
	}
	if len(specs) > 0 {
		return specs, true
	}
	if s == nil {
		return nil, false // the suite has a problem of its own
	}
	if specs = suiteProviders(s); len(specs) == 0 {
		l.add(item, field, fmt.Sprintf("no provider: the check sets none, and suite %q has no provider: or providers:", suitePath),
			"add provider: NAME/MODEL to the check, for example provider: sim/stable")
		return nil, false
	}
	return specs, true
}

// checkName validates a check's name: and that it is unique.
func (l *loader) checkName(n *yaml.Node, field string, seen map[string]int, name *string) bool {
	s, ok := l.str(n, field)
	if !ok {
		if yamlwalk.IsNull(n) {
			l.add(n, field, "must not be empty", "name the check, for example name: checkout-prod")
		}
		return false
	}
	if !l.validName(s, field, "checkout-prod") {
		return false
	}
	if line, dup := seen[s.val]; dup {
		l.add(n, field, fmt.Sprintf("duplicate check name %q (also at line %d)", s.val, line),
			"give each check its own name; to check several providers with one suite, use providers: [a, b]")
		return false
	}
	seen[s.val] = n.Line
	*name = s.val
	return true
}

// validName checks the charset of a check or notifier name.
func (l *loader) validName(s str, field, example string) bool {
	if nameRE.MatchString(s.val) {
		return true
	}
	hint := "use lowercase letters, digits and '-' (at most 63), for example " + example
	// No suggestion derived from what a variable holds.
	if fixed := slug(s.val); fixed != "" && fixed != s.val && !s.fromEnv() {
		hint = "did you mean " + fixed + "? " + hint
	}
	msg := fmt.Sprintf("invalid name %q", s.val)
	if s.val == "" {
		msg = "must not be empty"
	}
	l.add(s.node, field, msg, hint)
	return false
}

// slug lowercases s and turns runs of other characters into '-'.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.TrimRight(b.String(), "-")
	if len(out) > 63 || !nameRE.MatchString(out) {
		return ""
	}
	return out
}

// providerSpec validates one NAME/MODEL provider.
func (l *loader) providerSpec(n *yaml.Node, field string) (string, bool) {
	s, ok := l.str(n, field)
	if !ok {
		return "", false
	}
	if _, _, err := provider.Split(s.val); err != nil {
		hint := "for example sim/stable or openai/gpt-4o-mini"
		if sg := provider.Suggest(s.val); sg != "" && !s.fromEnv() {
			hint = "did you mean " + sg + "?"
		}
		l.add(n, field, fmt.Sprintf("must be NAME/MODEL, got %q", s.val), hint)
		return "", false
	}
	return s.val, true
}

// providerList validates providers:, a non-empty list of distinct specs.
func (l *loader) providerList(n *yaml.Node, field string) ([]string, bool) {
	if yamlwalk.IsNull(n) {
		return nil, true
	}
	if !l.isList(n, field, "a list of NAME/MODEL", "write a list, for example [openai/gpt-4o-mini, anthropic/claude-haiku-4-5]", ", or use provider: for one") {
		return nil, false
	}
	if len(n.Content) == 0 {
		l.add(n, field, "must not be empty", "list the providers to check, or leave providers: out to use the suite's")
		return nil, false
	}
	var out []string
	ok := true
	seen := map[string]string{}
	for i, c := range n.Content {
		c = l.Resolve(c)
		f := fmt.Sprintf("%s[%d]", field, i)
		sp, good := l.providerSpec(c, f)
		if !good {
			if yamlwalk.IsNull(c) {
				l.add(c, f, "must not be empty", "write NAME/MODEL, for example sim/stable")
			}
			ok = false
			continue
		}
		if first, dup := seen[sp]; dup {
			l.add(c, f, fmt.Sprintf("duplicate provider %q (also %s)", sp, first), "list each provider once")
			ok = false
			continue
		}
		seen[sp] = f
		out = append(out, sp)
	}
	return out, ok
}

// suiteProviders returns what a suite runs when no provider is given: its
// providers: entries, else its provider:.
func suiteProviders(s *suite.Suite) []string {
	if len(s.Providers) > 0 {
		out := make([]string, len(s.Providers))
		for i, p := range s.Providers {
			out[i] = p.Spec
		}
		return out
	}
	if s.Defaults.Provider != "" {
		return []string{s.Defaults.Provider}
	}
	return nil
}

// suite loads a check's suite:, once per file for every check naming it.
// The suite's own problems are listed after the check's.
func (l *loader) suite(n *yaml.Node, field string) (*suite.Suite, string, bool) {
	s, ok := l.str(n, field)
	if !ok {
		if yamlwalk.IsNull(n) {
			l.add(n, field, "must not be empty", "name the check's canary.yaml, for example suite: suites/checkout/canary.yaml")
		}
		return nil, "", false
	}
	if s.val == "" {
		l.add(n, field, "must not be empty", "name the check's canary.yaml, for example suite: suites/checkout/canary.yaml")
		return nil, "", false
	}
	abs := l.resolvePath(s.val)
	shown := s.val
	if !filepath.IsAbs(shown) {
		shown = filepath.Join(l.shown, shown)
	}
	ls, done := l.suites[abs]
	if !done {
		ls = &loadedSuite{}
		ls.s, ls.err = l.loadSuite(abs, shown)
		l.suites[abs] = ls
	}
	if ls.err == nil {
		return ls.s, s.val, true
	}
	var ve *suite.ValidationError
	switch {
	case errors.As(ls.err, &ve):
		if done {
			l.add(n, field, fmt.Sprintf("invalid suite %q", s.val), "fix the problems of the suite listed above")
		} else {
			if e := l.add(n, field, fmt.Sprintf("invalid suite %q", s.val), "fix the problems of the suite listed below"); e != nil {
				e.suite = ve.Problems
			}
		}
	case errors.Is(ls.err, fs.ErrNotExist):
		l.add(n, field, fmt.Sprintf("suite file %q not found", s.val), "suite: is relative to the directory of monitor.yaml ("+l.dir+")")
	default:
		l.add(n, field, fmt.Sprintf("cannot read suite %q: %v", s.val, ls.err), "suite: names a canary.yaml file")
	}
	return nil, "", false
}

// loadSuite loads the suite at abs, naming it shown in its problems; only
// a regular file is read.
func loadSuite(abs, shown string) (*suite.Suite, error) {
	fi, err := os.Stat(abs)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, pe.Err
		}
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	s, err := suite.Load(shown)
	if err != nil {
		var ve *suite.ValidationError
		if errors.As(err, &ve) {
			return nil, err
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, pe.Err
		}
		return nil, err
	}
	s.Path = abs
	return s, nil
}

// schedule builds a check's schedule from its own every:/cron: or the
// defaults', with tz: from the check or the defaults. nil means a problem
// was reported.
func (l *loader) schedule(field string, st, d settings) Schedule {
	own := st.everyNode != nil || st.cronNode != nil
	switch {
	case own && (st.everyNode != nil && st.every == nil || st.cronBad):
		return nil // reported
	case !own && (d.everyNode != nil && d.every == nil || d.cronBad):
		return nil // reported at defaults
	}
	src := d
	if own {
		src = st
	}
	if src.cronNode == nil {
		if st.tzNode != nil {
			l.add(st.tzNode, yamlwalk.Join(field, "tz"), "applies to cron: schedules only", "remove tz:, or schedule the check with a cron: expression")
			return nil
		}
		if src.every != nil {
			return every{*src.every}
		}
		return every{DefaultEvery}
	}
	if st.tzNode != nil && st.tz == "" {
		return nil // reported
	}
	tz := st.tz
	if tz == "" && st.tzNode == nil {
		tz = d.tz
		if _, _, prefixed := cutTZ(strings.TrimSpace(src.cron)); prefixed {
			tz = "" // the expression's CRON_TZ= wins over the defaults' tz:
		}
	}
	sched, msg, hint := compileCron(src.cron, tz)
	if msg != "" {
		l.add(src.cronNode, yamlwalk.Join(field, "cron"), msg, hint)
		return nil
	}
	return sched
}

// compileCron is Cron with the problem's message and hint.
func compileCron(expr, tz string) (Schedule, string, string) {
	s, err := Cron(expr, tz)
	if err == nil {
		return s, "", ""
	}
	var ce *cronError
	if errors.As(err, &ce) {
		return nil, ce.msg, ce.hint
	}
	return nil, err.Error(), CronHint
}
