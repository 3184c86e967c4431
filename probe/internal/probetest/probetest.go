// Package probetest holds the checks the built-in probe families' tests
// share: building a probe through the registry, evaluating it as the run
// engine does, and asserting verdicts, metadata keys and parameter errors.
package probetest

import (
	"math"
	"slices"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
)

// New builds probe id from raw parameters through the registry, failing the
// test on error.
func New(t testing.TB, id string, raw map[string]any) probe.Probe {
	t.Helper()
	p, _, err := probe.New(id, raw)
	if err != nil {
		t.Fatalf("probe.New(%q, %v): %v", id, raw, err)
	}
	return p
}

// Run builds probe id from raw and evaluates content with probe.Evaluate,
// as the runner does.
func Run(t testing.TB, id string, raw map[string]any, content string) probe.Result {
	t.Helper()
	return probe.Evaluate(New(t, id, raw), &promptcanary.Prompt{ID: "p1"}, &promptcanary.Response{PromptID: "p1", Content: content})
}

// CheckVerdict asserts passed, score (to 1e-9) and non-empty details.
func CheckVerdict(t testing.TB, res probe.Result, passed bool, score float64) {
	t.Helper()
	if res.Passed != passed {
		t.Errorf("passed: got %v, want %v (details %q)", res.Passed, passed, res.Details)
	}
	if math.Abs(res.Score-score) > 1e-9 {
		t.Errorf("score: got %v, want %v (details %q)", res.Score, score, res.Details)
	}
	if res.Details == "" {
		t.Errorf("details: got empty, want a sentence")
	}
}

// CheckKeys asserts that the metadata holds exactly keys.
func CheckKeys(t testing.TB, meta map[string]any, keys ...string) {
	t.Helper()
	got := make([]string, 0, len(meta))
	for k := range meta {
		got = append(got, k)
	}
	slices.Sort(got)
	want := slices.Clone(keys)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("metadata keys: got %v, want %v", got, want)
	}
}

// ParamNames returns the Param of every *probe.ParamError in err, sorted,
// and fails the test if err holds anything else.
func ParamNames(t testing.TB, err error) []string {
	t.Helper()
	params, other := probe.ParamErrors(err)
	for _, e := range other {
		t.Errorf("error %v (%T): want a *probe.ParamError", e, e)
	}
	names := make([]string, 0, len(params))
	for _, pe := range params {
		names = append(names, pe.Param)
	}
	slices.Sort(names)
	return names
}
