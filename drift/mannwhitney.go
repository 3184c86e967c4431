package drift

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
)

// Ways of obtaining a p-value, recorded in TestedUnit.Test.
const (
	howExact       = "exact"
	howPermutation = "permutation"
	howNormal      = "normal"
)

// normalSkip is the normal-approximation p-value above which an exact
// computation is skipped: no unit with p > 0.1 can be rejected at any
// Benjamini–Hochberg level of at most 0.05, and the exact and approximate
// lower tails of the statistics used here differ by far less than that.
const normalSkip = 0.1

// exactWork bounds the work of one exact dynamic program; larger problems
// fall back to seeded Monte Carlo permutations.
const exactWork = 8_000_000

// quantKey rounds a score onto a 1e-9 grid so that ties survive floating
// point error (0.85 + 0.05 equals 0.9).
func quantKey(v float64) int64 { return int64(math.Round(v * 1e9)) }

// mwItem is one observation of the pooled sample.
type mwItem struct {
	key int64
	cur bool
}

// mwResult is the outcome of a one-sided Mann–Whitney test.
type mwResult struct {
	u    float64 // U of the current sample: pairs it wins, ties count half
	p    float64
	minP float64
	how  string
}

// mannWhitneyLess tests whether the current scores are stochastically
// smaller than the baseline's by more than margin: it compares cur+margin
// with base, so it rejects only when the current scores are lower by more
// than the margin. The p-value is exact (a dynamic program over tie groups)
// when it is small enough to matter and the program is small, by seeded
// permutations when the program is too large, and from the tie-corrected
// normal approximation when it is above normalSkip.
func mannWhitneyLess(base, cur []float64, margin float64, perms int, rng *rand.Rand) mwResult {
	nb, nc := len(base), len(cur)
	if nb == 0 || nc == 0 {
		return mwResult{p: 1, minP: 1, how: howExact}
	}
	sizes, curIn := mwTieGroups(base, cur, margin)
	u2, u2min := mwU2(sizes, curIn, nc)
	res := mwResult{u: float64(u2) / 2}
	n := float64(nb + nc)
	tie := 0.0
	for _, s := range sizes {
		t := float64(s)
		tie += t*t*t - t
	}
	variance := float64(nb) * float64(nc) / 12 * ((n + 1) - tie/(n*(n-1)))
	if variance <= 0 {
		res.p, res.minP, res.how = 1, 1, howExact
		return res
	}
	// The smallest achievable p-value, for screening, comes from the
	// pooled scores as observed (without the margin), which any relabelling
	// of the samples leaves unchanged: a pair whose scores never vary cannot
	// show a drop, whatever the margin does to the ties.
	if margin != 0 {
		sizes2 := pooledTieSizes(base, cur)
		if len(sizes2) < 2 {
			res.p, res.minP, res.how = 1, 1, howExact
			return res
		}
		res.minP = mwLowerTail(sizes2, nc, minU2(sizes2, nc), exactWork)
	} else {
		res.minP = mwLowerTail(sizes, nc, u2min, exactWork)
	}
	if math.IsNaN(res.minP) {
		res.minP = 1 / float64(perms+1)
	}
	mean := float64(nb) * float64(nc) / 2
	if pn := normalCDF((res.u - mean + 0.5) / math.Sqrt(variance)); pn > normalSkip {
		res.p, res.how = pn, howNormal
		return res
	}
	if p := mwLowerTail(sizes, nc, u2, exactWork); !math.IsNaN(p) {
		res.p, res.how = p, howExact
		return res
	}
	res.p, res.how = mwPermutation(sizes, nc, u2, perms, rng), howPermutation
	return res
}

// pooledTieSizes returns the sizes of the ascending tie groups of the
// pooled scores of both samples.
func pooledTieSizes(base, cur []float64) []int {
	keys := make([]int64, 0, len(base)+len(cur))
	for _, v := range base {
		keys = append(keys, quantKey(v))
	}
	for _, v := range cur {
		keys = append(keys, quantKey(v))
	}
	slices.Sort(keys)
	var sizes []int
	for i := 0; i < len(keys); {
		j := i
		for j < len(keys) && keys[j] == keys[i] {
			j++
		}
		sizes = append(sizes, j-i)
		i = j
	}
	return sizes
}

// minU2 returns the smallest 2U of nc current items among tie groups of the
// given sizes: the current sample on the lowest items.
func minU2(sizes []int, nc int) int {
	u2, seen, left := 0, 0, nc
	for _, s := range sizes {
		k := min(left, s)
		u2 += k * (2*(seen-(nc-left)) + s - k)
		left -= k
		seen += s
	}
	return u2
}

func sumInts(v []int) int {
	s := 0
	for _, x := range v {
		s += x
	}
	return s
}

// mwLowerTail returns P(2U ≤ u2obs) under the null that the current sample
// is a uniformly random subset of size nc of the pooled items, grouped in
// ascending tie groups of the given sizes. Choosing k current items from a
// group of size s, after j current items among the seen earlier items,
// adds k(2(seen−j) + s − k) to 2U, and has the multivariate hypergeometric
// probability C(s,k) C(rest−s, nc−j−k) / C(rest, nc−j). States above
// u2obs are pruned, so small tails are cheap. It returns NaN when the
// program would exceed work.
func mwLowerTail(sizes []int, nc, u2obs, work int) float64 {
	if u2obs < 0 {
		return 0
	}
	w := u2obs + 1
	if (nc+1)*w*len(sizes) > work {
		return math.NaN()
	}
	pcur, pnext := zeroFloats((nc+1)*w), zeroFloats((nc+1)*w)
	defer putFloats(pcur, pnext)
	cur, next := *pcur, *pnext
	// lo[j]..hi[j] bound the live states of row j (hi < lo: none).
	lo := make([]int, nc+1)
	hi := make([]int, nc+1)
	nlo := make([]int, nc+1)
	nhi := make([]int, nc+1)
	for j := range lo {
		lo[j], hi[j] = w, -1
	}
	cur[0], lo[0], hi[0] = 1, 0, 0
	seen := 0
	total := sumInts(sizes)
	for _, s := range sizes {
		for j := range nlo {
			if nhi[j] >= nlo[j] {
				clear(next[j*w+nlo[j] : j*w+nhi[j]+1])
			}
			nlo[j], nhi[j] = w, -1
		}
		rest := total - seen
		for j := 0; j <= nc; j++ {
			if hi[j] < lo[j] {
				continue
			}
			row := cur[j*w : (j+1)*w]
			need := nc - j
			if need > rest {
				continue
			}
			lden := logChoose(rest, need)
			for k := 0; k <= min(s, need); k++ {
				if need-k > rest-s {
					continue
				}
				add := k * (2*(seen-j) + s - k)
				if lo[j]+add >= w {
					continue
				}
				pr := math.Exp(logChoose(s, k) + logChoose(rest-s, need-k) - lden)
				nrow := next[(j+k)*w : (j+k+1)*w]
				top := min(hi[j], w-1-add)
				for u := lo[j]; u <= top; u++ {
					nrow[u+add] += row[u] * pr
				}
				nlo[j+k] = min(nlo[j+k], lo[j]+add)
				nhi[j+k] = max(nhi[j+k], top+add)
			}
		}
		cur, next = next, cur
		lo, nlo = nlo, lo
		hi, nhi = nhi, hi
		seen += s
	}
	p := 0.0
	for _, v := range cur[nc*w:] {
		p += v
	}
	return min(1, p)
}

// mwPermutation estimates P(2U ≤ u2obs) from seeded random subsets:
// (1 + hits) / (1 + perms).
func mwPermutation(sizes []int, nc, u2obs, perms int, rng *rand.Rand) float64 {
	// Twice the midrank of each pooled item; 2U = Σ 2·midrank − nc(nc+1).
	var ranks []int
	pos := 0
	for _, s := range sizes {
		r2 := 2*pos + s + 1
		for i := 0; i < s; i++ {
			ranks = append(ranks, r2)
		}
		pos += s
	}
	hits := 0
	n := len(ranks)
	for b := 0; b < perms; b++ {
		sum := 0
		for i := 0; i < nc; i++ {
			j := i + rng.IntN(n-i)
			ranks[i], ranks[j] = ranks[j], ranks[i]
			sum += ranks[i]
		}
		if sum-nc*(nc+1) <= u2obs {
			hits++
		}
	}
	return float64(1+hits) / float64(1+perms)
}

// hodgesLehmann returns the Hodges–Lehmann estimate of the shift of cur
// relative to base (the median of all differences cur_i − base_j) and its
// approximate 95% distribution-free interval.
func hodgesLehmann(base, cur []float64, buf []float64) (shift, lo, hi float64, out []float64) {
	nb, nc := len(base), len(cur)
	d := buf[:0]
	for _, x := range cur {
		for _, y := range base {
			d = append(d, x-y)
		}
	}
	if len(d) == 0 {
		return 0, 0, 0, d
	}
	slices.Sort(d)
	m := len(d)
	if m%2 == 1 {
		shift = d[m/2]
	} else {
		shift = (d[m/2-1] + d[m/2]) / 2
	}
	n := float64(nb + nc)
	k := int(math.Floor(float64(m)/2 - z95*math.Sqrt(float64(nb)*float64(nc)*(n+1)/12)))
	k = max(0, min(k, m-1))
	return shift, d[k], d[m-1-k], d
}

// median returns the median of v, sorting a copy into buf.
func median(v []float64, buf []float64) (float64, []float64) {
	buf = append(buf[:0], v...)
	if len(buf) == 0 {
		return 0, buf
	}
	slices.Sort(buf)
	m := len(buf)
	if m%2 == 1 {
		return buf[m/2], buf
	}
	return (buf[m/2-1] + buf[m/2]) / 2, buf
}

// normalCDF is the standard normal distribution function.
func normalCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// normalQuantile is the inverse of normalCDF.
func normalQuantile(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }

// mwTieGroups sorts base and cur+margin together and returns the sizes of
// the ascending tie groups and how many current items each holds.
func mwTieGroups(base, cur []float64, margin float64) (sizes, curIn []int) {
	items := make([]mwItem, 0, len(base)+len(cur))
	for _, v := range base {
		items = append(items, mwItem{key: quantKey(v)})
	}
	for _, v := range cur {
		items = append(items, mwItem{key: quantKey(v + margin), cur: true})
	}
	slices.SortFunc(items, func(a, b mwItem) int { return cmp.Compare(a.key, b.key) })
	// Tie groups: sizes and current counts.
	for i := 0; i < len(items); {
		j, c := i, 0
		for ; j < len(items) && items[j].key == items[i].key; j++ {
			if items[j].cur {
				c++
			}
		}
		sizes = append(sizes, j-i)
		curIn = append(curIn, c)
		i = j
	}
	return sizes, curIn
}

// mwU2 returns the observed 2U of tie groups (sizes, curIn) with nc
// current items, and the smallest possible 2U (current on the lowest
// items).
func mwU2(sizes, curIn []int, nc int) (u2, u2min int) {
	seen, curSeen, left := 0, 0, nc
	for g, s := range sizes {
		c := curIn[g]
		u2 += c * (2*(seen-curSeen) + s - c)
		k := min(left, s)
		u2min += k * (2*(seen-(nc-left)) + s - k)
		left -= k
		seen += s
		curSeen += c
	}
	return u2, u2min
}
