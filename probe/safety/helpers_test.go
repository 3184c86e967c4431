package safety

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
)

// run builds probe id from raw through the registry and evaluates content
// with probe.Evaluate, as the runner does.
func run(t testing.TB, id string, raw map[string]any, content string) probe.Result {
	t.Helper()
	p, _, err := probe.New(id, raw)
	if err != nil {
		t.Fatalf("probe.New(%q, %v): %v", id, raw, err)
	}
	return probe.Evaluate(p, &promptcanary.Prompt{ID: "p1"}, &promptcanary.Response{PromptID: "p1", Content: content})
}

// checkVerdict asserts passed and score (to 1e-9).
func checkVerdict(t *testing.T, res probe.Result, passed bool, score float64) {
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

// checkKeys asserts that the metadata holds exactly keys.
func checkKeys(t *testing.T, meta map[string]any, keys ...string) {
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

// matchedPatterns returns the matched_patterns metadata, failing the test
// when it is not a non-nil []string.
func matchedPatterns(t *testing.T, res probe.Result) []string {
	t.Helper()
	m, ok := res.Metadata["matched_patterns"].([]string)
	if !ok || m == nil {
		t.Fatalf("matched_patterns: got %#v, want a non-nil []string", res.Metadata["matched_patterns"])
	}
	return m
}

// paramNames returns the Param of every *probe.ParamError in err, sorted.
func paramNames(err error) []string {
	var out []string
	var walk func(error)
	walk = func(e error) {
		if pe, ok := e.(*probe.ParamError); ok {
			out = append(out, pe.Param)
			return
		}
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, c := range j.Unwrap() {
				walk(c)
			}
			return
		}
		if u := errors.Unwrap(e); u != nil {
			walk(u)
		}
	}
	walk(err)
	slices.Sort(out)
	return out
}
