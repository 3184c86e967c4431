package drift

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
)

// suiteResults builds a suite of probes × prompts where every pair passes
// passes[probe][prompt] of n samples; the samples of one prompt are shared
// by its probes.
func suiteResults(probes, prompts int, n int, passes func(probe, prompt int) int) []res {
	var out []res
	for pr := 0; pr < probes; pr++ {
		for pm := 0; pm < prompts; pm++ {
			out = append(out, binarySamples(fmt.Sprintf("probe%d", pr), fmt.Sprintf("prompt%d", pm), passes(pr, pm), n)...)
		}
	}
	return out
}

// compareBinary compares pair p/a of prompt set s (fixedOpts): a baseline
// of baseN binary samples of which basePasses pass with a run of curN of
// which curPasses pass.
func compareBinary(t *testing.T, basePasses, baseN, curPasses, curN int) *promptcanary.DriftReport {
	t.Helper()
	run := makeRun("s", binarySamples("p", "a", curPasses, curN))
	rep, err := Compare(makeBaseline("s", binarySamples("p", "a", basePasses, baseN)), &run, fixedOpts())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestStatisticalEvidenceLine(t *testing.T) {
	rep := compareBinary(t, 29, 30, 5, 10)
	c := findComparison(rep, "p", "a")
	// A lone pair is flagged at p ≤ 0.0099 (the discrete step's 1/(1 − F)
	// factor), so 29/30 → 6/10 (p = 0.00996) would not be; 5/10 is.
	want := "29/30 (96.7% [83.3–99.4]) → 5/10 (50.0% [23.7–76.3]); Δ −46.7 pts [−73.1, −17.1]; Fisher p=0.002, q=0.002"
	if c.Evidence != want {
		t.Errorf("got evidence %q, want %q", c.Evidence, want)
	}
	if rep.Method != MethodStatistical || !c.Regression || c.Status != promptcanary.StatusRegression {
		t.Errorf("got method %s regression %v status %s, want statistical true regression", rep.Method, c.Regression, c.Status)
	}
	// The evidence shows the two-sided 95% interval (upper end −17.1 pts),
	// but severity grades the one-sided 95% bound, −21.4 pts: medium.
	if c.Severity != promptcanary.SeverityMedium || rep.Severity != promptcanary.SeverityMedium {
		t.Errorf("got severity %s/%s, want medium", c.Severity, rep.Severity)
	}
	if c.Baseline != (promptcanary.SampleStats{N: 30, Passes: 29, MeanScore: 29.0 / 30}) || !c.BaselinePassed || !c.CurrentPassed {
		t.Errorf("got baseline stats %+v passed %v/%v, want 30/29 and both passing", c.Baseline, c.BaselinePassed, c.CurrentPassed)
	}
}

func TestSeverityUsesOneSidedBound(t *testing.T) {
	tests := []struct {
		name           string
		base, cur      int // passes of 30 and of 20
		wantTwoSidedHi float64
		wantBound      float64
		want           promptcanary.Severity
	}{
		// Two-sided upper −46.1 pts would be high; the one-sided bound
		// −50.7 pts is critical.
		{name: "critical only one-sided", base: 29, cur: 5, wantTwoSidedHi: -0.4605, wantBound: -0.5073, want: promptcanary.SeverityCritical},
		{name: "critical both ways", base: 30, cur: 1, wantTwoSidedHi: -0.7320, wantBound: -0.7822, want: promptcanary.SeverityCritical},
		{name: "high", base: 28, cur: 8, wantTwoSidedHi: -0.2744, wantBound: -0.3180, want: promptcanary.SeverityHigh},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := compareBinary(t, tc.base, 30, tc.cur, 20)
			var u *promptcanary.TestedUnit
			for i := range rep.Statistics.Units {
				if rep.Statistics.Units[i].Test == FisherTest {
					u = &rep.Statistics.Units[i]
				}
			}
			if u == nil {
				t.Fatalf("got no Fisher unit in %+v, want one", rep.Statistics.Units)
			}
			if math.Abs(u.Interval.Upper-tc.wantTwoSidedHi) > 1e-4 || math.Abs(u.EffectBound-tc.wantBound) > 1e-4 {
				t.Errorf("got two-sided upper %.4f bound %.4f, want %.4f and %.4f", u.Interval.Upper, u.EffectBound, tc.wantTwoSidedHi, tc.wantBound)
			}
			if !u.Rejected || u.Severity != tc.want || rep.Severity != tc.want {
				t.Errorf("got rejected %v severity %s/%s, want true %s", u.Rejected, u.Severity, rep.Severity, tc.want)
			}
		})
	}
}

func TestStatisticalVerdicts(t *testing.T) {
	const probes, prompts = 4, 6
	flaky := func(pr, pm int) int { return 27 - (pr+pm)%3 } // 25..27 of 30
	tests := []struct {
		name       string
		cur        func(pr, pm int) int // passes of 20
		wantDrift  bool
		wantPair   string // a pair that must be flagged
		wantUnit   string // a broad unit kind that must be rejected
		wantImprov bool
	}{
		{name: "same distribution", cur: func(pr, pm int) int { return 18 - (pr+pm)%3 }},
		{name: "improvement only", cur: func(pr, pm int) int { return 20 }},
		{name: "one pair breaks", cur: func(pr, pm int) int {
			if pr == 1 && pm == 2 {
				return 1
			}
			return 18 - (pr+pm)%3
		}, wantDrift: true, wantPair: "probe1/prompt2"},
		{name: "one probe drops everywhere", cur: func(pr, pm int) int {
			if pr == 3 {
				return 13 - (pr+pm)%3
			}
			return 18 - (pr+pm)%3
		}, wantDrift: true, wantUnit: promptcanary.UnitProbe},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run := makeRun("s", suiteResults(probes, prompts, 20, tc.cur))
			rep, err := Compare(makeBaseline("s", suiteResults(probes, prompts, 30, flaky)), &run, fixedOpts())
			if err != nil {
				t.Fatal(err)
			}
			if rep.HasDrift != tc.wantDrift {
				t.Fatalf("got has_drift %v (summary %q), want %v", rep.HasDrift, rep.Summary, tc.wantDrift)
			}
			if !tc.wantDrift && rep.Severity != promptcanary.SeverityNone {
				t.Errorf("got severity %s, want none", rep.Severity)
			}
			if tc.wantPair != "" {
				pr, pm, _ := strings.Cut(tc.wantPair, "/")
				c := findComparison(rep, pr, pm)
				if !c.Regression || c.Severity != promptcanary.SeverityCritical || !strings.Contains(c.Evidence, "Fisher p=") {
					t.Errorf("got regression %v severity %s evidence %q, want a critical Fisher regression", c.Regression, c.Severity, c.Evidence)
				}
				if n := len(rep.Regressions()); n != 1 {
					t.Errorf("got %d flagged pairs, want 1", n)
				}
			}
			if tc.wantUnit != "" {
				found := false
				for _, u := range rep.Statistics.Units {
					if u.Kind == tc.wantUnit && u.Rejected {
						found = true
						if !strings.Contains(u.Evidence, "stratified exact p=") {
							t.Errorf("got evidence %q, want a stratified exact line", u.Evidence)
						}
					}
				}
				if !found {
					t.Errorf("got no rejected %s unit, want one (summary %q)", tc.wantUnit, rep.Summary)
				}
				if !strings.Contains(rep.Summary, "worse across "+tc.wantUnit) {
					t.Errorf("got summary %q, want it to name the %s", rep.Summary, tc.wantUnit)
				}
			}
			if got := rep.Count(promptcanary.StatusImprovement) > 0; got != tc.wantImprov {
				t.Errorf("got improvements %v, want %v", got, tc.wantImprov)
			}
			if !tc.wantDrift {
				c := findComparison(rep, "probe0", "prompt0")
				if !strings.HasPrefix(c.Evidence, "no drop > ") || !strings.HasSuffix(c.Evidence, "pts detectable (n 30/20)") {
					t.Errorf("got clean evidence %q, want the minimum detectable drop", c.Evidence)
				}
				if rep.Statistics.MinDetectableDrop <= 0 || rep.Statistics.MinDetectableDrop >= 0.2 {
					t.Errorf("got suite minimum detectable drop %v, want in (0, 0.2)", rep.Statistics.MinDetectableDrop)
				}
			}
		})
	}
}

// continuousSuite builds score samples around centre ± 0.05 for n samples.
func continuousSuite(rng *rand.Rand, prompts, n int, centre func(pm int) float64) []res {
	var out []res
	for pm := 0; pm < prompts; pm++ {
		scores := make([]float64, n)
		for i := range scores {
			scores[i] = min(1, max(0, centre(pm)+0.05*rng.NormFloat64()))
		}
		out = append(out, scoreSamples("judge", fmt.Sprintf("prompt%d", pm), scores...)...)
	}
	return out
}

func TestScoreOnlyShift(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	base := continuousSuite(rng, 4, 30, func(int) float64 { return 0.92 })
	tests := []struct {
		name     string
		centre   float64
		want     bool
		severity promptcanary.Severity
	}{
		{"shift of -0.15 still passing", 0.77, true, promptcanary.SeverityMedium},
		{"jitter of -0.02", 0.90, false, promptcanary.SeverityNone},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cur := continuousSuite(rng, 4, 20, func(pm int) float64 {
				if pm == 0 {
					return tc.centre
				}
				return 0.92
			})
			run := makeRun("s", cur)
			rep, err := Compare(makeBaseline("s", base), &run, fixedOpts())
			if err != nil {
				t.Fatal(err)
			}
			c := findComparison(rep, "judge", "prompt0")
			if c.Regression != tc.want || rep.Severity != tc.severity {
				t.Errorf("got regression %v severity %s (evidence %q), want %v %s", c.Regression, rep.Severity, c.Evidence, tc.want, tc.severity)
			}
			if tc.want && !strings.Contains(c.Evidence, "HL shift −0.1") {
				t.Errorf("got evidence %q, want the Hodges–Lehmann shift", c.Evidence)
			}
		})
	}
}

func TestStatisticalReproducible(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	base := continuousSuite(rng, 3, 30, func(int) float64 { return 0.85 })
	cur := continuousSuite(rng, 3, 20, func(pm int) float64 { return 0.8 })
	run := makeRun("s", cur)
	opts := fixedOpts()
	opts.Seed = 42
	a, err := Compare(makeBaseline("s", base), &run, opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Compare(makeBaseline("s", base), &run, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("got different reports for the same seed, want identical ones")
	}
	if a.Statistics.Seed != 42 || a.Statistics.Alpha != DefaultAlpha {
		t.Errorf("got seed %d alpha %v, want 42 %v", a.Statistics.Seed, a.Statistics.Alpha, DefaultAlpha)
	}
}

func TestImprovementStatus(t *testing.T) {
	rep := compareBinary(t, 10, 30, 20, 20)
	c := findComparison(rep, "p", "a")
	if c.Status != promptcanary.StatusImprovement || !c.Improvement || c.Regression || rep.HasDrift {
		t.Errorf("got status %s improvement %v regression %v drift %v, want an improvement and no drift", c.Status, c.Improvement, c.Regression, rep.HasDrift)
	}
}

func TestInsufficientEvidence(t *testing.T) {
	run := makeRun("s", binarySamples("p", "a", 0, 1))
	opts := fixedOpts()
	opts.Method = MethodStatistical
	rep, err := Compare(makeBaseline("s", binarySamples("p", "a", 30, 30)), &run, opts)
	if err != nil {
		t.Fatal(err)
	}
	if c := findComparison(rep, "p", "a"); c.Status != promptcanary.StatusInsufficient || c.Regression || rep.HasDrift {
		t.Errorf("got status %s regression %v drift %v, want insufficient_evidence false false", c.Status, c.Regression, rep.HasDrift)
	}
	// Auto falls back to the original rule with a single current sample.
	rep, err = Compare(makeBaseline("s", binarySamples("p", "a", 30, 30)), &run, fixedOpts())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Method != MethodSingleSample || !rep.HasDrift || rep.Notes[0] != singleSampleNote {
		t.Errorf("got method %s drift %v notes %q, want single_sample, drift and the one-sample note", rep.Method, rep.HasDrift, rep.Notes)
	}
}

func TestChangeSignals(t *testing.T) {
	base := makeBaseline("s", binarySamples("p", "a", 30, 30))
	run := makeRun("s", binarySamples("p", "a", 20, 20))
	for i := 0; i < 30; i++ {
		base.RunResult.LLMResponses = append(base.RunResult.LLMResponses, promptcanary.Response{PromptID: "a", Sample: i,
			Content: fmt.Sprintf("The capital of France is Paris. It has %d museums.", i%3), FinishReason: "stop", ServedModel: "m-1", CompletionTokens: 12})
	}
	for i := 0; i < 20; i++ {
		run.LLMResponses = append(run.LLMResponses, promptcanary.Response{PromptID: "a", Sample: i,
			Content: strings.Repeat("Paris, obviously, and here is a much longer answer about French geography. ", 4+i%2), FinishReason: "length", ServedModel: "m-2", CompletionTokens: 80})
	}
	rep, err := Compare(base, &run, fixedOpts())
	if err != nil {
		t.Fatal(err)
	}
	st := rep.Statistics
	flagged := map[string]bool{}
	for _, s := range st.Signals {
		flagged[s.Kind] = s.Flagged
	}
	for _, k := range []string{"response_length", "completion_tokens", "finish_reason", "token_f1", "chrf", "energy_distance", "model"} {
		if !flagged[k] {
			t.Errorf("got signal %s not flagged, want flagged (signals %+v)", k, st.Signals)
		}
	}
	if rep.HasDrift || rep.Severity != promptcanary.SeverityNone {
		t.Errorf("got drift %v severity %s from signals alone, want false none", rep.HasDrift, rep.Severity)
	}
	want := promptcanary.PromptNondeterminism{PromptID: "a", BaselineSamples: 30, BaselineDistinct: 3, CurrentSamples: 20, CurrentDistinct: 2}
	if len(st.Nondeterminism) != 1 || st.Nondeterminism[0] != want {
		t.Errorf("got nondeterminism %+v, want %+v", st.Nondeterminism, want)
	}
	opts := fixedOpts()
	opts.GateOnSignals = true
	rep, err = Compare(base, &run, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.HasDrift || rep.Severity != promptcanary.SeverityLow {
		t.Errorf("got drift %v severity %s with gating signals, want true low", rep.HasDrift, rep.Severity)
	}
}

func TestAcceptEarly(t *testing.T) {
	conv := func(rs []res) []promptcanary.ProbeResult { return makeRun("s", rs).ProbeResults }
	base := conv(append(binarySamples("x", "a", 27, 30), binarySamples("y", "a", 30, 30)...))
	tests := []struct {
		name string
		cur  []res
		want bool
	}{
		{"all fine", append(binarySamples("x", "a", 5, 5), binarySamples("y", "a", 5, 5)...), true},
		{"binary mean within 0.03", append(binarySamples("x", "a", 87, 100), binarySamples("y", "a", 20, 20)...), true},
		// A pass/fail probe's mean is its rate: only the rate margin applies.
		{"binary rate exactly 0.05 lower", append(binarySamples("x", "a", 17, 20), binarySamples("y", "a", 20, 20)...), true},
		{"binary rate 0.06 lower", append(binarySamples("x", "a", 84, 100), binarySamples("y", "a", 20, 20)...), false},
		{"rate 0.10 lower", append(binarySamples("x", "a", 16, 20), binarySamples("y", "a", 20, 20)...), false},
		{"one failure in five", append(binarySamples("x", "a", 5, 5), binarySamples("y", "a", 4, 5)...), false},
		{"pair missing", binarySamples("x", "a", 5, 5), false},
		{"new pair ignored", append(append(binarySamples("x", "a", 5, 5), binarySamples("y", "a", 5, 5)...), binarySamples("z", "a", 0, 5)...), true},
		{"no current results", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := AcceptEarly(base, conv(tc.cur)); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	// Mean score: a drop of 0.04 with unchanged passes is not clearly fine.
	sb := conv(scoreSamples("j", "a", 0.9, 0.9, 0.9, 0.9))
	if AcceptEarly(sb, conv(scoreSamples("j", "a", 0.86, 0.86))) {
		t.Errorf("got accept for a mean drop of 0.04, want no")
	}
	if !AcceptEarly(sb, conv(scoreSamples("j", "a", 0.88, 0.88))) {
		t.Errorf("got no accept for a mean drop of 0.02, want accept")
	}
}

func TestRepeatedUnitsTestedOnce(t *testing.T) {
	// Every pair always passes except probe1/prompt2, which fails 5 of 20
	// times: p = C(20,5)/C(50,5) ≈ 0.0073. Its probe and the suite run the
	// same test; counted three times, no unit could reach alpha/2.
	cur := func(pr, pm int) int {
		if pr == 1 && pm == 2 {
			return 15
		}
		return 20
	}
	run := makeRun("s", suiteResults(3, 4, 20, cur))
	rep, err := Compare(makeBaseline("s", suiteResults(3, 4, 30, func(int, int) int { return 30 })), &run, fixedOpts())
	if err != nil {
		t.Fatal(err)
	}
	if !rep.HasDrift {
		t.Fatalf("got no drift (summary %q), want the broken pair flagged", rep.Summary)
	}
	if got := rep.Statistics.Testable; got != 1 {
		t.Errorf("got %d testable units, want 1", got)
	}
	var pair promptcanary.TestedUnit
	for _, u := range rep.Statistics.Units {
		if u.Kind == promptcanary.UnitPair && u.Key == "probe1/prompt2" && u.Test == FisherTest {
			pair = u
		}
	}
	want := map[string]string{"probe1": "pair probe1/prompt2", "s": "pair probe1/prompt2"}
	for _, u := range rep.Statistics.Units {
		w, ok := want[u.Key]
		if !ok {
			continue
		}
		delete(want, u.Key)
		if u.SameTestAs != w || !u.Rejected {
			t.Errorf("unit %s %s: got same_test_as %q rejected %v, want %q true", u.Kind, u.Key, u.SameTestAs, u.Rejected, w)
		}
		// Flagged by the pair's test, the unit shows that test's numbers:
		// its p, q, effect and interval, never its own p beside the
		// pair's q.
		if u.P != pair.P || u.MinP != pair.MinP || u.Q != pair.Q {
			t.Errorf("unit %s %s: got p %g, min p %g, q %g; want the pair's %g, %g, %g", u.Kind, u.Key, u.P, u.MinP, u.Q, pair.P, pair.MinP, pair.Q)
		}
		_, test, _ := strings.Cut(pair.TestEvidence, "; ")
		if wantEv := "; same test as pair probe1/prompt2: " + test; !strings.HasSuffix(u.Evidence, wantEv) || strings.Contains(u.Evidence, "stratified") {
			t.Errorf("unit %s %s: got evidence %q, want it to end %q", u.Kind, u.Key, u.Evidence, wantEv)
		}
	}
	if len(want) > 0 {
		t.Errorf("got no units %v, want them listed", want)
	}
}

// TestCleanRunWithoutFailuresIsSized covers a clean run where nothing failed
// on either side: the suite-wide drop cannot be sized from the data, so the
// report sizes it by the pairs' own tests instead of saying nothing.
func TestCleanRunWithoutFailuresIsSized(t *testing.T) {
	var base, cur []res
	for _, prompt := range []string{"a", "b", "c"} {
		base = append(base, binarySamples("p", prompt, 30, 30)...)
		cur = append(cur, binarySamples("p", prompt, 5, 5)...)
	}
	run := makeRun("s", cur)
	rep, err := Compare(makeBaseline("s", base), &run, fixedOpts())
	if err != nil {
		t.Fatal(err)
	}
	st := rep.Statistics
	if rep.HasDrift || st.MinDetectableDrop != 0 {
		t.Fatalf("got drift %v, suite drop %v; want a clean run with no suite-wide figure", rep.HasDrift, st.MinDetectableDrop)
	}
	// Three identical pairs: one figure, that of 30/30 against 5 samples.
	// Nothing is testable, so a pair alone would face alpha.
	level := st.UnitLevel
	if level == 0 {
		level = DefaultAlpha
	}
	want := minDetectableDrop(30, 30, 5, level)
	if st.PairDetectableDrop.Lower != want || st.PairDetectableDrop.Upper != want || want <= 0 || want >= 1 {
		t.Errorf("got pair detectable drop %+v, want both ends %v", st.PairDetectableDrop, want)
	}
	note := strings.Join(rep.Notes, "\n")
	if !strings.Contains(note, "this run could only see drops of") || !strings.Contains(note, "pts or more per pair") {
		t.Errorf("got notes %q, want the per-pair sizing", note)
	}
}
