package drift

import (
	"math"
	"sync"
)

// targetPower is the power at which minimum detectable drops are quoted.
const targetPower = 0.8

// regionKey identifies a rejection region of the one-sided Fisher test.
type regionKey struct {
	nb, nc int
	level  float64
}

// mddKey identifies a minimum detectable drop.
type mddKey struct {
	region regionKey
	bPass  int
}

// powerCache memoises rejection regions and minimum detectable drops: they
// depend only on sample sizes, the baseline count and the level, and the
// same few combinations recur in every comparison.
var powerCache = struct {
	sync.Mutex
	regions map[regionKey][]int
	drops   map[mddKey]float64
}{regions: map[regionKey][]int{}, drops: map[mddKey]float64{}}

const powerCacheMax = 1 << 14

// remember stores v under k in m, one of the maps of powerCache, emptying
// m first when it holds more than powerCacheMax entries.
func remember[K comparable, V any](m map[K]V, k K, v V) {
	powerCache.Lock()
	if len(m) > powerCacheMax {
		clear(m)
	}
	m[k] = v
	powerCache.Unlock()
}

// fisherRegion returns, for each baseline count a in 0..nb, the largest
// current count the one-sided Fisher test rejects at level (−1 if none).
func fisherRegion(k regionKey) []int {
	powerCache.Lock()
	r, ok := powerCache.regions[k]
	powerCache.Unlock()
	if ok {
		return r
	}
	r = make([]int, k.nb+1)
	for a := 0; a <= k.nb; a++ {
		r[a] = -1
		for c := 0; c <= k.nc; c++ {
			p, _ := fisherLess(a, k.nb, c, k.nc)
			if p > k.level {
				break
			}
			r[a] = c
		}
	}
	remember(powerCache.regions, k, r)
	return r
}

// binomPMFs returns the Binomial(n, p) probabilities of 0..n.
func binomPMFs(n int, p float64, dst []float64) []float64 {
	dst = dst[:0]
	for x := 0; x <= n; x++ {
		var v float64
		switch {
		case p <= 0:
			v = b2f(x == 0)
		case p >= 1:
			v = b2f(x == n)
		default:
			v = math.Exp(logChoose(n, x) + float64(x)*math.Log(p) + float64(n-x)*math.Log1p(-p))
		}
		dst = append(dst, v)
	}
	return dst
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// minDetectableDrop returns the smallest drop of a pair's pass rate from
// the observed baseline rate bPass/nb that the one-sided Fisher test at
// level detects with power 0.8 when nc current samples are taken, computed
// exactly from the test's rejection region. It returns +Inf when no drop
// is detectable and NaN when the baseline never passed.
func minDetectableDrop(bPass, nb, nc int, level float64) float64 {
	if bPass == 0 || nb == 0 || nc == 0 {
		return math.NaN()
	}
	key := mddKey{regionKey{nb, nc, level}, bPass}
	powerCache.Lock()
	d, ok := powerCache.drops[key]
	powerCache.Unlock()
	if ok {
		return d
	}
	region := fisherRegion(key.region)
	pb := float64(bPass) / float64(nb)
	wb := binomPMFs(nb, pb, nil)
	var wc []float64
	power := func(pc float64) float64 {
		wc = binomPMFs(nc, pc, wc)
		pw := 0.0
		for a, c := range region {
			if c < 0 || wb[a] == 0 {
				continue
			}
			cdf := 0.0
			for x := 0; x <= c; x++ {
				cdf += wc[x]
			}
			pw += wb[a] * cdf
		}
		return pw
	}
	switch {
	case power(0) < targetPower:
		d = math.Inf(1)
	default:
		lo, hi := 0.0, pb // power(pb−lo) < target ≤ power(pb−hi)
		for range 30 {
			mid := (lo + hi) / 2
			if power(pb-mid) >= targetPower {
				hi = mid
			} else {
				lo = mid
			}
		}
		d = hi
	}
	remember(powerCache.drops, key, d)
	return d
}

// suiteMinDetectableDrop returns the uniform drop of every pair's pass rate
// that the suite test at level detects with power 0.8, by the normal
// approximation: the drop lowers the expected statistic by drop × weight
// (the number of current pair observations) against the null standard
// deviation of the statistic.
func suiteMinDetectableDrop(variance, weight, level float64) float64 {
	if variance <= 0 || weight <= 0 {
		return 0
	}
	z := normalQuantile(1-level) + normalQuantile(targetPower)
	return z * math.Sqrt(variance) / weight
}

// PairDetectableDrop returns the smallest drop of a pair's pass rate (a
// fraction, 0.3 = 30 points) that the pair's own one-sided Fisher test at
// level detects with power 0.8, for a pair that passed all of its
// baselineSamples baseline samples and is measured on currentSamples
// current ones: what a baseline of that size lets a compare see. It
// returns +Inf when no drop is detectable at these sample sizes.
func PairDetectableDrop(baselineSamples, currentSamples int, level float64) float64 {
	if baselineSamples < 1 || currentSamples < 1 {
		return math.Inf(1)
	}
	return minDetectableDrop(baselineSamples, baselineSamples, currentSamples, level)
}
