package drift

import (
	"math"
	"sort"
)

// identityMaxStates bounds the labellings enumerated per prompt by
// enumerate: a prompt with more falls back to drawing its permutations.
// A variable for the tests.
var identityMaxStates = 512

// identityNull is the exact permutation distribution of one prompt's
// statistic: its values and their cumulative probabilities.
type identityNull struct {
	values, cdf []float64
}

// enumerate returns the exact permutation distribution of the prompt's
// statistic, or nil when it has more than identityMaxStates outcomes. The
// statistic depends on a labelling only through how many answers of each
// distinct text the smaller side holds, and a uniform relabelling makes
// those counts multivariate hypergeometric: a prompt whose answers are a
// few texts has few outcomes, and a permutation then costs one draw
// instead of one per answer.
func (p *identityPrompt) enumerate() *identityNull {
	m, n := min(p.nb, p.nc), p.nb+p.nc
	if p.outcomes(m) > identityMaxStates {
		return nil
	}
	null := &identityNull{}
	touched := make([]int32, 0, p.g)
	lnAll := lnChoose(n, m)
	// rest[g] is how many answers the texts after g hold.
	rest := make([]int, p.g+1)
	for g := p.g - 1; g >= 0; g-- {
		rest[g] = rest[g+1] + int(p.sizes[g])
	}
	var walk func(g, left int, lnw float64) bool
	walk = func(g, left int, lnw float64) bool {
		if g == p.g {
			if len(null.values) == identityMaxStates {
				return false
			}
			touched = touched[:0]
			for t := range p.g {
				if p.count[t] > 0 {
					touched = append(touched, int32(t))
				}
			}
			null.values = append(null.values, p.fromCounts(touched))
			null.cdf = append(null.cdf, math.Exp(lnw-lnAll))
			return true
		}
		size := int(p.sizes[g])
		for c := max(0, left-rest[g+1]); c <= min(size, left); c++ {
			p.count[g] = int32(c)
			if !walk(g+1, left-c, lnw+lnChoose(size, c)) {
				return false
			}
		}
		p.count[g] = 0
		return true
	}
	ok := walk(0, m, 0)
	clear(p.count)
	if !ok {
		return nil
	}
	sum := 0.0
	for i, w := range null.cdf {
		sum += w
		null.cdf[i] = sum
	}
	return null
}

// draw draws the statistic of a uniform relabelling.
func (d *identityNull) draw(rng *pcg) float64 {
	u := float64(rng.Uint64()>>11) / (1 << 53) * d.cdf[len(d.cdf)-1]
	i := sort.SearchFloat64s(d.cdf, u)
	return d.values[min(i, len(d.values)-1)]
}

// lnChoose is the logarithm of the binomial coefficient n over k.
func lnChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// outcomes counts the count vectors a smaller side of m answers can hold
// (at most identityMaxStates + 1): ways[k] counts those of the texts so
// far that hold k answers.
func (p *identityPrompt) outcomes(m int) int {
	ways := make([]int, m+1)
	next := make([]int, m+1)
	ways[0] = 1
	for _, size := range p.sizes {
		clear(next)
		for k, w := range ways {
			for c := 0; c <= int(size) && k+c <= m; c++ {
				next[k+c] = min(next[k+c]+w, identityMaxStates+1)
			}
		}
		ways, next = next, ways
	}
	return ways[m]
}
