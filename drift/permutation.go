package drift

import (
	"math"
	"math/rand/v2"
	"slices"
)

// stratum holds the integer response scores (probes passed per response) of
// one prompt on both sides.
type stratum struct {
	base, cur []int
}

// permResult is the outcome of the stratified permutation test.
type permResult struct {
	stat     float64 // observed sum of current response scores
	p, minP  float64
	how      string
	variance float64 // null variance of the statistic
}

// stratifiedPermutationLess is the suite test: the statistic is the sum of
// the current responses' scores, and its null distribution permutes the
// baseline/current labels of whole responses within each prompt, which
// keeps the correlation between probes judging the same text. The
// permutation distribution is enumerated exactly by a dynamic program over
// the distinct response scores of each prompt (a multivariate
// hypergeometric) and convolved across prompts; only when that program is
// too large are seeded random permutations drawn. When the tie-corrected
// normal approximation puts p above normalSkip, that value is reported.
func stratifiedPermutationLess(strata []stratum, perms int, rng *rand.Rand) permResult {
	var res permResult
	mean, obs := 0.0, 0
	minP := 1.0
	for _, s := range strata {
		n, k := len(s.base)+len(s.cur), len(s.cur)
		if n < 2 || k == 0 || k == n {
			for _, v := range s.cur {
				obs += v
			}
			continue
		}
		all := make([]int, 0, n)
		all = append(all, s.base...)
		all = append(all, s.cur...)
		var sum, sq float64
		for _, v := range all {
			sum += float64(v)
			sq += float64(v) * float64(v)
		}
		mu := sum / float64(n)
		pv := sq/float64(n) - mu*mu
		mean += float64(k) * mu
		res.variance += float64(k) * float64(n-k) / float64(n-1) * pv
		for _, v := range s.cur {
			obs += v
		}
		// The smallest sum takes the k lowest scores: every score below the
		// cut value and r of the m scores equal to it.
		slices.Sort(all)
		cut := all[k-1]
		m, r := 0, 0
		for i, v := range all {
			if v == cut {
				m++
				if i < k {
					r++
				}
			}
		}
		minP *= math.Exp(logChoose(m, r) - logChoose(n, k))
	}
	res.stat, res.minP = float64(obs), minP
	if res.variance <= 1e-12 {
		res.p, res.how = 1, howExact
		return res
	}
	if pn := normalCDF((float64(obs) - mean + 0.5) / math.Sqrt(res.variance)); pn > normalSkip {
		res.p, res.how = pn, howNormal
		return res
	}
	if p, ok := permExact(strata, obs); ok {
		res.p, res.how = p, howExact
		return res
	}
	res.p, res.how = permMonteCarlo(strata, obs, perms, rng), howPermutation
	return res
}

// permExact enumerates the stratified permutation distribution of the sum
// and returns P(sum ≤ obs), or false when the program is too large.
func permExact(strata []stratum, obs int) (float64, bool) {
	dist := []float64{1}
	var spare []float64 // the previous distribution's memory, for the next
	base := 0
	for _, s := range strata {
		n, k := len(s.base)+len(s.cur), len(s.cur)
		if k == 0 {
			continue
		}
		counts, lo, hi := stratumCounts(s)
		if k == n || lo == hi {
			for _, v := range s.cur {
				base += v
			}
			continue
		}
		w := k*(hi-lo) + 1
		if (k+1)*w*n > exactWork {
			return 0, false
		}
		pcur, pnext, sd := stratumSumDist(counts, n, k, lo, w)
		dist, spare = convolveInto(dist, sd, spare)
		base += k * lo
		putFloats(pcur, pnext)
	}
	x := obs - base
	if x < 0 {
		return 0, true
	}
	p := 0.0
	for i := 0; i <= x && i < len(dist); i++ {
		p += dist[i]
	}
	return min(1, p), true
}

// stratumCounts returns the distinct values of a stratum with their
// multiplicities, and the smallest and largest value.
func stratumCounts(s stratum) (counts map[int]int, lo, hi int) {
	counts = map[int]int{}
	lo, hi = math.MaxInt, math.MinInt
	for _, v := range s.base {
		counts[v]++
		lo, hi = min(lo, v), max(hi, v)
	}
	for _, v := range s.cur {
		counts[v]++
		lo, hi = min(lo, v), max(hi, v)
	}
	return counts, lo, hi
}

// stratumSumDist returns the distribution of the sum − k·lo of k values
// drawn without replacement from the n values counted in counts, as sd of
// width w. It runs over the value groups with the state (chosen j,
// sum − j·lo); sd lies in pooled memory that the caller returns with
// putFloats(pcur, pnext) once done with it.
func stratumSumDist(counts map[int]int, n, k, lo, w int) (pcur, pnext *[]float64, sd []float64) {
	vals := make([]int, 0, len(counts))
	for v := range counts {
		vals = append(vals, v)
	}
	slices.Sort(vals)
	pcur, pnext = zeroFloats((k+1)*w), zeroFloats((k+1)*w)
	cur, next := *pcur, *pnext
	cur[0] = 1
	rest := n
	for _, v := range vals {
		mv := counts[v]
		clear(next)
		for j := 0; j <= k; j++ {
			need := k - j
			if need > rest {
				continue
			}
			row := cur[j*w : (j+1)*w]
			lden := logChoose(rest, need)
			for c := 0; c <= min(mv, need); c++ {
				if need-c > rest-mv {
					continue
				}
				pr := math.Exp(logChoose(mv, c) + logChoose(rest-mv, need-c) - lden)
				add := c * (v - lo)
				nrow := next[(j+c)*w : (j+c+1)*w]
				for t := 0; t+add < w; t++ {
					if row[t] != 0 {
						nrow[t+add] += row[t] * pr
					}
				}
			}
		}
		cur, next = next, cur
		rest -= mv
	}
	return pcur, pnext, cur[k*w:]
}

// convolveInto returns the convolution of dist and sd, and dist's memory
// as the spare for the next call. The convolution grows by each stratum:
// in two buffers used in turn, not a new one per stratum (hundreds of
// prompts).
func convolveInto(dist, sd, spare []float64) (out, nextSpare []float64) {
	need := len(dist) + len(sd) - 1
	if cap(spare) < need {
		spare = make([]float64, 0, max(need, 2*cap(spare)))
	}
	nd := spare[:need]
	clear(nd)
	for i, a := range dist {
		if a == 0 {
			continue
		}
		for j, b := range sd {
			if b != 0 {
				nd[i+j] += a * b
			}
		}
	}
	return nd, dist
}

// permMonteCarlo draws seeded within-prompt permutations and returns
// (1 + #{sum ≤ obs}) / (1 + perms).
func permMonteCarlo(strata []stratum, obs, perms int, rng *rand.Rand) float64 {
	pools := make([][]int, len(strata))
	for i, s := range strata {
		pools[i] = append(append([]int(nil), s.base...), s.cur...)
	}
	hits := 0
	for b := 0; b < perms; b++ {
		sum := 0
		for i, s := range strata {
			pool, k := pools[i], len(s.cur)
			for j := 0; j < k; j++ {
				r := j + rng.IntN(len(pool)-j)
				pool[j], pool[r] = pool[r], pool[j]
				sum += pool[j]
			}
		}
		if sum <= obs {
			hits++
		}
	}
	return float64(1+hits) / float64(1+perms)
}
