package report

import (
	"testing"

	"github.com/promptcanary/promptcanary"
)

// econSection is an economic section whose completion tokens and cost
// moved.
func econSection(flagged bool) *promptcanary.Economics {
	return &promptcanary.Economics{Alpha: 0.01, MinChange: 0.1, Prompts: 8, Answers: 80, BaselineRuns: 1, Permutations: 1000,
		Summary: "answers are 40% longer since the baseline of 2026-12-01 (150 → 210 completion tokens per answer): the run costs $0.82 instead of $0.58",
		Measures: []promptcanary.EconomicMeasure{
			{Measure: promptcanary.MeasureCompletionTokens, Baseline: 150, Current: 210, Change: 0.4, Test: promptcanary.EconomicTestAnswers, P: 0.001, Q: 0.002, Flagged: flagged},
			{Measure: promptcanary.MeasureLatency, NA: "latency not recorded"},
			{Measure: promptcanary.MeasureCost, Baseline: 0.58, Current: 0.82, Change: 0.82/0.58 - 1, Test: promptcanary.EconomicTestAnswers, P: 0.001, Q: 0.002, Flagged: flagged},
		}}
}

// TestEconomicsShown checks that every drift report format shows a
// flagged economic section with its sentence and measures, and that the
// human formats show nothing of a section in which nothing moved.
func TestEconomicsShown(t *testing.T) {
	d := notCompared(promptcanary.StatusStable)
	d.Economics = econSection(true)
	sentence := "Economic drift: answers are 40% longer since the baseline of 2026-12-01 (150 → 210 completion tokens per answer): the run costs"
	for _, tc := range []struct {
		f    Format
		want []string
	}{
		{Terminal, []string{"⚠ " + sentence + " $0.82 instead of $0.58.", "    cost per run: $0.58 → $0.82 (+41%); answer permutation p=1.0e-03, q=2.0e-03; flagged", "    latency per call: n/a (latency not recorded)"}},
		{Markdown, []string{"⚠️ **" + sentence + " &#36;0.82 instead of &#36;0.58.**", "- completion tokens per answer: 150 → 210 (+40%); answer permutation p=1.0e-03, q=2.0e-03; flagged"}},
		{HTML, []string{`<span class="badge warn">economics</span> ` + sentence + " $0.82 instead of $0.58.</p>", "<li>latency per call: n/a (latency not recorded)</li>"}},
		{JUnit, []string{`name="economics" value="` + sentence}},
		{JSON, []string{`"economics": {`, `"measure": "cost_usd",`, `"na": "latency not recorded",`, `"flagged": true`}},
	} {
		t.Run(string(tc.f), func(t *testing.T) {
			checkOutput(t, render(t, tc.f, nil, d, Options{Width: 400}), tc.want, nil)
		})
	}
	d.Economics = econSection(false)
	for _, f := range []Format{Terminal, Markdown, HTML, JUnit} {
		checkOutput(t, render(t, f, nil, d, Options{Width: 400}), nil, []string{"Economic", "economics"})
	}
}
