package match

import (
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe/internal/probetest"
)

// evalCase is one row of a probe's table test.
type evalCase struct {
	name    string
	params  map[string]any
	content string
	pass    bool
	score   float64
	meta    map[string]any // the exact metadata, nil to skip the check
	details string         // a substring the details must contain
}

// runCases builds probe id through the registry for each case and checks
// the evaluated result.
func runCases(t *testing.T, id string, cases []evalCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := probetest.New(t, id, tc.params)
			got := probetest.Eval(p, &promptcanary.Prompt{ID: "p1"}, &promptcanary.Response{PromptID: "p1", Content: tc.content})
			probetest.CheckResult(t, got, probetest.Want{Passed: tc.pass, Score: tc.score, Meta: tc.meta, Details: tc.details})
		})
	}
}

// list is shorthand for a YAML list of strings as the decoder produces it.
var list = probetest.List

// strs is shorthand for list metadata, never nil.
var strs = probetest.Strs

// textMeta is the metadata of a text probe.
func textMeta(matched, unmatched []string, mode string, not bool) map[string]any {
	return map[string]any{"matched": strs(matched...), "unmatched": strs(unmatched...), "mode": mode, "not": not}
}
