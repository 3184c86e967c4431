package drift

import (
	"slices"
)

// tarone returns Tarone's screening count K for a family of discrete tests
// with smallest achievable p-values minP at level alpha: the smallest K with
// at most K hypotheses whose minP ≤ alpha/K. Hypotheses with minP above
// alpha/K cannot be significant and are dropped before the
// Benjamini–Hochberg step (Gilbert's procedure), which then runs over the
// m(K) remaining ones.
func tarone(minP []float64, alpha float64) (k int, level float64) {
	m := len(minP)
	if m == 0 {
		return 1, alpha
	}
	sorted := slices.Clone(minP)
	slices.Sort(sorted)
	for k = 1; k <= m; k++ {
		level = alpha / float64(k)
		// m(k): how many minP are ≤ level.
		mk, _ := slices.BinarySearch(sorted, level+level*1e-12)
		if mk <= k {
			return k, level
		}
	}
	return m, alpha / float64(m)
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
