package drift

import (
	"math"

	"github.com/promptcanary/promptcanary"
)

// DefaultMargin is the non-inferiority margin of a candidate comparison:
// a candidate may pass 5 points less often than the current model on a
// pair and still count as no worse.
const DefaultMargin = 0.05

// exactTables bounds the exact unconditional test: a pair with more
// possible 2×2 tables ((n_current+1)(n_candidate+1)) takes the normal
// approximation of the same statistic, which is close at such sizes.
const exactTables = 40401 // 200 samples a side

// nuisanceGrid is the number of steps of the grid over the current pass
// rate on which the exact test takes its supremum.
const nuisanceGrid = 400

// Candidate compares the runs of the current model and of a candidate on
// the same suite, pair by pair: see classifyCandidate. A pair measured on
// one side only is listed as not compared. Every result counts as passed
// or not, continuous scores included.
func Candidate(current, candidate *promptcanary.Run, margin, alpha float64) *promptcanary.CandidateReport {
	cur, cand := passCounts(current), passCounts(candidate)
	r := &promptcanary.CandidateReport{
		Suite: current.SuiteName, Current: current.Provider.ModelID, Candidate: candidate.Provider.ModelID,
		Margin: margin, Alpha: alpha, Samples: max(current.Samples, 1),
	}
	for _, k := range cur.order {
		c, ok := cand.counts[k]
		if !ok {
			r.NotCompared = append(r.NotCompared, k.String())
			continue
		}
		r.Pairs = append(r.Pairs, promptcanary.CandidatePair{ProbeID: k.ProbeID, PromptID: k.PromptID, Current: cur.counts[k], Candidate: c})
	}
	for _, k := range cand.order {
		if _, ok := cur.counts[k]; !ok {
			r.NotCompared = append(r.NotCompared, k.String())
		}
	}
	classifyCandidate(r.Pairs, margin, alpha)
	s := &r.Summary
	s.Pairs, s.NotCompared = len(r.Pairs), len(r.NotCompared)
	for _, p := range r.Pairs {
		switch p.Verdict {
		case promptcanary.CandidateWorse:
			s.Worse++
		case promptcanary.CandidateBetter:
			s.Better++
			s.NoWorse++
		case promptcanary.CandidateNoWorse:
			s.NoWorse++
		default:
			s.Inconclusive++
		}
	}
	if s.Inconclusive > 0 {
		r.SamplesToShowNoWorse = SamplesToShowNoWorse(margin, alpha)
	}
	return r
}

// pairCounts are the pass counts of a run's pairs, in the order the run
// first shows them.
type pairCounts struct {
	counts map[promptcanary.PairKey]promptcanary.PassCount
	order  []promptcanary.PairKey
}

func passCounts(run *promptcanary.Run) pairCounts {
	pc := pairCounts{counts: map[promptcanary.PairKey]promptcanary.PassCount{}}
	for i := range run.ProbeResults {
		k := run.ProbeResults[i].Key()
		c, seen := pc.counts[k]
		if !seen {
			pc.order = append(pc.order, k)
		}
		c.N++
		if run.ProbeResults[i].Passed {
			c.Passed++
		}
		pc.counts[k] = c
	}
	return pc
}

// classifyCandidate tests every pair for non-inferiority of the candidate
// at margin (a share, 0.05 for 5 points) and fills in its evidence and
// verdict: worse when "Delta ≥ −margin" is rejected, else better when
// "Delta ≤ 0" is, else no worse when "Delta ≤ −margin" is, else
// inconclusive. Each of the three families is adjusted by one
// Benjamini–Hochberg step over all pairs and rejected at q ≤ alpha. The
// margin tests are Chan's exact unconditional test of the
// Farrington–Manning score statistic (see fmExact), the test of "better"
// is Fisher's exact test.
func classifyCandidate(pairs []promptcanary.CandidatePair, margin, alpha float64) {
	pw := make([]float64, len(pairs))
	pn := make([]float64, len(pairs))
	pb := make([]float64, len(pairs))
	for i := range pairs {
		r := &pairs[i]
		cur, cand := r.Current, r.Candidate
		r.Delta, r.Interval[0], r.Interval[1] = newcombe(cur.Passed, cur.N, cand.Passed, cand.N, z95)
		r.PWorse, r.PNoWorse = fmExact(cur, cand, margin)
		r.PBetter = fisherGreater(cur.Passed, cur.N, cand.Passed, cand.N)
		pw[i], pn[i], pb[i] = r.PWorse, r.PNoWorse, r.PBetter
	}
	qw, qn, qb := benjaminiHochberg(pw), benjaminiHochberg(pn), benjaminiHochberg(pb)
	for i := range pairs {
		r := &pairs[i]
		r.QWorse, r.QNoWorse, r.QBetter = qw[i], qn[i], qb[i]
		switch {
		case r.QWorse <= alpha:
			r.Verdict = promptcanary.CandidateWorse
		case r.QBetter <= alpha:
			r.Verdict = promptcanary.CandidateBetter
		case r.QNoWorse <= alpha:
			r.Verdict = promptcanary.CandidateNoWorse
		default:
			r.Verdict = promptcanary.CandidateInconclusive
		}
	}
}

// fmScore returns the Farrington–Manning score statistic of H0:
// p1 − p0 = −margin, for x1 passes of n1 on the candidate (p1) and x0 of
// n0 on the current model (p0): z = (p̂1 − p̂0 + margin) / sqrt(p̃1(1 − p̃1)/n1
// + p̃0(1 − p̃0)/n0), where p̃1, p̃0 = p̃1 + margin maximise the likelihood
// under H0 (the closed form of Farrington and Manning, 1990). Negative z
// speaks for "worse beyond the margin", positive for "no worse".
func fmScore(x1, n1, x0, n0 int, margin float64) float64 {
	p1, p0 := float64(x1)/float64(n1), float64(x0)/float64(n0)
	d := -margin // H0: p1 − p0 = d
	r1, r0 := fmRestricted(x1, n1, x0, n0, d)
	num := p1 - p0 - d
	se := math.Sqrt(r1*(1-r1)/float64(n1) + r0*(1-r0)/float64(n0))
	switch {
	case se > 0:
		return num / se
	case num > tolerance:
		return math.Inf(1)
	case num < -tolerance:
		return math.Inf(-1)
	}
	return 0
}

// fmRestricted returns the rates p̃1, p̃0 = p̃1 − d that maximise the
// likelihood of x1 of n1 and x0 of n0 under p1 − p0 = d: the root of the
// likelihood's cubic in its trigonometric form (Farrington and Manning,
// 1990).
func fmRestricted(x1, n1, x0, n0 int, d float64) (r1, r0 float64) {
	p1, p0 := float64(x1)/float64(n1), float64(x0)/float64(n0)
	theta := float64(n0) / float64(n1)
	a := 1 + theta
	b := -(1 + theta + p1 + theta*p0 + d*(theta+2))
	c := d*d + d*(2*p1+theta+1) + p1 + theta*p0
	e := -p1 * d * (1 + d)
	v := b*b*b/(27*a*a*a) - b*c/(6*a*a) + e/(2*a)
	u := math.Sqrt(math.Max(0, b*b/(9*a*a)-c/(3*a)))
	if v < 0 {
		u = -u
	}
	cosArg := 1.0
	if u != 0 {
		cosArg = math.Max(-1, math.Min(1, v/(u*u*u)))
	}
	w := (math.Pi + math.Acos(cosArg)) / 3
	r1 = math.Max(0, math.Min(1, 2*u*math.Cos(w)-b/(3*a)))
	return r1, math.Max(0, math.Min(1, r1-d))
}

// fmExact returns the one-sided p-values of the Farrington–Manning
// statistic z at the observed counts: worse = P(Z ≤ z) and noWorse =
// P(Z ≥ z), each the supremum over the null boundary p1 = p0 − margin,
// p0 ∈ [margin, 1], of the exact probability of the tables at least as
// extreme (Chan's exact unconditional test, 1998), taken on a grid of the
// nuisance rate p0. Above exactTables tables it returns the normal
// approximation instead.
func fmExact(cur, cand promptcanary.PassCount, margin float64) (worse, noWorse float64) {
	if cur.N == 0 || cand.N == 0 {
		return 1, 1
	}
	zObs := fmScore(cand.Passed, cand.N, cur.Passed, cur.N, margin)
	if (cur.N+1)*(cand.N+1) > exactTables {
		return normalCDF(zObs), normalCDF(-zObs)
	}
	// The statistic of every table, by (x0, x1).
	z := make([]float64, (cur.N+1)*(cand.N+1))
	for x0 := 0; x0 <= cur.N; x0++ {
		for x1 := 0; x1 <= cand.N; x1++ {
			z[x0*(cand.N+1)+x1] = fmScore(x1, cand.N, x0, cur.N, margin)
		}
	}
	var b0, b1 []float64
	for i := 0; i <= nuisanceGrid; i++ {
		p0 := margin + (1-margin)*float64(i)/nuisanceGrid
		b0 = binomPMFs(cur.N, p0, b0)
		b1 = binomPMFs(cand.N, math.Max(0, p0-margin), b1)
		var lo, hi float64
		for x0, w0 := range b0 {
			if w0 == 0 {
				continue
			}
			row := z[x0*(cand.N+1):]
			for x1, w1 := range b1 {
				if row[x1] <= zObs+tolerance {
					lo += w0 * w1
				}
				if row[x1] >= zObs-tolerance {
					hi += w0 * w1
				}
			}
		}
		worse, noWorse = max(worse, lo), max(noWorse, hi)
	}
	return min(worse, 1), min(noWorse, 1)
}

// SamplesToShowNoWorse returns the smallest number of samples per prompt
// on each model with which a pair that passes every sample on both is
// shown no worse at margin and alpha on its own (p ≤ alpha); a pair whose
// candidate fails some samples needs more. It returns 0
// when more than 200 would be needed (beyond the exact test's reach).
func SamplesToShowNoWorse(margin, alpha float64) int {
	if margin <= 0 || margin >= 1 || alpha <= 0 {
		return 0
	}
	// At p0 = 1 only the table of all passes counts, so (1 − margin)^n ≤
	// alpha is necessary; the supremum may lie below p0 = 1 and need more.
	shown := func(n int) bool {
		all := promptcanary.PassCount{Passed: n, N: n}
		_, p := fmExact(all, all, margin)
		return p <= alpha
	}
	lo, hi := max(2, int(math.Ceil(math.Log(alpha)/math.Log1p(-margin)))), 200
	if lo > hi || !shown(hi) {
		return 0
	}
	// p falls as n grows: bisect for the first n that shows it.
	for lo < hi {
		if mid := (lo + hi) / 2; shown(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// DropBeyond returns the one-sided p-value of "the pass rate fell by more
// than margin" (H0: p_cur ≥ p_base − margin, margin a share) for a pair's
// pass counts before (base) and after (cur): Chan's exact unconditional
// test of the Farrington–Manning statistic, the test a candidate
// comparison calls "worse". With margin 0 it tests any drop; a margin
// outside [0, 1] is taken as the nearest bound.
func DropBeyond(base, cur promptcanary.PassCount, margin float64) float64 {
	worse, _ := fmExact(base, cur, max(0, min(margin, 1)))
	return worse
}
