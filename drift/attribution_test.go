package drift

import (
	"math"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
)

// pair is a comparison of probe p on prompt "q1" with pass counts.
func pair(p string, status promptcanary.Status, bp, bn, cp, cn int) promptcanary.Comparison {
	return promptcanary.Comparison{ProbeID: p, PromptID: "q1", Status: status,
		Baseline: promptcanary.SampleStats{N: bn, Passes: bp}, Current: promptcanary.SampleStats{N: cn, Passes: cp},
		Regression: status == promptcanary.StatusRegression}
}

func report(drift bool, cs ...promptcanary.Comparison) *promptcanary.DriftReport {
	return &promptcanary.DriftReport{HasDrift: drift, Comparisons: cs}
}

// withSignals gives d a model identity test that rejected and, when
// economics is not "", an economic summary.
func withSignals(d *promptcanary.DriftReport, economics string) *promptcanary.DriftReport {
	if economics != "" {
		d.Economics = &promptcanary.Economics{Summary: economics}
		return d
	}
	d.Identity = &promptcanary.IdentityTest{Verdict: promptcanary.IdentityDifferent, MMD: 0.25, P: 0.001}
	return d
}

func TestAttribute(t *testing.T) {
	regressed := pair("judge", promptcanary.StatusRegression, 10, 10, 0, 10)
	fp := promptcanary.ChangeSignal{Kind: "system_fingerprint", Flagged: true, Detail: `system fingerprint changed: baseline "fp_a", now also "fp_b"`}
	held := report(false, pair("judge", promptcanary.StatusStable, 10, 10, 10, 10))
	moved := report(true, pair("judge", promptcanary.StatusRegression, 10, 10, 1, 10))
	tests := []struct {
		name  string
		in    AttributionInput
		cause string
		want  string // a substring of the evidence
	}{
		{"noise, nothing moved", AttributionInput{Report: report(false, pair("a", promptcanary.StatusStable, 10, 10, 10, 10))},
			promptcanary.CauseNoise, "nothing moved"},
		{"noise names the largest move", AttributionInput{Report: report(false, pair("a", promptcanary.StatusStable, 10, 10, 9, 10), pair("b", promptcanary.StatusStable, 10, 10, 7, 10))},
			promptcanary.CauseNoise, "largest move: b/q1 10/10 → 7/10 passed (−30.0 pts), within what the test allows"},
		{"noise names the identity test's rejection", AttributionInput{Report: withSignals(report(false, pair("a", promptcanary.StatusStable, 10, 10, 10, 10)), "")},
			promptcanary.CauseNoise, "nothing moved: every compared pair scored as in the baseline; but the answers no longer look like the same model (model identity test: MMD² 0.2500, p = 0.0010)"},
		{"noise names an economic change", AttributionInput{Report: withSignals(report(false, pair("a", promptcanary.StatusStable, 10, 10, 10, 10)), "answers are 40% longer")},
			promptcanary.CauseNoise, "; but answers are 40% longer"},
		{"nothing compared", AttributionInput{Report: report(false)}, "", ""},
		{"suite without drift", AttributionInput{Report: report(false, pair("a", promptcanary.StatusStale, 1, 1, 0, 1)), Stale: []PromptChange{{"q1", "0123456789abcdef", "fedcba9876543210"}}},
			promptcanary.CauseSuite, "prompt q1 changed since the baseline (configuration hash 0123456789ab → fedcba987654"},
		{"added probe", AttributionInput{Report: report(false, pair("new", promptcanary.StatusAdded, 0, 0, 1, 1))},
			promptcanary.CauseSuite, "1 pair added since the baseline (probes new)"},
		{"judge", AttributionInput{Report: report(true, regressed), Served: []promptcanary.ChangeSignal{fp},
			Judge: &JudgeRecheck{Pairs: []JudgedPair{{Key: "judge/q1", Answers: 10, Stored: 10, Again: 0, Current: regressed.Current, SameAnswers: true}}}},
			promptcanary.CauseJudge, "the current run gave the baseline's answers"},
		{"judge as before falls through", AttributionInput{Report: report(true, regressed), Served: []promptcanary.ChangeSignal{fp},
			Judge: &JudgeRecheck{Pairs: []JudgedPair{{Key: "judge/q1", Answers: 10, Stored: 10, Again: 10, Current: regressed.Current}}}},
			promptcanary.CauseProvider, "judge re-run: judge/q1"},
		{"fingerprint", AttributionInput{Report: report(true, regressed), Served: []promptcanary.ChangeSignal{fp}},
			promptcanary.CauseProvider, "fp_b"},
		{"unknown", AttributionInput{Report: report(true, regressed)}, promptcanary.CauseUnknown, "1 pair regressed"},
		{"unknown, groups only", AttributionInput{Report: report(true, pair("a", promptcanary.StatusStable, 10, 10, 8, 10))}, promptcanary.CauseUnknown, "groups of pairs (a probe, a category or the suite) regressed together"},
		{"control held", AttributionInput{Report: report(true, regressed), Control: &ControlArm{"sim/pinned", held}},
			promptcanary.CauseProvider, "the control sim/pinned held on 1 pair"},
		{"control held before an app", AttributionInput{Report: report(true, regressed), App: true, Control: &ControlArm{"sim/raw", held}},
			promptcanary.CauseApp, "difference in differences −90.9 pts [−115.5, −66.3]"},
		{"a control that measured none of the regressed pairs is no evidence",
			AttributionInput{Report: report(true, regressed), Control: &ControlArm{"sim/pinned", report(false, pair("other", promptcanary.StatusStable, 10, 10, 10, 10))}},
			promptcanary.CauseUnknown, "the control did not measure this pair"},
		{"control moved too", AttributionInput{Report: report(true, regressed), Served: []promptcanary.ChangeSignal{fp}, Control: &ControlArm{"sim/pinned", moved}},
			promptcanary.CauseProviderWide, "the control regressed too"},
		{"suite is also named under drift", AttributionInput{Report: report(true, regressed, pair("a", promptcanary.StatusStale, 1, 1, 0, 1)), Stale: []PromptChange{{"q1", "aa", "bb"}}},
			promptcanary.CauseUnknown, "also: prompt q1 changed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := Attribute(tc.in)
			if tc.cause == "" {
				if a != nil {
					t.Fatalf("got %+v, want nil", a)
				}
				return
			}
			if a == nil || a.Cause != tc.cause {
				t.Fatalf("got %+v, want cause %s", a, tc.cause)
			}
			if !strings.Contains(a.Line(), tc.want) {
				t.Errorf("got %q, want it to hold %q", a.Line(), tc.want)
			}
		})
	}
}

// TestDifferenceInDifferences checks the adjusted Wald contrast against
// the formula worked by hand.
func TestDifferenceInDifferences(t *testing.T) {
	s := func(p, n int) promptcanary.SampleStats { return promptcanary.SampleStats{N: n, Passes: p} }
	// Target 10/10 → 0/10, control 10/10 → 10/10: p̃ = 10.5/11 and 0.5/11.
	hi, lo := 10.5/11, 0.5/11
	d := (lo - hi) - 0
	se := math.Sqrt(3*hi*(1-hi)/11 + lo*(1-lo)/11)
	got := DifferenceInDifferences(s(10, 10), s(0, 10), s(10, 10), s(10, 10))
	if math.Abs(got.Effect-d) > 1e-12 || math.Abs(got.Upper-(d+z95*se)) > 1e-12 {
		t.Errorf("got %+v, want effect %v, upper %v", got, d, d+z95*se)
	}
	if !got.Differs() || got.P > 1e-6 {
		t.Errorf("got p=%v, differs %v; want a difference", got.P, got.Differs())
	}
	// Both arms 10/10 → 0/10: no difference, p = 1.
	same := DifferenceInDifferences(s(10, 10), s(0, 10), s(10, 10), s(0, 10))
	if same.Differs() || same.Effect != 0 || same.P != 1 {
		t.Errorf("got %+v, want no difference", same)
	}
	// One sample a side cannot tell anything.
	if one := DifferenceInDifferences(s(1, 1), s(0, 1), s(1, 1), s(1, 1)); one.Differs() {
		t.Errorf("got %+v, want no difference from one sample", one)
	}
}
