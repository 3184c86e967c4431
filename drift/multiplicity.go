package drift

import (
	"cmp"
	"math"
	"slices"
)

// tarone is Tarone's screening of a family of discrete tests with smallest
// achievable p-values minP and Bonferroni weights w, at level alpha. A unit
// with weight w_i is testable at total weight W when minP_i ≤ alpha w_i / W;
// tarone returns the smallest W ≥ 1 at least the total weight of the units
// testable at W. With unit weights this is Tarone's count K (the smallest K
// with at most K hypotheses whose minP ≤ alpha/K), and the weighted
// Bonferroni test of the testable units at alpha w_i / W keeps the
// family-wise error at alpha, since every unit that could be significant
// is counted. Units that cannot reach their level are dropped before the
// weighted Benjamini–Hochberg step (Gilbert's procedure), which runs over
// the remaining ones.
func tarone(minP, w []float64, alpha float64) (total float64) {
	// Unit i is testable for W ≤ t_i = alpha w_i / minP_i.
	type cut struct{ t, w float64 }
	cuts := make([]cut, 0, len(minP))
	for i, mp := range minP {
		if w[i] <= 0 {
			continue
		}
		t := math.Inf(1)
		if mp > 0 {
			t = alpha * w[i] / mp
		}
		cuts = append(cuts, cut{t, w[i]})
	}
	slices.SortFunc(cuts, func(a, b cut) int { return cmp.Compare(b.t, a.t) })
	best := math.Inf(1)
	sum := 0.0 // total weight of the units with the k largest cuts
	for k := 0; k <= len(cuts); k++ {
		if k > 0 {
			sum += cuts[k-1].w
		}
		// W in (t_{k+1}, t_k] keeps exactly the first k units.
		hi, lo := math.Inf(1), 0.0
		if k > 0 {
			hi = cuts[k-1].t
		}
		if k < len(cuts) {
			lo = cuts[k].t
		}
		if lo >= hi {
			continue // tied cuts: no W keeps exactly k units
		}
		cand := max(1, sum)
		if cand <= lo {
			cand = math.Nextafter(lo, math.Inf(1))
		}
		if cand <= hi {
			best = min(best, cand)
		}
	}
	return best
}

// benjaminiHochberg returns the BH-adjusted p-values (q-values) of p.
func benjaminiHochberg(p []float64) []float64 {
	m := len(p)
	q := make([]float64, m)
	if m == 0 {
		return q
	}
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		switch {
		case p[a] < p[b]:
			return -1
		case p[a] > p[b]:
			return 1
		}
		return a - b
	})
	run := 1.0
	for r := m - 1; r >= 0; r-- {
		i := order[r]
		v := p[i] * float64(m) / float64(r+1)
		run = min(run, v)
		q[i] = run
	}
	return q
}

// weightedBH returns the q-values of weighted Benjamini–Hochberg (Genovese,
// Roeder and Wasserman): the BH step applied to p_i/w_i, with weights w
// averaging 1, so unit i is rejected at level q when p_i ≤ q w_i r/m.
func weightedBH(p, w []float64) []float64 {
	r := make([]float64, len(p))
	for i := range p {
		r[i] = p[i] / w[i]
	}
	q := benjaminiHochberg(r)
	for i := range q {
		q[i] = min(1, q[i])
	}
	return q
}
