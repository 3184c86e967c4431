package drift

import (
	"math"
	"testing"
)

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
		cur, cand            Counts
		margin               float64
		wantWorse, wantNoWor float64
		eps                  float64
	}{
		// Every table is at least as extreme as (5/5, 5/5) for "no
		// worse" except those where the candidate fails; the supremum is
		// at p0 = 1: P = 0.95^5.
		{"five each, all pass", Counts{5, 5}, Counts{5, 5}, 0.05, 1, math.Pow(0.95, 5), 1e-9},
		// Only (0/6 against 6/6) is as extreme: P = (1.05 − p0)^6 p0^6,
		// largest at p0 = 0.525: 0.525^12.
		{"broken pair", Counts{6, 6}, Counts{0, 6}, 0.05, math.Pow(0.525, 12), 1, 1e-6},
		{"brute force", Counts{7, 8}, Counts{3, 8}, 0.10, 0.0627494476, 0.9949756500, 1e-4},
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
				w, nw := fmExact(Counts{x0, n}, Counts{x1, n}, margin)
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
	pair := func(id string, cur, cand Counts) CandidatePair {
		return CandidatePair{ProbeID: "p", PromptID: id, Current: cur, Candidate: cand}
	}
	pairs := []CandidatePair{
		pair("broken", Counts{30, 30}, Counts{0, 30}),
		pair("fixed", Counts{0, 30}, Counts{30, 30}),
		pair("solid", Counts{150, 150}, Counts{150, 150}),
		pair("few", Counts{5, 5}, Counts{5, 5}),
		pair("slight drop", Counts{27, 30}, Counts{24, 30}),
	}
	got := CompareCandidate(pairs, DefaultMargin, DefaultAlpha)
	want := []string{CandidateWorse, CandidateBetter, CandidateNoWorse, CandidateInconclusive, CandidateInconclusive}
	for i, r := range got {
		if r.Verdict != want[i] {
			t.Errorf("%s: got %s (p worse %.3g q %.3g, p no worse %.3g q %.3g, p better %.3g), want %s",
				r.PromptID, r.Verdict, r.PWorse, r.QWorse, r.PNoWorse, r.QNoWorse, r.PBetter, want[i])
		}
	}
	if r := got[0]; !near(r.Delta, -1, 1e-12) || r.Hi >= -0.8 || r.QWorse < r.PWorse {
		t.Errorf("broken: got delta %.3f [%.3f, %.3f], p %.3g q %.3g; want −1 with the interval's top below −0.8 and q ≥ p", r.Delta, r.Lo, r.Hi, r.PWorse, r.QWorse)
	}
}

// TestCompareCandidateAdjusts checks that the q-values are the
// Benjamini–Hochberg step over all pairs: a p-value that passes alone does
// not pass among many pairs that show nothing.
func TestCompareCandidateAdjusts(t *testing.T) {
	pairs := []CandidatePair{{ProbeID: "p", PromptID: "a", Current: Counts{10, 10}, Candidate: Counts{5, 10}}}
	alone := CompareCandidate(pairs, DefaultMargin, 0.05)[0]
	if alone.PWorse > 0.05 || alone.Verdict != CandidateWorse {
		t.Fatalf("alone: got p %.4f, %s; want p ≤ 0.05 and worse", alone.PWorse, alone.Verdict)
	}
	for range 20 {
		pairs = append(pairs, CandidatePair{ProbeID: "p", PromptID: "b", Current: Counts{10, 10}, Candidate: Counts{10, 10}})
	}
	among := CompareCandidate(pairs, DefaultMargin, 0.05)[0]
	if want := alone.PWorse * 21; !near(among.QWorse, min(want, 1), 1e-12) || among.Verdict == CandidateWorse {
		t.Errorf("among 21: got q %.4f, %s; want %.4f and not worse", among.QWorse, among.Verdict, want)
	}
}
