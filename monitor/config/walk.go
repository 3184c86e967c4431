package config

import (
	"fmt"
	"iter"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/promptcanary/promptcanary/internal/envvar"
	"github.com/promptcanary/promptcanary/internal/yamlwalk"
	"github.com/promptcanary/promptcanary/suite"
)

// intLikeRE matches a plain decimal integer, which YAML tags !!float when
// it does not fit in 64 bits.
var intLikeRE = regexp.MustCompile(`^[-+]?[0-9][0-9_]*$`)

// entry is one problem of monitor.yaml and the problems of the suite file
// it concerns, which are listed right after it.
type entry struct {
	p     *suite.Problem
	suite []*suite.Problem
}

// walker walks the YAML nodes of monitor.yaml, collecting problems.
type walker struct {
	yamlwalk.Walker
	file    string
	getenv  func(string) string
	entries []entry
	// secrets are the values read from the environment that must never
	// be shown.
	secrets []string
	// expanded maps every value read from the environment, and every
	// string built with one, to the text written in the file; add puts
	// the text back, so that no problem shows what a variable holds.
	expanded []expansion
}

// expansion is a value read from the environment and the reference that
// produced it.
type expansion struct{ val, ref string }

// minScrub is the length from which a value read from the environment is
// scrubbed from messages where it appears unquoted; a quoted value is
// always replaced.
const minScrub = 4

// kv is one key/value pair of a mapping, both resolved.
type kv = yamlwalk.KV

// newWalker returns a walker of the named file that reads variables with
// getenv.
func newWalker(file string, getenv func(string) string) *walker {
	w := &walker{file: file, getenv: getenv}
	w.Report = func(n *yaml.Node, field, msg, hint string) { w.add(n, field, msg, hint) }
	return w
}

// str is a string value with the environment references expanded.
type str struct {
	val  string
	node *yaml.Node
	// vars are the variables the value referred to, in order; values are
	// their values.
	vars, values []string
}

// fromEnv reports whether any of the value came from the environment.
func (s str) fromEnv() bool { return len(s.vars) > 0 }

func (w *walker) add(n *yaml.Node, field, msg, hint string) *entry {
	if w.Overrun {
		return nil
	}
	line, col := 0, 0
	if n != nil {
		line, col = n.Line, n.Column
	}
	// Scrubbed before it is cut, so that no part of a secret is left.
	pr := suite.NewProblem(w.file, line, col, field, w.scrub(msg), w.scrub(hint))
	w.entries = append(w.entries, entry{p: pr})
	return &w.entries[len(w.entries)-1]
}

// scrub replaces in s every value read from the environment with the
// reference that produced it, longest first.
func (w *walker) scrub(s string) string {
	if len(w.expanded) == 0 {
		return s
	}
	exp := slices.Clone(w.expanded)
	slices.SortStableFunc(exp, func(a, b expansion) int { return len(b.val) - len(a.val) })
	for _, e := range exp {
		if e.val == "" {
			continue
		}
		s = strings.ReplaceAll(s, strconv.Quote(e.val), strconv.Quote(e.ref))
		if len(e.val) >= minScrub {
			s = strings.ReplaceAll(s, e.val, e.ref)
		}
	}
	return s
}

// problems returns every problem in file order, each followed by the
// problems of the suite it concerns.
func (w *walker) problems() []*suite.Problem {
	slices.SortStableFunc(w.entries, func(a, b entry) int {
		if a.p.Line != b.p.Line {
			return a.p.Line - b.p.Line
		}
		return a.p.Column - b.p.Column
	})
	var out []*suite.Problem
	for _, e := range w.entries {
		out = append(out, e.p)
		out = append(out, e.suite...)
	}
	return out
}

// decode parses data into its single document's root node.
func (w *walker) decode(data []byte) *yaml.Node {
	return w.Decode(data, "a monitor.yaml needs checks:; `promptcanary init` writes one", func(line []byte) string {
		if starValueRE.Match(line) {
			return `quote a value that starts with '*', for example cron: "*/5 * * * *"`
		}
		return ""
	})
}

// starValueRE matches a line whose value starts with '*', which YAML reads
// as an alias: an unquoted cron expression.
var starValueRE = regexp.MustCompile(`^[\s-]*[A-Za-z_]+:\s+\*`)

// str returns a string field with its ${NAME} references expanded. Null
// yields ok false without a problem; any other non-string, and a reference
// to an unset variable, is a problem. Messages name variables, never their
// values.
func (w *walker) str(n *yaml.Node, field string) (str, bool) {
	if yamlwalk.IsNull(n) {
		return str{}, false
	}
	if !yamlwalk.IsString(n) {
		w.WrongType(n, field, "a string", "quote the value to make it a string")
		return str{}, false
	}
	s := str{val: n.Value, node: n}
	if !strings.Contains(n.Value, "${") {
		return s, true
	}
	v, values, err := envvar.Expand(n.Value, w.getenv)
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			hint := "set it in the environment of promptcanary serve"
			if strings.HasPrefix(line, "invalid") {
				hint = "write ${NAME}, for example ${SLACK_WEBHOOK_URL}"
			}
			w.add(n, field, line, hint)
		}
		return str{}, false
	}
	s.val, s.values = v, values
	s.vars = refs(n.Value)
	w.expanded = append(w.expanded, expansion{v, n.Value})
	for i, val := range values {
		if i < len(s.vars) {
			w.expanded = append(w.expanded, expansion{val, "${" + s.vars[i] + "}"})
		}
	}
	return s, true
}

// refs returns the variable names of the ${NAME} references in s.
func refs(s string) []string {
	var out []string
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			return out
		}
		rest := s[i+2:]
		j := strings.IndexByte(rest, '}')
		if j < 0 {
			return out
		}
		out = append(out, rest[:j])
		s = rest[j+1:]
	}
}

// secret returns a string field that must come from the environment: a
// literal value is a problem (monitor.yaml is usually committed), as is an
// unset variable. The value read is recorded as a secret. env suggests the
// variable to use.
func (w *walker) secret(n *yaml.Node, field, env string) (str, bool) {
	if yamlwalk.IsString(n) && !strings.Contains(n.Value, "${") {
		w.add(n, field, "must come from the environment, not be written in the file",
			fmt.Sprintf(`write %s: "${%s}" and set %s where promptcanary serve runs (monitor.yaml is usually committed)`, lastKey(field), env, env))
		return str{}, false
	}
	s, ok := w.str(n, field)
	if ok {
		w.keep(s)
	}
	return s, ok
}

// keep records a value read from the environment as a secret.
func (w *walker) keep(s str) {
	if !s.fromEnv() {
		return
	}
	w.secrets = append(w.secrets, s.val)
	w.secrets = append(w.secrets, s.values...)
}

// lastKey returns the last key of a field path.
func lastKey(field string) string {
	if i := strings.LastIndexByte(field, '.'); i >= 0 {
		return field[i+1:]
	}
	return field
}

// mappings yields the field path and the node of each item of the list
// at the top-level key (one entry per line) that is a mapping; it reports
// the other items as not want, with hint.
func (w *walker) mappings(n *yaml.Node, key, entry, want, hint string) iter.Seq2[string, *yaml.Node] {
	return func(yield func(string, *yaml.Node) bool) {
		for i, item := range w.Items(n, key, "a list", "write one "+entry+" per line, each starting with '- '") {
			field := fmt.Sprintf("%s[%d]", key, i)
			if item.Kind != yaml.MappingNode {
				w.WrongType(item, field, want, hint)
				continue
			}
			if !yield(field, item) {
				return
			}
		}
	}
}

// isList reports whether n is a list, and otherwise reports it as not
// want, with hint, or for a string, a hint that writes it as a list of one
// and then more.
func (w *walker) isList(n *yaml.Node, field, want, hint, more string) bool {
	if n.Kind == yaml.SequenceNode {
		return true
	}
	if yamlwalk.IsString(n) {
		hint = "write a list: [" + n.Value + "]" + more
	}
	w.WrongType(n, field, want, hint)
	return false
}

// strList returns the value of a list-of-strings field; null yields nil
// and set false. Empty items are problems.
func (w *walker) strList(n *yaml.Node, field, hint string) (out []string, set bool) {
	if yamlwalk.IsNull(n) || !w.isList(n, field, "a list of strings", "write a list of names, for example [a, b]", "") {
		return nil, false
	}
	out = []string{}
	for i, item := range n.Content {
		item = w.Resolve(item)
		f := fmt.Sprintf("%s[%d]", field, i)
		s, ok := w.str(item, f)
		switch {
		case !ok && yamlwalk.IsNull(item):
			w.add(item, f, "must not be empty", hint)
		case !ok:
		case s.val == "":
			w.add(item, f, "must not be empty", hint)
		default:
			out = append(out, s.val)
		}
	}
	return out, true
}

// boolean returns a boolean field; null yields nil.
func (w *walker) boolean(n *yaml.Node, field string) *bool {
	if yamlwalk.IsNull(n) {
		return nil
	}
	var b bool
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" || n.Decode(&b) != nil {
		w.WrongType(n, field, "true or false", "write true or false, unquoted")
		return nil
	}
	return &b
}

// integer returns an integer field within [lo, hi]; null yields nil.
func (w *walker) integer(n *yaml.Node, field string, lo, hi int64) *int {
	if yamlwalk.IsNull(n) {
		return nil
	}
	isInt := n.Kind == yaml.ScalarNode && n.ShortTag() == "!!int"
	tooBig := n.Kind == yaml.ScalarNode && n.ShortTag() == "!!float" && intLikeRE.MatchString(n.Value)
	if !isInt && !tooBig {
		w.WrongType(n, field, "an integer", "write a whole number, for example 3")
		return nil
	}
	var v int64
	if tooBig || n.Decode(&v) != nil || v < lo || v > hi {
		l, h := strconv.FormatInt(lo, 10), strconv.FormatInt(hi, 10)
		w.add(n, field, fmt.Sprintf("out of range: got %s, allowed %s to %s", n.Value, l, h), fmt.Sprintf("use a value from %s to %s", l, h))
		return nil
	}
	i := int(v)
	return &i
}

// number returns a finite number field within [lo, hi]; null yields nil.
func (w *walker) number(n *yaml.Node, field string, lo, hi float64, hint string) *float64 {
	if yamlwalk.IsNull(n) {
		return nil
	}
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!float" && n.ShortTag() != "!!int") {
		w.WrongType(n, field, "a number", hint)
		return nil
	}
	var f float64
	if err := n.Decode(&f); err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		w.add(n, field, "must be a finite number, got "+n.Value, hint)
		return nil
	}
	if f < lo || f > hi {
		w.add(n, field, fmt.Sprintf("out of range: got %s, allowed %s to %s", n.Value, fmtFloat(lo), fmtFloat(hi)), hint)
		return nil
	}
	return &f
}

// duration returns a duration field within [lo, hi]; null yields nil.
func (w *walker) duration(n *yaml.Node, field string, lo, hi time.Duration, hint string) *time.Duration {
	if yamlwalk.IsNull(n) {
		return nil
	}
	if !yamlwalk.IsString(n) {
		if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!int" && n.Value == "0" && lo == 0 {
			d := time.Duration(0)
			return &d
		}
		w.add(n, field, "must be a duration, got "+yamlwalk.Describe(n), "write a duration with its unit, for example 30s, 15m or 2h")
		return nil
	}
	s, ok := w.str(n, field)
	if !ok {
		return nil
	}
	d, err := time.ParseDuration(s.val)
	if err != nil {
		h := "write a duration with its unit, for example 30s, 15m or 2h"
		if days, ok := strings.CutSuffix(s.val, "d"); ok {
			if k, err := strconv.Atoi(days); err == nil && k > 0 && k < 1000 {
				h = fmt.Sprintf("Go durations have no days: write %dh", k*24)
			}
		}
		w.add(n, field, fmt.Sprintf("invalid duration %q", s.val), h)
		return nil
	}
	if d < lo || d > hi {
		msg := fmt.Sprintf("out of range: got %s, allowed %s to %s", s.val, suite.FormatDuration(lo), suite.FormatDuration(hi))
		if hint == "" {
			hint = fmt.Sprintf("use a duration from %s to %s", suite.FormatDuration(lo), suite.FormatDuration(hi))
		}
		w.add(n, field, msg, hint)
		return nil
	}
	return &d
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
