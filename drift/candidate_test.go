package drift

import (
	"math"
	"slices"
	"testing"

	"github.com/promptcanary/promptcanary"
)

// pc is the pass count of passed of n samples.
func pc(passed, n int) promptcanary.PassCount {
	return promptcanary.PassCount{Passed: passed, N: n}
}

// classified classifies a copy of pairs.
func classified(pairs []promptcanary.CandidatePair, margin, alpha float64) []promptcanary.CandidatePair {
	pairs = slices.Clone(pairs)
	classifyCandidate(pairs, margin, alpha)
	return pairs
}

// TestFMScoreKnownValues checks the closed-form restricted maximum
// likelihood of fmScore against values computed by hand and, for the
// others, by maximising the likelihood numerically (an independent
// ternary search over p0 with p1 = p0 − margin).
func TestFMScoreKnownValues(t *testing.T) {
	for _, tc := range []struct {
		name           string
		x1, n1, x0, n0 int
		margin, want   float64
	}{
		// By hand: p̃1 = 0.95, p̃0 = 1, z = 0.05 / sqrt(0.95·0.05/30).
		{"all pass both sides", 30, 30, 30, 30, 0.05, 0.05 / math.Sqrt(0.95*0.05/30)},
		{"two fewer passes", 18, 20, 20, 20, 0.05, -1.0006424682},
		{"both below one", 45, 50, 48, 50, 0.05, -0.1992067772},
		{"broken", 0, 20, 20, 20, 0.05, -6.0158520752},
		{"unequal sizes, margin 10", 7, 10, 9, 12, 0.10, 0.2604054495},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := fmScore(tc.x1, tc.n1, tc.x0, tc.n0, tc.margin); !near(got, tc.want, 1e-6) {
				t.Errorf("got z %.10f, want %.10f", got, tc.want)
			}
		})
	}
}

// TestFMExactKnownValues checks the exact unconditional p-values against
// values computed by hand (the supremum is at a boundary or solves a
// one-line maximisation) and by an independent brute force on a grid of
// 4,000 nuisance values.
func TestFMExactKnownValues(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		cur, cand            promptcanary.PassCount
		margin               float64
		wantWorse, wantNoWor float64
		eps                  float64
	}{
		// Every table is at least as extreme as (5/5, 5/5) for "no
		// worse" except those where the candidate fails; the supremum is
		// at p0 = 1: P = 0.95^5.
		{"five each, all pass", pc(5, 5), pc(5, 5), 0.05, 1, math.Pow(0.95, 5), 1e-9},
		// Only (0/6 against 6/6) is as extreme: P = (1.05 − p0)^6 p0^6,
		// largest at p0 = 0.525: 0.525^12.
		{"broken pair", pc(6, 6), pc(0, 6), 0.05, math.Pow(0.525, 12), 1, 1e-6},
		{"brute force", pc(7, 8), pc(3, 8), 0.10, 0.0627494476, 0.9949756500, 1e-4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, n := fmExact(tc.cur, tc.cand, tc.margin)
			if !near(w, tc.wantWorse, tc.eps) || !near(n, tc.wantNoWor, tc.eps) {
				t.Errorf("got worse %.10f, no worse %.10f; want %.10f, %.10f", w, n, tc.wantWorse, tc.wantNoWor)
			}
		})
	}
}

// TestFMExactIsConservative checks by enumeration that the exact test's
// rejection rate at the null boundary never exceeds its level.
func TestFMExactIsConservative(t *testing.T) {
	const n, margin, level = 12, 0.05, 0.05
	for _, p0 := range []float64{0.3, 0.6, 0.9, 1} {
		b0 := binomPMFs(n, p0, nil)
		b1 := binomPMFs(n, p0-margin, nil)
		var rejWorse, rejNoWorse float64
		for x0 := range b0 {
			for x1 := range b1 {
				w, nw := fmExact(pc(x0, n), pc(x1, n), margin)
				if w <= level {
					rejWorse += b0[x0] * b1[x1]
				}
				if nw <= level {
					rejNoWorse += b0[x0] * b1[x1]
				}
			}
		}
		if rejWorse > level+1e-9 || rejNoWorse > level+1e-9 {
			t.Errorf("p0 %.2f: rejection rates %.4f (worse), %.4f (no worse) above %.2f", p0, rejWorse, rejNoWorse, level)
		}
	}
}

func TestCompareCandidateVerdicts(t *testing.T) {
	pair := func(id string, cur, cand promptcanary.PassCount) promptcanary.CandidatePair {
		return promptcanary.CandidatePair{ProbeID: "p", PromptID: id, Current: cur, Candidate: cand}
	}
	pairs := []promptcanary.CandidatePair{
		pair("broken", pc(30, 30), pc(0, 30)),
		pair("fixed", pc(0, 30), pc(30, 30)),
		pair("solid", pc(150, 150), pc(150, 150)),
		pair("few", pc(5, 5), pc(5, 5)),
		pair("slight drop", pc(27, 30), pc(24, 30)),
	}
	got := classified(pairs, DefaultMargin, DefaultAlpha)
	want := []promptcanary.CandidateVerdict{promptcanary.CandidateWorse, promptcanary.CandidateBetter, promptcanary.CandidateNoWorse, promptcanary.CandidateInconclusive, promptcanary.CandidateInconclusive}
	for i, r := range got {
		if r.Verdict != want[i] {
			t.Errorf("%s: got %s (p worse %.3g q %.3g, p no worse %.3g q %.3g, p better %.3g), want %s",
				r.PromptID, r.Verdict, r.PWorse, r.QWorse, r.PNoWorse, r.QNoWorse, r.PBetter, want[i])
		}
	}
	if r := got[0]; !near(r.Delta, -1, 1e-12) || r.Interval[1] >= -0.8 || r.QWorse < r.PWorse {
		t.Errorf("broken: got delta %.3f [%.3f, %.3f], p %.3g q %.3g; want −1 with the interval's top below −0.8 and q ≥ p", r.Delta, r.Interval[0], r.Interval[1], r.PWorse, r.QWorse)
	}
}

// TestCompareCandidateAdjusts checks that the q-values are the
// Benjamini–Hochberg step over all pairs: a p-value that passes alone does
// not pass among many pairs that show nothing.
func TestCompareCandidateAdjusts(t *testing.T) {
	pairs := []promptcanary.CandidatePair{{ProbeID: "p", PromptID: "a", Current: pc(10, 10), Candidate: pc(5, 10)}}
	alone := classified(pairs, DefaultMargin, 0.05)[0]
	if alone.PWorse > 0.05 || alone.Verdict != promptcanary.CandidateWorse {
		t.Fatalf("alone: got p %.4f, %s; want p ≤ 0.05 and worse", alone.PWorse, alone.Verdict)
	}
	for range 20 {
		pairs = append(pairs, promptcanary.CandidatePair{ProbeID: "p", PromptID: "b", Current: pc(10, 10), Candidate: pc(10, 10)})
	}
	among := classified(pairs, DefaultMargin, 0.05)[0]
	if want := alone.PWorse * 21; !near(among.QWorse, min(want, 1), 1e-12) || among.Verdict == promptcanary.CandidateWorse {
		t.Errorf("among 21: got q %.4f, %s; want %.4f and not worse", among.QWorse, among.Verdict, want)
	}
}

// TestCandidateCountsPairs checks the pass counts read from the runs, the
// pairs measured on one side only and the summary.
func TestCandidateCountsPairs(t *testing.T) {
	var cur, cand []res
	cur = append(cur, binarySamples("p", "a", 30, 30)...)
	cur = append(cur, binarySamples("p", "b", 12, 20)...)
	cur = append(cur, binarySamples("q", "a", 20, 20)...) // not on the candidate
	cand = append(cand, binarySamples("p", "a", 0, 30)...)
	cand = append(cand, binarySamples("p", "b", 13, 20)...)
	cand = append(cand, binarySamples("r", "a", 1, 1)...) // not on the current
	c, d := makeRun("s", cur), makeRun("s", cand)
	c.Samples, c.Provider.ModelID, d.Provider.ModelID = 30, "sim/stable", "sim/drifted"
	r := Candidate(&c, &d, DefaultMargin, DefaultAlpha)
	if r.Current != "sim/stable" || r.Candidate != "sim/drifted" || r.Samples != 30 || r.Margin != DefaultMargin {
		t.Errorf("got %s vs %s, %d samples, margin %v", r.Current, r.Candidate, r.Samples, r.Margin)
	}
	if len(r.Pairs) != 2 || r.Pairs[1].Current != (pc(12, 20)) || r.Pairs[1].Candidate != (pc(13, 20)) {
		t.Fatalf("got pairs %+v, want p/a and p/b with 12/20 against 13/20 for p/b", r.Pairs)
	}
	if want := []string{"q/a", "r/a"}; !slices.Equal(r.NotCompared, want) {
		t.Errorf("got not compared %v, want %v", r.NotCompared, want)
	}
	want := promptcanary.CandidateSummary{Pairs: 2, Worse: 1, Inconclusive: 1, NotCompared: 2}
	if r.Summary != want {
		t.Errorf("got summary %+v, want %+v", r.Summary, want)
	}
}

func TestSamplesToShowNoWorse(t *testing.T) {
	for _, tc := range []struct {
		margin, alpha float64
		want          int
	}{
		// 0.95^90 = 0.0099, but the supremum lies inside (0.95, 1): an
		// independent brute force gives p 0.0106 at 107 and 0.0093 at 108.
		{0.05, 0.01, 108},
		// 0.9^44 = 0.0097 but the supremum lies inside (0.9, 1): an
		// independent brute force gives p 0.0107 at 52 and 0.0086 at 53.
		{0.10, 0.01, 53},
		{0.01, 0.01, 0}, // 459 samples: beyond the exact test
	} {
		got := SamplesToShowNoWorse(tc.margin, tc.alpha)
		if got != tc.want {
			t.Errorf("margin %v, alpha %v: got %d, want %d", tc.margin, tc.alpha, got, tc.want)
			continue
		}
		if got == 0 {
			continue
		}
		all, fewer := pc(got, got), pc(got-1, got-1)
		if _, p := fmExact(all, all, tc.margin); p > tc.alpha {
			t.Errorf("margin %v: %d samples give p %.4f, above %v", tc.margin, got, p, tc.alpha)
		}
		if _, p := fmExact(fewer, fewer, tc.margin); p <= tc.alpha {
			t.Errorf("margin %v: %d samples already give p %.4f", tc.margin, got-1, p)
		}
	}
}

// TestFMRestrictedMaximises checks the closed form of the restricted
// maximum likelihood on every table of small samples: no rate on the
// boundary p1 = p0 − margin of a fine grid has a higher likelihood.
func TestFMRestrictedMaximises(t *testing.T) {
	logLik := func(x, n int, p float64) float64 {
		v := 0.0
		if x > 0 {
			v += float64(x) * math.Log(p)
		}
		if x < n {
			v += float64(n-x) * math.Log1p(-p)
		}
		return v
	}
	sizes := []int{1, 2, 5, 13}
	for _, margin := range []float64{0.01, 0.05, 0.3} {
		for _, n1 := range sizes {
			for _, n0 := range sizes {
				for x1 := 0; x1 <= n1; x1++ {
					for x0 := 0; x0 <= n0; x0++ {
						r1, r0 := fmRestricted(x1, n1, x0, n0, -margin)
						if math.Abs(r0-r1-margin) > 1e-9 {
							t.Fatalf("%d/%d, %d/%d, margin %v: got p̃1 %v, p̃0 %v off the boundary", x1, n1, x0, n0, margin, r1, r0)
						}
						best := logLik(x1, n1, r1) + logLik(x0, n0, r0)
						for i := 0; i <= 1000; i++ {
							p0 := margin + (1-margin)*float64(i)/1000
							if l := logLik(x1, n1, p0-margin) + logLik(x0, n0, p0); l > best+1e-9 {
								t.Fatalf("%d/%d, %d/%d, margin %v: p0 %v has log-likelihood %v above the closed form's %v at %v",
									x1, n1, x0, n0, margin, p0, l, best, r0)
							}
						}
					}
				}
			}
		}
	}
}

// DropBeyond tests a drop beyond a margin: the larger the margin, the
// weaker the evidence of the same counts; a collapse stays significant
// at any margin a bad hour explains, and a few failures do not.
func TestDropBeyond(t *testing.T) {
	all := promptcanary.PassCount{Passed: 30, N: 30}
	few := promptcanary.PassCount{Passed: 26, N: 30}
	prev := 0.0
	for _, m := range []float64{-0.1, 0, 0.02, 0.05, 0.1} {
		p := DropBeyond(all, few, m)
		if p < prev {
			t.Fatalf("margin %g: p %g below %g at a smaller margin", m, p, prev)
		}
		prev = p
	}
	if p := DropBeyond(all, few, 0); p > 0.05 {
		t.Errorf("30/30 → 26/30, any drop: p %g, want ≤ 0.05", p)
	}
	if p := DropBeyond(all, few, 0.05); p <= 0.05 {
		t.Errorf("30/30 → 26/30 beyond 5 points: p %g, want > 0.05", p)
	}
	if p := DropBeyond(all, promptcanary.PassCount{Passed: 10, N: 30}, 0.05); p > 1e-6 {
		t.Errorf("30/30 → 10/30 beyond 5 points: p %g, want ≤ 1e-6", p)
	}
	if p := DropBeyond(all, promptcanary.PassCount{}, 0.05); p != 1 {
		t.Errorf("no current samples: p %g, want 1", p)
	}
}
