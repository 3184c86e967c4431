package drift

import "math"

// stratifiedLess is the exact stratified test that the current passes of a
// unit (a probe across prompts, a category) are fewer than the margins of
// its strata predict. Under the null each stratum's current passes follow
// its hypergeometric distribution independently; the distribution of their
// sum is the convolution of the per-stratum distributions, computed by a
// dynamic program over integer counts. It returns P(S ≤ observed) and the
// smallest achievable p-value P(S = smallest sum).
func stratifiedLess(strata []hyper, observed int) (p, minP float64) {
	dist := []float64{1}
	base := 0 // the sum that dist[0] stands for
	var buf []float64
	for _, h := range strata {
		lo, hi := h.support()
		if lo == hi {
			base += lo
			continue
		}
		var pm []float64
		pm, _ = h.pmfs(buf)
		buf = pm
		next := make([]float64, len(dist)+hi-lo)
		for i, a := range dist {
			if a == 0 {
				continue
			}
			for j, b := range pm {
				next[i+j] += a * b
			}
		}
		dist = next
		base += lo
	}
	minP = dist[0]
	x := observed - base
	if x < 0 {
		return 0, minP
	}
	if x >= len(dist)-1 {
		return 1, minP
	}
	for i := 0; i <= x; i++ {
		p += dist[i]
	}
	return math.Min(1, p), minP
}
