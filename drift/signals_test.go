package drift

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
)

// withResponses returns a baseline and a run of one always-passing pair on
// prompt "a" whose responses are the given texts.
func withResponses(base, cur []string) (*promptcanary.Baseline, promptcanary.Run) {
	bl := makeBaseline("s", binarySamples("p", "a", len(base), len(base)))
	run := makeRun("s", binarySamples("p", "a", len(cur), len(cur)))
	for i, c := range base {
		bl.RunResult.LLMResponses = append(bl.RunResult.LLMResponses, promptcanary.Response{PromptID: "a", Sample: i, Content: c, FinishReason: "stop"})
	}
	for i, c := range cur {
		run.LLMResponses = append(run.LLMResponses, promptcanary.Response{PromptID: "a", Sample: i, Content: c, FinishReason: "stop"})
	}
	return bl, run
}

// paraphrases draws n answers of a nondeterministic model: a fixed frame
// with some of its words replaced at random.
func paraphrases(n int, seed uint64, swaps int) []string {
	frame := strings.Fields("the capital of france is paris which lies on the seine and has been the seat of government for centuries")
	alt := strings.Fields("city river nation town state home centre heart core site")
	rng := rand.New(rand.NewPCG(seed, 7))
	out := make([]string, n)
	for i := range out {
		w := append([]string(nil), frame...)
		for range swaps {
			w[rng.IntN(len(w))] = alt[rng.IntN(len(alt))]
		}
		out[i] = strings.Join(w, " ")
	}
	return out
}

func signalsByKind(rep *promptcanary.DriftReport) map[string]promptcanary.ChangeSignal {
	m := map[string]promptcanary.ChangeSignal{}
	for _, s := range rep.Statistics.Signals {
		m[s.Kind] = s
	}
	return m
}

func TestSimilaritySignals(t *testing.T) {
	tests := []struct {
		name      string
		base, cur []string
		wantFlag  bool
		// wantMaxP, when positive, bounds the token-F1 p-value: the change
		// is significant yet too small to flag.
		wantMaxP float64
	}{
		{name: "same model, other seed", base: paraphrases(30, 1, 3), cur: paraphrases(20, 2, 3)},
		// 0.91 within the baseline against 0.87 for the current responses
		// (p=5.0e-04, q=0.001): a real but trivial change, which must not warn.
		{name: "trivial change", base: paraphrases(30, 3, 1), cur: paraphrases(20, 4, 2), wantMaxP: 0.01},
		// A deterministic baseline (similarity 1.00) against a different
		// deterministic answer is a real change of output.
		{name: "deterministic answer changed", base: slices.Repeat([]string{"The capital of France is Paris."}, 30), cur: slices.Repeat([]string{"Paris is the capital city of France, on the Seine."}, 20), wantFlag: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bl, run := withResponses(tc.base, tc.cur)
			rep, err := Compare(bl, &run, fixedOpts())
			if err != nil {
				t.Fatal(err)
			}
			sigs := signalsByKind(rep)
			for _, k := range []string{"token_f1", "chrf"} {
				s, ok := sigs[k]
				if !ok {
					t.Fatalf("got no %s signal, want one", k)
				}
				if s.Flagged != tc.wantFlag {
					t.Errorf("%s: got flagged %v (%s), want %v", k, s.Flagged, s.Detail, tc.wantFlag)
				}
			}
			if s := sigs["token_f1"]; tc.wantMaxP > 0 && s.P > tc.wantMaxP {
				t.Errorf("got token_f1 p=%v (%s), want ≤ %v", s.P, s.Detail, tc.wantMaxP)
			}
			if rep.HasDrift {
				t.Errorf("got drift from signals alone (%s), want none", rep.Summary)
			}
		})
	}
}

func TestResponsePermutationTest(t *testing.T) {
	// Four responses, two per side; the matrix makes the observed split
	// the most extreme of the C(4,2) = 6 labellings (and its mirror).
	m := []float64{
		0, 1, 0, 0,
		1, 0, 0, 0,
		0, 0, 0, 1,
		0, 0, 1, 0,
	}
	stat := func(s blockSums) float64 { return s.meanBB() - s.meanBC() }
	obs, p := responsePermutationTest(m, 4, 2, stat, 3000, rand.New(rand.NewPCG(1, 2)))
	if obs != 1 {
		t.Errorf("got statistic %v, want 1", obs)
	}
	// Two of the six labellings reach the statistic: p near 1/3, and the
	// sequential stop reports hits/draws.
	if p < 0.25 || p > 0.42 {
		t.Errorf("got p %v, want near 1/3", p)
	}
	s := sums(m, 4, sideLabels(4, 2))
	if want := (blockSums{bb: 2, cc: 2, bc: 0, nbb: 2, ncc: 2, nbc: 4}); s != want {
		t.Errorf("got block sums %+v, want %+v", s, want)
	}
	// An asymmetric similarity counts a current response judged against a
	// baseline one, never the reverse.
	m[2*4+0], m[0*4+2] = 5, 7
	if got := sums(m, 4, sideLabels(4, 2)).bc; got != 5 {
		t.Errorf("got across sum %v, want 5", got)
	}
}
