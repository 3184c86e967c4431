package drift

import (
	"cmp"
	"math"
	"slices"
)

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

// discreteUnit is one hypothesis of a discrete Benjamini–Hochberg step: its
// p-value, its weight and what is known of its null distribution given the
// margins. support lists attainable p-values in increasing order: all of
// them (a Fisher test) or an exact initial part (a stratified test), above
// whose last value P(p ≤ t) is bounded by t; with no support only the
// smallest attainable p-value minP is used, with the bound P(p ≤ t) ≤ t for
// t ≥ minP and 0 below.
type discreteUnit struct {
	p, w, minP float64
	support    []float64
}

// nullCDF bounds P(p/w ≤ t) under the unit's null.
func (u *discreteUnit) nullCDF(t float64) float64 {
	x := u.w * t * (1 + 1e-12)
	n := len(u.support)
	if n == 0 || x >= u.support[n-1] {
		if x < u.minP {
			return 0
		}
		return min(1, x)
	}
	// The largest support value ≤ x; x is below the last one.
	i, found := slices.BinarySearch(u.support, x)
	if found {
		return u.support[i]
	}
	if i == 0 {
		return 0
	}
	return u.support[i-1]
}

// discreteBH is the discrete Benjamini–Hochberg step-up procedure [DBH-SU]
// of Döhler, Durand and Roquain (2018), applied to the weighted p-values
// p_i/w_i with their heterogeneous null distributions F_i(t) = P(p_i ≤ w_i t):
// with ξ(t) = Σ F_i(t)/(1 − F_i(τ_m)), where τ_m is the largest t with
// Σ F_i(t)/(1 − F_i(t)) ≤ alpha m, it rejects the k smallest weighted
// p-values for the largest k with p_(k)/w_(k) ≤ τ_m and ξ(p_(k)/w_(k)) ≤
// alpha k. A discrete test whose attainable p-values lie far apart counts
// only for the attainable value below each threshold, and a test that
// cannot reach a threshold counts for nothing (this subsumes Tarone's
// screening). With continuous units of weights averaging 1 it is the
// weighted Benjamini–Hochberg step.
//
// Like every choice below made from the margins only, the narrowing of the
// family keeps the guarantee: conditionally on the margins the family is
// fixed, and DDR prove FDR ≤ alpha for independent tests. discreteBH
// returns each unit's adjusted value q_(k) = min over j ≥ k of
// ξ(p_(j)/w_(j))/j (1 when no such j is within τ_m), so q ≤ alpha exactly
// for the rejected units; τ_m, the largest weighted p-value that can be
// rejected; and τ_1, the largest weighted p-value a unit rejected alone
// may have (ξ(τ_1) ≤ alpha).
func discreteBH(units []discreteUnit, alpha float64) (q []float64, tauM, tau1 float64) {
	q = make([]float64, len(units))
	for i := range q {
		q[i] = 1
	}
	// The family is narrowed, from the margins only, to the units that can
	// reach the largest critical value τ_m of the family itself: a unit
	// whose p-value is 1 whatever the data, or whose smallest attainable
	// p-value exceeds w τ_m, is never rejected, and dropping it lowers m and
	// so τ_m (Tarone's argument). The fixed point is reached by repetition.
	fam := make([]int, 0, len(units))
	for i := range units {
		if units[i].minP < 1 {
			fam = append(fam, i)
		}
	}
	for {
		if len(fam) == 0 {
			return q, 0, 0
		}
		tauM := tauMax(units, fam, alpha)
		next := fam[:0:0]
		for _, i := range fam {
			if units[i].nullCDF(tauM) > 0 {
				next = append(next, i)
			}
		}
		if len(next) == len(fam) {
			tau1 := stepUp(units, fam, alpha, tauM, q)
			return q, tauM, tau1
		}
		fam = next
	}
}

// tauMax returns τ_m of discreteBH over the units fam, the largest t with
// Σ F_i(t)/(1 − F_i(t)) ≤ alpha m, found by bisection. The lower end is
// kept: it lies on the same step of every discrete F_i as τ_m (the
// bisection converges to the end of that step), and a continuous bound
// differs from its value at τ_m by rounding only.
func tauMax(units []discreteUnit, fam []int, alpha float64) float64 {
	m := len(fam)
	xi0 := func(t float64) float64 {
		s := 0.0
		for _, i := range fam {
			f := units[i].nullCDF(t)
			if f >= 1 {
				return math.Inf(1)
			}
			s += f / (1 - f)
		}
		return s
	}
	lo, hi := 0.0, 1.0
	for _, i := range fam {
		hi = max(hi, 1/units[i].w)
	}
	if xi0(hi) <= alpha*float64(m) {
		return hi
	}
	for range 60 {
		mid := (lo + hi) / 2
		if xi0(mid) <= alpha*float64(m) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// stepUp runs the step-up of discreteBH over the units fam, fills their
// adjusted values into q and returns τ_1.
func stepUp(units []discreteUnit, fam []int, alpha, tauM float64, q []float64) (tau1 float64) {
	m := len(fam)
	den := make([]float64, len(units))
	for _, i := range fam {
		den[i] = 1 - min(1, units[i].nullCDF(tauM)*(1+1e-9))
	}
	xi := func(t float64) float64 {
		s := 0.0
		for _, i := range fam {
			if f := units[i].nullCDF(t); f > 0 {
				s += f / max(den[i], 1e-300)
			}
		}
		return s
	}
	order := slices.Clone(fam)
	r := func(i int) float64 { return units[i].p / units[i].w }
	slices.SortFunc(order, func(a, b int) int {
		if c := cmp.Compare(r(a), r(b)); c != 0 {
			return c
		}
		return a - b
	})
	run := 1.0
	for k := m - 1; k >= 0; k-- {
		i := order[k]
		if t := r(i); t <= tauM {
			run = min(run, xi(t)/float64(k+1))
		}
		q[i] = run
	}
	// τ_1 by bisection on ξ below τ_m, keeping the lower end.
	lo, up := 0.0, tauM
	if xi(up) <= alpha {
		return up
	}
	for range 60 {
		mid := (lo + up) / 2
		if xi(mid) <= alpha {
			lo = mid
		} else {
			up = mid
		}
	}
	return lo
}
