package drift

import (
	"slices"
	"testing"
)

// The drift report carries the current run's model-rule adjustments and
// warnings, so every drift report format can say what was sent.
func TestCompareCarriesAdjustments(t *testing.T) {
	rs := []res{{probe: "p", prompt: "a", score: 1, passed: true}}
	cur := makeRun("s", rs)
	cur.Adjustments = []string{"gpt-5 takes no temperature but the default 1: sends 1 instead of 0"}
	cur.Warnings = []string{"a warning"}
	d, err := Compare(makeBaseline("s", rs), &cur, fixedOpts())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Adjustments, cur.Adjustments) || !slices.Equal(d.Warnings, cur.Warnings) {
		t.Errorf("report adjustments %q warnings %q, want the run's", d.Adjustments, d.Warnings)
	}
}
