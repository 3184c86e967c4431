package drift

import (
	"math"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
)

// TestSingleSampleRule checks each branch of the original rule on one pair;
// a single regressed pair is a regression rate of 1, hence critical.
func TestSingleSampleRule(t *testing.T) {
	tests := []struct {
		name             string
		base, cur        res
		wantStatus       promptcanary.Status
		wantReg, wantImp bool
		wantSeverity     promptcanary.Severity
	}{
		{"pass to fail, big drop", res{"p", "a", 0, 1.0, true}, res{"p", "a", 0, 0.3, false}, promptcanary.StatusRegression, true, false, promptcanary.SeverityCritical},
		{"fail to worse fail", res{"p", "a", 0, 0.5, false}, res{"p", "a", 0, 0.3, false}, promptcanary.StatusRegression, true, false, promptcanary.SeverityCritical},
		{"drop exactly 0.05 and failing", res{"p", "a", 0, 0.30, false}, res{"p", "a", 0, 0.25, false}, promptcanary.StatusRegression, true, false, promptcanary.SeverityCritical},
		{"drop 0.04 and failing", res{"p", "a", 0, 0.30, false}, res{"p", "a", 0, 0.26, false}, promptcanary.StatusStable, false, false, promptcanary.SeverityNone},
		{"drop but still passing", res{"p", "a", 0, 1.0, true}, res{"p", "a", 0, 0.8, true}, promptcanary.StatusStable, false, false, promptcanary.SeverityNone},
		{"fail to pass", res{"p", "a", 0, 0.4, false}, res{"p", "a", 0, 0.9, true}, promptcanary.StatusImprovement, false, true, promptcanary.SeverityNone},
		{"pass to better pass exactly 0.05", res{"p", "a", 0, 0.90, true}, res{"p", "a", 0, 0.95, true}, promptcanary.StatusImprovement, false, true, promptcanary.SeverityNone},
		{"gain 0.04", res{"p", "a", 0, 0.90, true}, res{"p", "a", 0, 0.94, true}, promptcanary.StatusStable, false, false, promptcanary.SeverityNone},
		{"gain but still failing", res{"p", "a", 0, 0.2, false}, res{"p", "a", 0, 0.5, false}, promptcanary.StatusStable, false, false, promptcanary.SeverityNone},
		{"unchanged", res{"p", "a", 0, 1, true}, res{"p", "a", 0, 1, true}, promptcanary.StatusStable, false, false, promptcanary.SeverityNone},
		// "score": null (the Python tool's files) reads as NaN: the verdicts decide.
		{"no baseline score, pass to fail", res{"p", "a", 0, math.NaN(), true}, res{"p", "a", 0, 0, false}, promptcanary.StatusRegression, true, false, promptcanary.SeverityCritical},
		{"no current score, pass to fail", res{"p", "a", 0, 1, true}, res{"p", "a", 0, math.NaN(), false}, promptcanary.StatusRegression, true, false, promptcanary.SeverityCritical},
		{"no baseline score, fail to pass", res{"p", "a", 0, math.NaN(), false}, res{"p", "a", 0, 1, true}, promptcanary.StatusImprovement, false, true, promptcanary.SeverityNone},
		{"no scores, both pass", res{"p", "a", 0, math.NaN(), true}, res{"p", "a", 0, math.NaN(), true}, promptcanary.StatusStable, false, false, promptcanary.SeverityNone},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cur := makeRun("s", []res{tc.cur})
			rep, err := Compare(makeBaseline("s", []res{tc.base}), &cur, fixedOpts())
			if err != nil {
				t.Fatal(err)
			}
			c := findComparison(rep, "p", "a")
			if c.Status != tc.wantStatus || c.Regression != tc.wantReg || c.Improvement != tc.wantImp {
				t.Errorf("got status %s regression %v improvement %v, want %s %v %v", c.Status, c.Regression, c.Improvement, tc.wantStatus, tc.wantReg, tc.wantImp)
			}
			if rep.Severity != tc.wantSeverity {
				t.Errorf("got severity %s, want %s", rep.Severity, tc.wantSeverity)
			}
			if rep.HasDrift != tc.wantReg {
				t.Errorf("got has_drift %v, want %v", rep.HasDrift, tc.wantReg)
			}
			if rep.Method != MethodSingleSample {
				t.Errorf("got method %q, want %q", rep.Method, MethodSingleSample)
			}
			if len(rep.Notes) == 0 || rep.Notes[0] != singleSampleNote {
				t.Errorf("got notes %q, want the single-sample note", rep.Notes)
			}
		})
	}
}

func TestSingleSeverityBoundaries(t *testing.T) {
	tests := []struct {
		r, w float64
		want promptcanary.Severity
	}{
		{0.5, 0, promptcanary.SeverityCritical},
		{0, 0.6, promptcanary.SeverityCritical},
		{0.49, 0.59, promptcanary.SeverityHigh},
		{0.3, 0, promptcanary.SeverityHigh},
		{0, 0.4, promptcanary.SeverityHigh},
		{0.29, 0.39, promptcanary.SeverityMedium},
		{0.15, 0, promptcanary.SeverityMedium},
		{0, 0.2, promptcanary.SeverityMedium},
		{0.14, 0.19, promptcanary.SeverityLow},
		{0.01, 0.05, promptcanary.SeverityLow},
	}
	for _, tc := range tests {
		if got := singleSeverity(tc.r, tc.w); got != tc.want {
			t.Errorf("singleSeverity(%g, %g): got %s, want %s", tc.r, tc.w, got, tc.want)
		}
	}
}

// TestSingleSampleReport checks the rate-driven severity, added and removed
// pairs, the overall scores and both summaries.
func TestSingleSampleReport(t *testing.T) {
	base := []res{
		{"p1", "a", 0, 1, true}, {"p2", "a", 0, 1, true}, {"p3", "a", 0, 1, true},
		{"p4", "a", 0, 0.9, true}, {"gone", "a", 0, 1, true},
	}
	cur := []res{
		{"p1", "a", 0, 0.85, false}, {"p2", "a", 0, 1, true}, {"p3", "a", 0, 1, true},
		{"p4", "a", 0, 0.9, true}, {"new", "a", 0, 0, false},
	}
	run := makeRun("s", cur)
	rep, err := Compare(makeBaseline("s", base), &run, fixedOpts())
	if err != nil {
		t.Fatal(err)
	}
	// One regression of four compared pairs: rate 0.25 ≥ 0.15 → medium.
	if rep.Severity != promptcanary.SeverityMedium {
		t.Errorf("got severity %s, want medium", rep.Severity)
	}
	if got := findComparison(rep, "gone", "a").Status; got != promptcanary.StatusRemoved {
		t.Errorf("got removed status %s, want %s", got, promptcanary.StatusRemoved)
	}
	if got := findComparison(rep, "new", "a"); got.Status != promptcanary.StatusAdded || got.Regression {
		t.Errorf("got added status %s regression %v, want %s false", got.Status, got.Regression, promptcanary.StatusAdded)
	}
	if got := len(rep.Regressions()); got != 1 {
		t.Errorf("got %d regressions, want 1", got)
	}
	wantBase, wantCur := (1+1+1+0.9)/4.0, (0.85+1+1+0.9)/4.0
	if !near(rep.OverallBaselineScore, wantBase, 1e-12) || !near(rep.OverallCurrentScore, wantCur, 1e-12) {
		t.Errorf("got overall %v → %v, want %v → %v", rep.OverallBaselineScore, rep.OverallCurrentScore, wantBase, wantCur)
	}
	want := "MEDIUM drift in 's': 1 regression(s) detected (score: 97.50% → 93.75%, Δ -3.75%). Compared 4 of 6 pairs; not compared: 1 added since the baseline, 1 removed since the baseline."
	if rep.Summary != want {
		t.Errorf("got summary %q, want %q", rep.Summary, want)
	}
	if rep.ReportID != "report-1" || !rep.GeneratedAt.Equal(fixedTime) || rep.BaselineSnapshotID != "snap-1" || rep.CurrentRunID != "run-s" {
		t.Errorf("got header %q %v %q %q, want the injected id, time and source ids", rep.ReportID, rep.GeneratedAt, rep.BaselineSnapshotID, rep.CurrentRunID)
	}

	run = makeRun("s", base)
	rep, err = Compare(makeBaseline("s", base), &run, fixedOpts())
	if err != nil {
		t.Fatal(err)
	}
	if want := "No drift detected in 's' (score: 98.00%)."; rep.Summary != want {
		t.Errorf("got summary %q, want %q", rep.Summary, want)
	}
}

func TestSuiteMismatch(t *testing.T) {
	run := makeRun("other", []res{{"p", "a", 0, 1, true}})
	_, err := Compare(makeBaseline("s", []res{{"p", "a", 0, 1, true}}), &run, fixedOpts())
	if err == nil || !strings.Contains(err.Error(), `suite name mismatch: baseline is for "s" but the run is for "other"`) {
		t.Errorf("got error %v, want a suite name mismatch", err)
	}
}

func TestBadOptions(t *testing.T) {
	run := makeRun("s", []res{{"p", "a", 0, 1, true}})
	for _, o := range []Options{{Method: "vote"}, {Alpha: 1.5}, {Permutations: -1}, {RegressionThreshold: -0.1}} {
		if _, err := Compare(makeBaseline("s", []res{{"p", "a", 0, 1, true}}), &run, o); err == nil {
			t.Errorf("options %+v: got no error, want one", o)
		}
	}
}

// TestUncomparedPairs checks that failed calls and stale prompts never
// count as drift, in both methods.
func TestUncomparedPairs(t *testing.T) {
	for _, samples := range []int{1, 20} {
		t.Run(map[int]string{1: "single", 20: "statistical"}[samples], func(t *testing.T) {
			var base, cur []res
			for _, prompt := range []string{"ok", "down", "stale"} {
				base = append(base, binarySamples("p", prompt, 30, 30)...)
			}
			cur = append(cur, binarySamples("p", "ok", samples, samples)...)
			cur = append(cur, binarySamples("p", "stale", 0, samples)...)
			run := makeRun("s", cur)
			for i := 0; i < samples; i++ {
				run.Errors = append(run.Errors, promptcanary.CallError{PromptID: "down", Sample: i, Message: "503 service unavailable"})
			}
			opts := fixedOpts()
			opts.StalePrompts = map[string]bool{"stale": true}
			rep, err := Compare(makeBaseline("s", base), &run, opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := findComparison(rep, "p", "down").Status; got != promptcanary.StatusNotMeasured {
				t.Errorf("got down status %s, want %s", got, promptcanary.StatusNotMeasured)
			}
			if got := findComparison(rep, "p", "stale").Status; got != promptcanary.StatusStale {
				t.Errorf("got stale status %s, want %s", got, promptcanary.StatusStale)
			}
			if rep.HasDrift || rep.Severity != promptcanary.SeverityNone {
				t.Errorf("got has_drift %v severity %s, want false none", rep.HasDrift, rep.Severity)
			}
			if len(rep.Errors) != samples {
				t.Errorf("got %d errors in the report, want %d", len(rep.Errors), samples)
			}
		})
	}
}

// TestHalfFailedPromptIsMeasured checks that a prompt with half its calls
// successful is still compared.
func TestHalfFailedPromptIsMeasured(t *testing.T) {
	run := makeRun("s", binarySamples("p", "a", 2, 2))
	run.Errors = []promptcanary.CallError{{PromptID: "a", Sample: 2, Message: "timeout"}, {PromptID: "a", Sample: 3, Message: "timeout"}}
	rep, err := Compare(makeBaseline("s", binarySamples("p", "a", 30, 30)), &run, fixedOpts())
	if err != nil {
		t.Fatal(err)
	}
	if got := findComparison(rep, "p", "a").Status; got != promptcanary.StatusStable {
		t.Errorf("got status %s, want %s", got, promptcanary.StatusStable)
	}
}

func near(a, b, eps float64) bool { return a-b <= eps && b-a <= eps }
