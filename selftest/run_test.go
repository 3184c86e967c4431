package selftest_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/selftest"
)

func TestDeterministic(t *testing.T) {
	opts := selftest.Options{Samples: &selftest.Samples{Baseline: 30, Current: 5}}
	a, b := runScaffold(t, opts), runScaffold(t, opts)
	if !reflect.DeepEqual(a, b) {
		t.Error("got two different results from the same suite and baseline, want the same")
	}
}

func TestRunErrors(t *testing.T) {
	st, base := scaffolded(t)
	other := *base
	other.SuiteName = "another"
	empty := *base
	empty.RunResult.LLMResponses = nil
	dup := selftest.Catalogue()[:2]
	dup[1].ID = dup[0].ID
	tests := []struct {
		name string
		base *promptcanary.Baseline
		opts selftest.Options
		want string
	}{
		{"other suite", &other, selftest.Options{}, `selftest: baseline "base-1" is for suite "another", not "selftest-demo"`},
		{"no answers", &empty, selftest.Options{}, `selftest: baseline "base-1" holds no answer to any prompt of suite "selftest-demo"`},
		{"duplicate drift", base, selftest.Options{Drifts: dup}, `selftest: drift "json_in_prose" listed twice`},
		{"incomplete drift", base, selftest.Options{Drifts: []selftest.Drift{{ID: "x"}}}, `selftest: drift 0 ("x") needs an id, Apply and Suggest`},
		{"bad samples", base, selftest.Options{Samples: &selftest.Samples{Baseline: 0, Current: 5}}, "selftest: samples must be between 1 and 10000"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := selftest.Run(st, tc.base, tc.opts)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got error %v, want one starting %q", err, tc.want)
			}
		})
	}
}

// TestPartialBaseline notes the prompts the baseline has no answer for.
func TestPartialBaseline(t *testing.T) {
	st, base := scaffolded(t)
	part := *base
	part.RunResult.LLMResponses = nil
	for _, r := range base.RunResult.LLMResponses {
		if r.PromptID == "capital-france" {
			part.RunResult.LLMResponses = append(part.RunResult.LLMResponses, r)
		}
	}
	res, err := selftest.Run(st, &part, selftest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Prompts != 1 || len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "5 prompt(s) have no stored answer") {
		t.Errorf("got %d prompts and notes %q, want 1 prompt and a note on the 5 others", res.Prompts, res.Notes)
	}
	for _, p := range res.Probes {
		if p.ID == "json_validity" {
			t.Errorf("got probe %s of an untested prompt in the matrix", p.ID)
		}
	}
}

// TestDetectable checks the drops the drift statistics quote: smaller with
// more samples, none with one sample or a probe that never passes.
func TestDetectable(t *testing.T) {
	drop := func(nb, nc int) *selftest.Detectable {
		t.Helper()
		res := runScaffold(t, selftest.Options{Samples: &selftest.Samples{Baseline: nb, Current: nc}})
		if res.Samples == nil || res.Alpha != 0.01 {
			t.Fatalf("got samples %v and alpha %v, want them recorded", res.Samples, res.Alpha)
		}
		return res.Probes[0].Detectable
	}
	d5, d20 := drop(30, 5), drop(30, 20)
	if d5.Reason != "" || d20.Reason != "" || d5.From != 1 {
		t.Fatalf("got %+v and %+v, want drops from a pass rate of 1", d5, d20)
	}
	if !(d20.Drop > 0 && d20.Drop < d5.Drop && d5.Drop < 1) {
		t.Errorf("got drops %.3f (30/5) and %.3f (30/20), want 0 < second < first < 1", d5.Drop, d20.Drop)
	}
	if d := drop(30, 1); d.Reason == "" || d.Drop != 0 {
		t.Errorf("got %+v with one current sample, want no drop and a reason", d)
	}
	// Without Samples nothing is computed.
	if res := runScaffold(t, selftest.Options{}); res.Probes[0].Detectable != nil || res.Samples != nil {
		t.Errorf("got a detectable drop without samples")
	}
}
