package drift

import (
	"math"
	"testing"

	"github.com/promptcanary/promptcanary"
)

// results makes the results of one probe × prompt pair: passes of n.
func pairResults(probe, prompt string, passes, n int) []promptcanary.ProbeResult {
	out := make([]promptcanary.ProbeResult, n)
	for i := range out {
		out[i] = promptcanary.ProbeResult{ProbeID: probe, PromptID: prompt, Sample: i, Passed: i < passes}
	}
	return out
}

// A pair's weight is the inverse binomial variance of its adjusted rate,
// with its samples counted up to maxN: a pair that never failed in 300
// samples weighs as if it had 10.
func TestPairWeights(t *testing.T) {
	base := append(pairResults("a", "p1", 300, 300), pairResults("a", "p2", 150, 300)...)
	base = append(base, pairResults("b", "p1", 4, 5)...)
	w := PairWeights(base, 10)
	inv := func(p float64) float64 { return 1 / (p * (1 - p)) }
	for k, want := range map[promptcanary.PairKey]float64{
		{ProbeID: "a", PromptID: "p1"}: inv(10.5 / 11),
		{ProbeID: "a", PromptID: "p2"}: inv(5.5 / 11),
		{ProbeID: "b", PromptID: "p1"}: inv(4.5 / 6),
	} {
		if got := w[k]; math.Abs(got-want) > 1e-12 {
			t.Errorf("%v: weight %g, want %g", k, got, want)
		}
	}
	if len(w) != 3 {
		t.Errorf("%d weights, want 3", len(w))
	}
}

// The difference is the weighted mean of the target's pair rates less
// the control's, over the pairs both measured; a shared move cancels.
func TestArmDifference(t *testing.T) {
	k1, k2 := promptcanary.PairKey{ProbeID: "a", PromptID: "p1"}, promptcanary.PairKey{ProbeID: "a", PromptID: "p2"}
	w := map[promptcanary.PairKey]float64{k1: 3, k2: 1}
	target := append(pairResults("a", "p1", 8, 10), pairResults("a", "p2", 5, 10)...)
	control := append(pairResults("a", "p1", 10, 10), pairResults("a", "p2", 10, 10)...)
	r, ok := ArmDifference(target, control, w)
	if want := (3*(0.8-1) + 1*(0.5-1)) / 4; !ok || math.Abs(r.Rate-want) > 1e-12 || r.Var != 0 {
		t.Errorf("got %+v, %v; want rate %g, variance 0", r, ok, want)
	}
	// Both arms in the same bad hour: no difference.
	if r, _ := ArmDifference(target, target, w); r.Rate != 0 {
		t.Errorf("the same results on both arms: difference %g, want 0", r.Rate)
	}
	// A pair the control did not measure, or with no weight, is left out.
	extra := append(target, pairResults("b", "p9", 0, 10)...)
	if r, _ := ArmDifference(extra, control, map[promptcanary.PairKey]float64{k1: 1, {ProbeID: "b", PromptID: "p9"}: 1}); math.Abs(r.Rate-(-0.2)) > 1e-12 {
		t.Errorf("a pair the control lacks and one without a weight: difference %g, want -0.2 (k1 alone)", r.Rate)
	}
	if _, ok := ArmDifference(target, pairResults("z", "z", 1, 1), w); ok {
		t.Error("no pair measured by both arms: ok, want not")
	}
	// Differences are rates RunLevel takes.
	if _, err := RunLevel([]RunRate{{-0.01, 0}, {0.01, 0}, {0, 0}}, []RunRate{r}); err != nil {
		t.Errorf("RunLevel of differences: %v", err)
	}
	if _, err := RunLevel([]RunRate{{-0.01, 0}, {0.01, 0}}, []RunRate{{-1.5, 0}}); err == nil {
		t.Error("a difference below -1: no error")
	}
}
