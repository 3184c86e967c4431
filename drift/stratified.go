package drift

import (
	"math"
	"slices"
)

// Weight resolutions of pairWeight: the stratified unit of a probe or a
// category weighs its strata finely; the suite's response scores use a
// coarser grid, which keeps its exact permutation program small.
const (
	stratumResolution  = 2
	responseResolution = 1
)

// pairWeight is the integer weight of one pair's current passes in a broad
// unit, from the pooled margins only (succ passes of total samples, both
// sides), so the exact conditional null distribution is unchanged. It is
// proportional to 1/(p̂(1−p̂)) with p̂ = succ/total, the locally most powerful
// weight against a drop of the same number of points in every pair: a new
// failure in a pair that nearly always passes is far stronger evidence than
// one more failure in a pair that passes 60% of the time. The weight is
// res × 1/(4p̂(1−p̂)) rounded, at least 1 (res at p̂ = 0.5); a constant pair
// (p̂ 0 or 1) gets weight 1, which does not matter since it cannot vary.
func pairWeight(succ, total, res int) int {
	if succ <= 0 || succ >= total {
		return 1
	}
	p := float64(succ) / float64(total)
	return max(1, int(math.Round(float64(res)/(4*p*(1-p)))))
}

// stratifiedLess is the exact stratified test that the current passes of a
// unit (a probe across prompts, a category) are fewer than the margins of
// its strata predict, with every stratum weighing the same.
func stratifiedLess(strata []hyper, observed int) (p, minP float64) {
	w := make([]int, len(strata))
	for i := range w {
		w[i] = 1
	}
	return weightedStratifiedLess(strata, w, observed, false)
}

// supportCover is the lower-tail probability up to which
// weightedStratifiedSupport lists the attainable p-values of its test: the
// discrete Benjamini–Hochberg step compares them with thresholds below the
// level alpha (0.01 by default), and bounds P(p ≤ t) by t beyond them.
const supportCover = 0.02

// weightedStratifiedLess is the exact stratified test of the weighted sum
// S = Σ w_i X_i of the current passes X_i of each stratum. Under the null
// each X_i follows its hypergeometric distribution independently given the
// margins; the distribution of S is their convolution, computed by a
// dynamic program over integer sums truncated at the observed value (no
// larger partial sum can come back below it). It returns P(S ≤ observed)
// and the smallest achievable p-value P(S = smallest sum), which does not
// depend on the weights. With skip set, a tie-corrected normal
// approximation above normalSkip is returned without the program.
func weightedStratifiedLess(strata []hyper, w []int, observed int, skip bool) (p, minP float64) {
	p, minP, _ = weightedStratifiedSupport(strata, w, observed, skip, false)
	return p, minP
}

// weightedStratifiedSupport is weightedStratifiedLess that, with support
// set, also returns the attainable p-values P(S ≤ s) in increasing order
// for every sum s up to where the normal approximation of the lower tail
// reaches supportCover (and at least up to the observed sum when the
// program runs for it): an exact initial part of the support, beyond whose
// last value the discrete step bounds P(p ≤ t) by t.
func weightedStratifiedSupport(strata []hyper, w []int, observed int, skip, support bool) (p, minP float64, sup []float64) {
	base, minP, mean, variance := weightedMoments(strata, w)
	x := observed - base
	switch {
	case variance <= 1e-12:
		return 1, minP, nil
	case x < 0:
		p = 0
	}
	runP := x >= 0
	if runP && skip {
		if pn := normalCDF((float64(observed) - mean + 0.5) / math.Sqrt(variance)); pn > normalSkip {
			p, runP = pn, false
		}
	}
	top := -1 // the largest sum (above base) the program must reach
	if runP {
		top = x
	}
	full := 0 // the largest sum above base
	for i, h := range strata {
		lo, hi := h.support()
		full += w[i] * (hi - lo)
	}
	if support {
		// Start at the normal quantile; the weighted sum's lower tail is
		// often far lighter than the normal one, so the reach doubles
		// until the exact tail covers supportCover.
		cover := int(math.Floor(mean+normalQuantile(supportCover)*math.Sqrt(variance))) - base
		top = max(top, cover, 1)
	}
	dist := weightedLowerTail(strata, w, top, full, support)
	cum := 0.0
	for s, v := range dist {
		cum += v
		if runP && s == x {
			p = math.Min(1, cum)
		}
		if support && v > 0 {
			sup = append(sup, math.Min(1, cum))
		}
	}
	if runP && x >= len(dist) {
		p = math.Min(1, cum)
	}
	return p, minP, sup
}

// weightedMoments returns the smallest possible weighted sum of strata,
// the probability of that sum, and the sum's mean and variance.
func weightedMoments(strata []hyper, w []int) (base int, minP, mean, variance float64) {
	minP = 1.0
	for i, h := range strata {
		lo, hi := h.support()
		base += w[i] * lo
		if lo == hi {
			continue
		}
		minP *= math.Exp(h.logPMF(lo))
		t, s, n := float64(h.total), float64(h.succ), float64(h.n)
		mean += float64(w[i]) * n * s / t
		variance += float64(w[i]*w[i]) * n * (s / t) * (1 - s/t) * (t - n) / (t - 1)
	}
	return base, minP, mean, variance
}

// weightedLowerTail returns the exact distribution of the weighted sum
// above its smallest value, cut after top (at most full). With support
// set, top doubles until the distribution covers supportCover.
func weightedLowerTail(strata []hyper, w []int, top, full int, support bool) []float64 {
	var dist, next, buf []float64
	for {
		top = min(top, full)
		dist = append(dist[:0], 1)
		for i, h := range strata {
			lo, hi := h.support()
			if lo == hi {
				continue
			}
			buf, _ = h.pmfs(buf)
			size := min(len(dist)+w[i]*(hi-lo), top+1)
			next = slices.Grow(next[:0], size)[:size]
			clear(next)
			for a, pa := range dist {
				if pa == 0 {
					continue
				}
				for j, pb := range buf {
					t := a + w[i]*j
					if t >= size {
						break
					}
					next[t] += pa * pb
				}
			}
			dist, next = next, dist
		}
		if !support || top >= full {
			break
		}
		cum := 0.0
		for _, v := range dist {
			cum += v
		}
		if cum >= supportCover {
			break
		}
		top *= 2
	}
	return dist
}
