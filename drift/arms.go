package drift

import (
	"maps"
	"slices"

	"github.com/promptcanary/promptcanary"
)

// PairWeights returns the weight of each probe × prompt pair of a
// baseline's results in ArmDifference: the inverse of the binomial
// variance of its adjusted pass rate, 1/(p̃(1 − p̃)), with
// p̃ = (passes·m/n + ½)/(m + 1) over its n samples, m = min(n, maxN): the
// pair's rate adjusted as if it had at most maxN samples (the samples of
// one run), so that a pair that never failed weighs at most about 2·maxN,
// not 2·n. Such a pair weighs most: a drift that moves every pair shows
// there without the noise of a flaky pair. Without the bound a few such
// pairs carry the whole difference, whose spread then comes from their
// rare failures in bad hours, with tails heavier than Student's t allows
// (docs/statistics.md, "The suite against a control").
func PairWeights(base []promptcanary.ProbeResult, maxN int) map[promptcanary.PairKey]float64 {
	pass, n := pairTallies(base)
	out := make(map[promptcanary.PairKey]float64, len(n))
	for k, c := range n {
		m := float64(min(c, max(maxN, 1)))
		p := (float64(pass[k])*m/float64(c) + 0.5) / (m + 1)
		out[k] = 1 / (p * (1 - p))
	}
	return out
}

// ArmDifference returns one slot's difference between two arms that
// answered the same prompts in it, a check's target and its control: the
// weighted mean, over the pairs with a weight that both arms measured, of
// the target's pass rate less the control's (weights from PairWeights of
// the target's baseline). The bad hour the two arms share cancels out of
// it. The result is a rate in [−1, 1] for RunLevel, against reference
// runs that are differences too; its Var is 0: what sampling adds to a
// difference is not told apart from what is left of the hour, so the
// whole spread is taken from the reference runs (τ² = s², and RunLevel is
// Student's t test of a new mean against k earlier values,
// t = (m − c̄)/(s·√(1/n + 1/k))). ok is false when no pair was measured
// by both.
func ArmDifference(target, control []promptcanary.ProbeResult, weights map[promptcanary.PairKey]float64) (r RunRate, ok bool) {
	tp, tn := pairTallies(target)
	cp, cn := pairTallies(control)
	var sum, wsum float64
	// In a fixed order, so that the same runs give the same bits.
	for _, k := range slices.SortedFunc(maps.Keys(tn), comparePairKeys) {
		w, found := weights[k]
		if !found || cn[k] == 0 {
			continue
		}
		sum += w * (float64(tp[k])/float64(tn[k]) - float64(cp[k])/float64(cn[k]))
		wsum += w
	}
	if wsum == 0 {
		return RunRate{}, false
	}
	return RunRate{Rate: sum / wsum}, true
}
