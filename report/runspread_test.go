package report

import (
	"testing"

	"github.com/promptcanary/promptcanary"
)

// TestRunSpreadShown checks that the terminal, Markdown, HTML and JSON
// drift reports show how much of the change lies within the run-to-run
// spread of a pooled baseline, escaped where the format needs it, and
// nothing of it when the report has none.
func TestRunSpreadShown(t *testing.T) {
	d := notCompared(promptcanary.StatusStable)
	d.RunSpread = &promptcanary.RunSpread{BaselineRuns: 6, BaselineRate: 0.82, CurrentRate: 0.799, SD: 0.022, BetweenRunSD: 0.018, P: 0.21}
	want := "suite pass rate −2.1 points (82.0% → 79.9%); usual run-to-run spread ±2.2 points (SD over 6 baseline runs): within it (run-level test p = 0.21)."
	for _, f := range []Format{Terminal, Markdown, HTML, JSON} {
		t.Run(string(f), func(t *testing.T) {
			w := []string{want}
			if f == JSON {
				w = []string{`"run_spread": {`, `"baseline_runs": 6,`, `"baseline_rate": 0.82,`, `"current_rate": 0.799,`, `"sd": 0.022,`, `"between_run_sd": 0.018,`, `"p": 0.21`}
			}
			checkOutput(t, render(t, f, nil, d, Options{Width: 400}), w, nil)
		})
	}
	d.RunSpread.CurrentRate, d.RunSpread.P = 0.70, 0.00001
	beyond := map[Format]string{
		Terminal: "−12.0 points (82.0% → 70.0%); usual run-to-run spread ±2.2 points (SD over 6 baseline runs): beyond it (run-level test p < 0.0001).",
		Markdown: "beyond it (run-level test p &lt; 0.0001).",
		HTML:     "beyond it (run-level test p &lt; 0.0001).",
	}
	for f, w := range beyond {
		checkOutput(t, render(t, f, nil, d, Options{Width: 400}), []string{w}, nil)
	}
	d.RunSpread = nil
	for _, f := range Formats {
		checkOutput(t, render(t, f, nil, d, Options{Width: 400}), nil, []string{"run-to-run spread", `"run_spread"`})
	}
}
