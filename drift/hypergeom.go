package drift

import "math"

// logFactTable caches log(n!) for small n; larger n use math.Lgamma.
var logFactTable = func() []float64 {
	t := make([]float64, 4096)
	for i := 2; i < len(t); i++ {
		t[i] = t[i-1] + math.Log(float64(i))
	}
	return t
}()

// logFact returns log(n!) for n ≥ 0.
func logFact(n int) float64 {
	if n < len(logFactTable) {
		return logFactTable[n]
	}
	v, _ := math.Lgamma(float64(n) + 1)
	return v
}

// logChoose returns log C(n, k), or -Inf when k is outside [0, n].
func logChoose(n, k int) float64 {
	if k < 0 || k > n {
		return math.Inf(-1)
	}
	return logFact(n) - logFact(k) - logFact(n-k)
}

// hyper is the hypergeometric distribution of the number of successes in a
// draw of n items from a population of total items of which succ succeed.
// In a 2×2 table it is the null distribution of the current passes given
// the margins: total = n_b + n_c, succ = all passes, n = n_c.
type hyper struct{ total, succ, n int }

// support returns the smallest and largest possible counts.
func (h hyper) support() (lo, hi int) {
	return max(0, h.n-(h.total-h.succ)), min(h.n, h.succ)
}

// logPMF returns the log probability of x successes.
func (h hyper) logPMF(x int) float64 {
	return logChoose(h.succ, x) + logChoose(h.total-h.succ, h.n-x) - logChoose(h.total, h.n)
}

// pmfs fills dst with the probabilities of lo..hi and returns it; the terms
// come from the log-space value at the mode and the ratio recurrence, so
// they stay accurate far into the tails.
func (h hyper) pmfs(dst []float64) ([]float64, int) {
	lo, hi := h.support()
	dst = dst[:0]
	for x := lo; x <= hi; x++ {
		dst = append(dst, math.Exp(h.logPMF(x)))
	}
	return dst, lo
}

// lowerTail returns P(X ≤ x), summed in log space from the lower end.
func (h hyper) lowerTail(x int) float64 {
	lo, hi := h.support()
	if x < lo {
		return 0
	}
	if x >= hi {
		return 1
	}
	// Terms grow towards the mode; sum from x downwards with the ratio
	// pmf(k-1)/pmf(k) = k (total-succ-n+k) / ((succ-k+1)(n-k+1)).
	lp := h.logPMF(x)
	term, sum := 1.0, 1.0
	for k := x; k > lo; k-- {
		term *= float64(k) * float64(h.total-h.succ-h.n+k) / (float64(h.succ-k+1) * float64(h.n-k+1))
		sum += term
		if term < sum*1e-17 {
			break
		}
	}
	return min(1, math.Exp(lp+math.Log(sum)))
}

// upperTail returns P(X ≥ x).
func (h hyper) upperTail(x int) float64 {
	lo, hi := h.support()
	if x <= lo {
		return 1
	}
	if x > hi {
		return 0
	}
	lp := h.logPMF(x)
	term, sum := 1.0, 1.0
	for k := x; k < hi; k++ {
		term *= float64(h.succ-k) * float64(h.n-k) / (float64(k+1) * float64(h.total-h.succ-h.n+k+1))
		sum += term
		if term < sum*1e-17 {
			break
		}
	}
	return min(1, math.Exp(lp+math.Log(sum)))
}

// fisherLess is Fisher's exact one-sided test that the current pass rate is
// lower than the baseline's: it returns P(X ≤ observed current passes) and
// the smallest p-value the margins allow (P(X = lowest count)), which
// screening uses.
func fisherLess(bPass, bN, cPass, cN int) (p, minP float64) {
	h := hyper{total: bN + cN, succ: bPass + cPass, n: cN}
	lo, _ := h.support()
	return h.lowerTail(cPass), math.Exp(h.logPMF(lo))
}

// fisherGreater is the one-sided test that the current pass rate is higher.
func fisherGreater(bPass, bN, cPass, cN int) float64 {
	h := hyper{total: bN + cN, succ: bPass + cPass, n: cN}
	return h.upperTail(cPass)
}

// fisherTwoSided is Fisher's exact two-sided test: the probability of the
// tables no more likely than the observed one.
func fisherTwoSided(bPass, bN, cPass, cN int) float64 {
	h := hyper{total: bN + cN, succ: bPass + cPass, n: cN}
	lo, hi := h.support()
	obs := h.logPMF(cPass)
	p := 0.0
	for x := lo; x <= hi; x++ {
		if l := h.logPMF(x); l <= obs+1e-7 {
			p += math.Exp(l)
		}
	}
	return min(1, p)
}

// lowerTails returns the attainable p-values of fisherLess given the
// margins, P(X ≤ x) for every possible count x, in increasing order.
func (h hyper) lowerTails() []float64 {
	lo, hi := h.support()
	out := make([]float64, 0, hi-lo+1)
	for x := lo; x <= hi; x++ {
		out = append(out, h.lowerTail(x))
	}
	return out
}
