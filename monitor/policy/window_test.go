package policy

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/drift"
)

// spreadRuns are reference runs whose rates spread beyond sampling.
func spreadRuns(n int) []drift.RunRate {
	out := make([]drift.RunRate, n)
	for i := range out {
		out[i] = drift.RunRate{Rate: 0.90 + 0.02*float64(i%3), Var: 0.0001}
	}
	return out
}

// One run below the spread opens a window, a good run does not close it
// unconfirmed at once, and a window past Runs later runs closes; the mean
// of runs in a row below the reference confirms.
func TestWindow(t *testing.T) {
	w := NewWindow(spreadRuns(6))
	if !w.Known() {
		t.Fatal("6 spread runs: the rule does not apply")
	}
	low := drift.RunRate{Rate: 0.80, Var: 0.0001}
	if c, tt := w.Observe(low); c || w.Open() != 1 || !(tt.P < DefaultWindowAlpha) {
		t.Fatalf("a low run: confirmed %v, open %d, p %g; want a window opened", c, w.Open(), tt.P)
	}
	good := drift.RunRate{Rate: 0.92, Var: 0.0001}
	for i := range DefaultWindowRuns {
		if c, _ := w.Observe(good); c {
			t.Fatalf("good run %d confirmed the window", i+1)
		}
	}
	if w.Open() != 0 {
		t.Fatalf("after %d later runs the window holds %d runs, want it closed", DefaultWindowRuns, w.Open())
	}
	lower := drift.RunRate{Rate: 0.70, Var: 0.0001}
	w.Observe(lower)
	c, tt := w.Observe(lower)
	if !c || tt.N != 2 || !(tt.P < DefaultWindowAlphaW) || w.Open() != 0 {
		t.Fatalf("two low runs: confirmed %v, n %d, p %g, open %d; want confirmed over 2 runs", c, tt.N, tt.P, w.Open())
	}
}

// Step observes a run while the rule applies and, while it does not,
// closes the window and says so.
func TestWindowStep(t *testing.T) {
	w := NewWindow(spreadRuns(6))
	low := drift.RunRate{Rate: 0.80, Var: 0.0001}
	if c, tt, known := w.Step(low); c || !known || w.Open() != 1 || tt.N != 1 {
		t.Fatalf("a low run: confirmed %v, known %v, open %d, n %d; want a window of 1 run opened", c, known, w.Open(), tt.N)
	}
	few := w.Over(spreadRuns(5))
	few.Step(low)
	if _, _, known := few.Step(low); known || few.Open() != 0 {
		t.Errorf("5 reference runs: known %v, open %d; want not known and no window", known, few.Open())
	}
}

// The rule applies only with MinRuns reference runs that spread beyond
// sampling; learned runs join the reference, the oldest leaving past Learn.
func TestWindowKnownAndLearn(t *testing.T) {
	if w := NewWindow(spreadRuns(5)); w.Known() {
		t.Error("5 reference runs: the rule applies, want not before 6")
	}
	flat := make([]drift.RunRate, 8)
	for i := range flat {
		flat[i] = drift.RunRate{Rate: 0.9, Var: 0.001}
	}
	if w := NewWindow(flat); w.Known() {
		t.Error("runs with no spread beyond sampling (τ² = 0): the rule applies")
	}
	w := NewWindow(spreadRuns(5))
	w.LearnRun(drift.RunRate{Rate: 0.95, Var: 0.0001})
	if !w.Known() || len(w.Reference()) != 6 {
		t.Errorf("5 baseline runs and 1 learned: known %v, %d reference runs", w.Known(), len(w.Reference()))
	}
	for i := range DefaultWindowLearn + 5 {
		w.LearnRun(drift.RunRate{Rate: float64(i) / 1000})
	}
	ref := w.Reference()
	if w.Learned() != DefaultWindowLearn || ref[5].Rate != 0.005 {
		t.Errorf("learned %d, oldest learned %g; want %d, the last ones", w.Learned(), ref[5].Rate, DefaultWindowLearn)
	}
}

// SuiteOff replaces the suite unit's verdict and clears the other pooled
// units unless told to keep them; pairs are untouched.
func TestSuiteOff(t *testing.T) {
	rep := &promptcanary.DriftReport{Statistics: &promptcanary.DriftStatistics{Units: []promptcanary.TestedUnit{
		{Kind: promptcanary.UnitSuite, Rejected: true},
		{Kind: promptcanary.UnitProbe, Rejected: true, SameTestAs: "suite"},
		{Kind: promptcanary.UnitPair, Rejected: true},
	}}}
	kept := SuiteOff(rep, true, false).Statistics.Units
	if kept[0].Rejected || !kept[1].Rejected || !kept[2].Rejected {
		t.Errorf("keepOthers: got %+v", kept)
	}
	cleared := SuiteOff(rep, false, true).Statistics.Units
	if !cleared[0].Rejected || cleared[1].Rejected || cleared[1].SameTestAs != "" || !cleared[2].Rejected {
		t.Errorf("clear others: got %+v", cleared)
	}
	if !rep.Statistics.Units[0].Rejected || !FlagsAny(rep) {
		t.Error("SuiteOff changed its input")
	}
}

// A pooled baseline's runs are split by its Runs record.
func TestBaselineRunRates(t *testing.T) {
	var rs []promptcanary.ProbeResult
	for smp := range 4 {
		rs = append(rs, promptcanary.ProbeResult{ProbeID: "p", PromptID: "a", Sample: smp, Passed: smp != 3})
	}
	b := &promptcanary.Baseline{RunResult: promptcanary.Run{ProbeResults: rs},
		Runs: []promptcanary.BaselineRun{{FirstSample: 0, Samples: 2}, {FirstSample: 2, Samples: 2}}}
	runs, pairP := BaselineRunRates(b)
	if len(runs) != 2 || runs[0].Rate != 1 || runs[1].Rate != 0.5 || pairP[promptcanary.PairKey{ProbeID: "p", PromptID: "a"}] != 0.75 {
		t.Errorf("got runs %+v, pair rates %v; want 1 and 0.5, 0.75", runs, pairP)
	}
	b.Runs = nil
	if runs, _ := BaselineRunRates(b); runs != nil {
		t.Errorf("a baseline of one run: got runs %+v, want none", runs)
	}
}

// pairsReport is a report over nine pairs that fell by moved of 30
// answers each (a bad hour, or none with 0) and the flagged pass-count
// pairs given, each with its current passes of 30, p-value and q-value.
func pairsReport(moved int, flagged ...flaggedPair) *promptcanary.DriftReport {
	side := func(passes int) promptcanary.SampleStats { return promptcanary.SampleStats{N: 30, Passes: passes} }
	cmp := func(prompt string, cur int) promptcanary.Comparison {
		return promptcanary.Comparison{ProbeID: "json", PromptID: prompt, Status: promptcanary.StatusStable, Baseline: side(30), Current: side(cur)}
	}
	rep := &promptcanary.DriftReport{Statistics: &promptcanary.DriftStatistics{Alpha: 0.05}}
	for _, f := range flagged {
		rep.Comparisons = append(rep.Comparisons, cmp(f.prompt, f.passes))
		rep.Statistics.Units = append(rep.Statistics.Units, promptcanary.TestedUnit{Kind: promptcanary.UnitPair,
			Key: "json/" + f.prompt, Test: drift.FisherTest, P: f.p, Q: f.q, Rejected: true})
	}
	for i := range 9 {
		rep.Comparisons = append(rep.Comparisons, cmp(fmt.Sprint("p", i), 30-moved))
	}
	return rep
}

type flaggedPair struct {
	prompt string
	passes int
	p, q   float64
}

// offsetReport has json/a, which fell to 20 of 30, and json/b, which
// collapsed to 10, among nine pairs that fell by moved; json/a has a
// flagged score unit too.
func offsetReport(moved int) *promptcanary.DriftReport {
	rep := pairsReport(moved, flaggedPair{"a", 20, 4e-4, 4e-3}, flaggedPair{"b", 10, 1e-8, 1e-7})
	rep.Statistics.Units = append(rep.Statistics.Units,
		promptcanary.TestedUnit{Kind: promptcanary.UnitPair, Key: "json/a", Test: "mann_whitney_exact", P: 0.001, Q: 0.02, Rejected: true})
	return rep
}

// rejected lists whether each tested unit of r is rejected.
func rejected(r *promptcanary.DriftReport) (out []bool) {
	for _, u := range r.Statistics.Units {
		out = append(out, u.Rejected)
	}
	return out
}

// In a bad hour (nine pairs −10 points) a pair that fell not much more is
// no longer flagged by its pass counts; a collapsed pair and a score unit
// are. Without the bad hour both pairs stay, the collapse of one not
// hiding the fall of the other. The report given is not changed.
func TestBeyondOffset(t *testing.T) {
	rep := offsetReport(3)
	if got := rejected(BeyondOffset(rep)); !slices.Equal(got, []bool{false, true, true}) {
		t.Errorf("every pair −10 points: rejected %v, want [false true true]", got)
	}
	if got := rejected(rep); !got[0] {
		t.Error("BeyondOffset changed the report it was given")
	}
	if got := rejected(BeyondOffset(offsetReport(0))); !slices.Equal(got, []bool{true, true, true}) {
		t.Errorf("no bad hour: rejected %v, want all", got)
	}
	if o, ok := SharedOffset(rep); !ok || math.Abs(o-(-0.9-1.0/3-2.0/3)/11) > 1e-9 {
		t.Errorf("shared offset %v %v, want the mean change of the 11 pairs", o, ok)
	}
}

// The second test's level is the one the rejection used, never above α:
// a pair rejected with q < p (a discrete step can give one) is judged at
// α. Here its test beyond 10 points gives p = 0.080, between α = 0.05
// and p·α/q = 0.1.
func TestBeyondOffsetLevelAtMostAlpha(t *testing.T) {
	rep := pairsReport(3, flaggedPair{"c", 24, 0.06, 0.03})
	if got := rejected(BeyondOffset(rep)); got[0] {
		t.Error("a pair whose second test gives p = 0.080 is still flagged at α = 0.05")
	}
}

// A confirmation run judged by the window: the suite by the window's
// level, other pooled units cleared, pairs beyond the run's offset.
func TestWindowConfirmation(t *testing.T) {
	w := NewWindow(spreadRuns(6))
	rep := offsetReport(3)
	rep.Statistics.Units = append(rep.Statistics.Units,
		promptcanary.TestedUnit{Kind: promptcanary.UnitProbe, Key: "json", Rejected: true},
		promptcanary.TestedUnit{Kind: promptcanary.UnitSuite, Key: "s", Rejected: false})
	got := rejected(w.Confirmation(rep, drift.RunRate{Rate: 0.86, Var: 0.0001}))
	if !slices.Equal(got, []bool{false, true, true, false, false}) {
		t.Errorf("a run 6 points below: rejected %v, want json/b and the score unit kept; json/a, the probe and the suite not", got)
	}
	if got = rejected(w.Confirmation(rep, drift.RunRate{Rate: 0.50, Var: 0.0001})); !got[4] {
		t.Errorf("a run 42 points below: the suite unit not flagged (%v)", got)
	}
}

// probesReport is a report of two probes with every pair of category
// "format": json's nine pairs fell by jsonMoved of 30 answers, tone's four
// by toneMoved. Its units: both probes' stratified tests, a category
// holding every pair, json/p0's Fisher test, a score unit of tone, the
// suite and a category whose test repeats json's, all rejected.
func probesReport(jsonMoved, toneMoved int) *promptcanary.DriftReport {
	rep := &promptcanary.DriftReport{Statistics: &promptcanary.DriftStatistics{Alpha: 0.05}}
	add := func(probe string, n, moved int) {
		for i := range n {
			rep.Comparisons = append(rep.Comparisons, promptcanary.Comparison{ProbeID: probe, PromptID: fmt.Sprint("p", i),
				Category: promptcanary.CategoryFormat, Status: promptcanary.StatusStable,
				Baseline: promptcanary.SampleStats{N: 30, Passes: 30}, Current: promptcanary.SampleStats{N: 30, Passes: 30 - moved}})
		}
	}
	add("json", 9, jsonMoved)
	add("tone", 4, toneMoved)
	unit := func(kind, key, test string) promptcanary.TestedUnit {
		return promptcanary.TestedUnit{Kind: kind, Key: key, Test: test, P: 1e-6, Q: 1e-5, Rejected: true}
	}
	rep.Statistics.Units = []promptcanary.TestedUnit{
		unit(promptcanary.UnitProbe, "json", drift.StratifiedTest),
		unit(promptcanary.UnitProbe, "tone", drift.StratifiedTest),
		unit(promptcanary.UnitCategory, string(promptcanary.CategoryFormat), drift.StratifiedTest),
		unit(promptcanary.UnitPair, "json/p0", drift.FisherTest),
		unit(promptcanary.UnitProbe, "tone", "mann_whitney_permutation"),
		unit(promptcanary.UnitSuite, "s", "stratified_permutation_exact"),
		unit(promptcanary.UnitCategory, "reasoning", drift.StratifiedTest),
	}
	rep.Statistics.Units[6].SameTestAs = "probe json"
	return rep
}

// Before a confirmation, a probe flagged in a bad hour is kept only when
// its pairs fell significantly more than the others; a category that
// holds every pair is the suite and, with the suite, left to the window;
// a unit that repeats another's test takes its verdict; pairs and score
// units keep theirs. The report is not changed.
func TestFirstRun(t *testing.T) {
	first := func(rep *promptcanary.DriftReport) *promptcanary.DriftReport {
		out, byOffset := FirstRun(rep)
		if want := slices.ContainsFunc(out.Statistics.Units[:2], func(u promptcanary.TestedUnit) bool { return !u.Rejected }); byOffset != want {
			t.Errorf("byOffset %v, want %v: whether a probe was cleared by its offset", byOffset, want)
		}
		return out
	}
	rep := probesReport(3, 15)
	if got := rejected(first(rep)); !slices.Equal(got, []bool{false, true, false, true, true, false, false}) {
		t.Errorf("json −10, tone −50 points: rejected %v, want tone's probe, the pair and the score unit", got)
	}
	if got := rejected(rep); slices.Contains(got, false) {
		t.Errorf("FirstRun changed the report it was given: %v", got)
	}
	if got := rejected(first(probesReport(3, 3))); !slices.Equal(got, []bool{false, false, false, true, true, false, false}) {
		t.Errorf("every pair −10 points: rejected %v, want no probe", got)
	}
	if got := rejected(first(probesReport(3, 0))); !slices.Equal(got, []bool{true, false, false, true, true, false, true}) {
		t.Errorf("json −10, tone steady: rejected %v, want json's probe (the others did not fall) and its repeat, not tone's", got)
	}
}

// A sliding window (the control's) tests the mean of each of the last
// SlidingFrom to Runs+1 runs at AlphaW over the number of those lengths:
// fewer runs never confirm, three low runs in a row do, good runs between
// low ones do not block the next low ones, and after a confirmation it
// starts afresh.
func TestSlidingWindow(t *testing.T) {
	learned := func() *Window {
		w := NewControlWindow()
		for i := range DefaultWindowMinRuns * 4 {
			w.LearnRun(drift.RunRate{Rate: 0.01 * float64(i%3-1)}) // −1, 0, +1 points
		}
		return w
	}
	if NewControlWindow().Known() {
		t.Fatal("no learned run: the rule applies")
	}
	w := learned()
	if !w.Known() {
		t.Fatal("24 learned differences with a spread: the rule does not apply")
	}
	lengths := float64(DefaultWindowRuns + 2 - SlidingFrom)
	far := drift.RunRate{Rate: -0.2}
	for i := range SlidingFrom - 1 {
		if c, tt := w.Observe(far); c || tt.N != 0 || w.Open() != i+1 {
			t.Fatalf("run %d 20 points below: confirmed %v, n %d, holding %d; want no test of fewer than %d runs", i+1, c, tt.N, w.Open(), SlidingFrom)
		}
	}
	if c, tt := w.Observe(far); !c || tt.N != SlidingFrom || !(tt.P < DefaultControlAlphaW/lengths) || w.Open() != SlidingFrom {
		t.Fatalf("%d runs 20 points below: confirmed %v, n %d, p %g, holding %d; want confirmed", SlidingFrom, c, tt.N, tt.P, w.Open())
	}
	// While the fall lasts every run confirms again.
	if c, _ := w.Observe(far); !c {
		t.Fatal("a fourth run 20 points below: not confirmed, want the fall confirmed again")
	}
	w = learned()
	// Low, then good runs, then low runs: the good runs close nothing
	// that blocks the last low ones from confirming.
	low := drift.RunRate{Rate: -0.05}
	for i, o := range []drift.RunRate{low, {Rate: 0.04}, {Rate: 0.04}, {Rate: 0.04}, low, low} {
		if c, _ := w.Observe(o); c {
			t.Fatalf("run %d confirmed", i+1)
		}
	}
	if c, tt := w.Observe(low); !c || tt.N != SlidingFrom {
		t.Fatalf("%d low runs after good ones: confirmed %v, n %d; want confirmed", SlidingFrom, c, tt.N)
	}
	// A clean run is learned once it has left the runs the window tests;
	// the clean runs of a mean that confirms are not learned.
	v := learned()
	before := v.Learned()
	for range DefaultWindowRuns + 1 {
		v.Observe(drift.RunRate{})
		v.LearnRun(drift.RunRate{})
	}
	if v.Learned() != before+DefaultWindowRuns+1 {
		t.Errorf("4 clean runs after 4 pending: learned %d, want %d (the pending ones)", v.Learned(), before+DefaultWindowRuns+1)
	}
	before = v.Learned()
	for range SlidingFrom - 1 {
		v.Observe(far)
		v.LearnRun(far) // clean so far
	}
	if c, _ := v.Observe(far); !c {
		t.Fatal("three runs 20 points below: not confirmed")
	}
	for range DefaultWindowRuns + 1 {
		v.LearnRun(drift.RunRate{})
	}
	if got := v.Learned() - before; got != 0 {
		ref := v.Reference()
		t.Errorf("the runs of the confirmed mean: %d learned (last %v), want none", got, ref[len(ref)-1])
	}
	// The level is AlphaW over the lengths tested: runs at p between
	// AlphaW/lengths and AlphaW do not confirm.
	between := false
	for _, rate := range []float64{-0.01, -0.02, -0.022, -0.023, -0.024, -0.025, -0.026, -0.027, -0.03, -0.04} {
		v := learned()
		var c bool
		var tt drift.RunLevelTest
		for range SlidingFrom {
			c, tt = v.Observe(drift.RunRate{Rate: rate})
		}
		if want := tt.P < DefaultControlAlphaW/lengths; c != want {
			t.Errorf("%d runs at %g: p %g, confirmed %v, want %v", SlidingFrom, rate, tt.P, c, want)
		}
		between = between || (tt.P > DefaultControlAlphaW/lengths && tt.P < DefaultControlAlphaW)
	}
	if !between {
		t.Error("no case with p between AlphaW/lengths and AlphaW: the test does not tell the two levels apart")
	}
}

// A repeat takes the verdict of the unit it repeats in its own family: a
// pair has a pass-count test and, for a continuous probe, a score test of
// the same name, and a repeated score test does not follow the counts'.
func TestFollowRepeatedFamily(t *testing.T) {
	units := []promptcanary.TestedUnit{
		{Kind: promptcanary.UnitPair, Key: "p/a", Test: drift.FisherTest, Rejected: false},
		{Kind: promptcanary.UnitPair, Key: "p/a", Test: "mann_whitney_exact", Rejected: true},
		{Kind: promptcanary.UnitPair, Key: "p/b", Test: "mann_whitney_exact", Rejected: true, SameTestAs: "pair p/a"},
		{Kind: promptcanary.UnitPair, Key: "p/b", Test: drift.FisherTest, Rejected: true, SameTestAs: "pair p/a"},
	}
	followRepeated(units)
	if !units[2].Rejected || units[3].Rejected {
		t.Errorf("repeats: score %v, counts %v; want the score repeat kept with its score test, the counts repeat cleared with its counts test", units[2].Rejected, units[3].Rejected)
	}
}
