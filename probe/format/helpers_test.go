package format_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/probetest"
)

// evalCase is one row of a probe's table test.
type evalCase struct {
	name     string
	params   map[string]any
	keywords []string // the prompt's expected_keywords
	content  string   // "@name" reads testdata/name
	pass     bool
	score    float64
	meta     map[string]any // the exact metadata, nil to skip the check
	details  string         // a substring the details must contain
	// built, when set, is evaluated instead of a probe built from params:
	// for configurations New rejects but a Go caller can still build.
	built probe.Probe
}

// runCases builds probe id through the registry for each case and checks
// the evaluated result.
func runCases(t *testing.T, id string, cases []evalCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.built
			if p == nil {
				p = mustNew(t, id, tc.params)
			}
			prompt := &promptcanary.Prompt{ID: "p1", ExpectedKeywords: tc.keywords}
			got := probetest.Eval(p, prompt, &promptcanary.Response{PromptID: "p1", Content: content(t, tc.content)})
			probetest.CheckResult(t, got, probetest.Want{Passed: tc.pass, Score: tc.score, Meta: tc.meta, Details: tc.details})
		})
	}
}

// mustNew builds a probe through the registry, failing the test on error.
var mustNew = probetest.New

// content returns s, or the text of testdata/<name> when s is "@name".
func content(t testing.TB, s string) string {
	t.Helper()
	name, ok := strings.CutPrefix(s, "@")
	if !ok {
		return s
	}
	return probetest.Testdata(t, name)
}

func approx(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// paramErrors returns the Param of every *probe.ParamError in err's tree,
// sorted, and fails the test if err holds anything else.
var paramErrors = probetest.ParamNames

// configCase is a probe configuration that must be rejected.
type configCase struct {
	name   string
	params map[string]any
	want   []string // the ParamError params, sorted
	msg    string   // a substring of the error text
	hint   string   // a substring of some ParamError's hint
}

func runConfigCases(t *testing.T, id string, cases []configCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, _, err := probe.New(id, tc.params)
			if err == nil {
				t.Fatalf("probe.New(%q, %v): got probe %v, want an error", id, tc.params, p)
			}
			if got := paramErrors(t, err); !slices.Equal(got, tc.want) {
				t.Errorf("params in error: got %v, want %v (error %v)", got, tc.want, err)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error: got %q, want it to contain %q", err, tc.msg)
			}
			if tc.hint != "" && !slices.ContainsFunc(hints(err), func(h string) bool { return strings.Contains(h, tc.hint) }) {
				t.Errorf("hints: got %q, want one containing %q", hints(err), tc.hint)
			}
		})
	}
}

// list is shorthand for a YAML list of strings as the decoder produces it.
var list = probetest.List

// strs is shorthand for list metadata, never nil.
var strs = probetest.Strs

// hints returns the Hint of every *probe.ParamError in err's tree.
func hints(err error) []string {
	var out []string
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, c := range j.Unwrap() {
			out = append(out, hints(c)...)
		}
		return out
	}
	var pe *probe.ParamError
	if errors.As(err, &pe) {
		out = append(out, pe.Hint)
	}
	return out
}
