package drift

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/promptcanary/promptcanary"
)

// RunRate is one run's rate of a unit (the mean of its pairs' pass rates)
// and the binomial variance of that rate: the part of its spread that
// comes from sampling answers, not from the run's hour.
type RunRate struct {
	Rate float64
	Var  float64
}

// RunLevelTest is the run-level (components-of-variance) test of one unit:
// current runs against the run-to-run spread of reference runs. With the
// reference runs' rates r_1..r_k (mean m, standard deviation s, mean
// binomial variance v̄_b) and n current runs (mean rate c̄, mean binomial
// variance v̄_c), the between-run variance is τ² = max(0, s² − v̄_b) and
//
//	t = (m − c̄) / √(τ²/n + v̄_c/n + s²/k),  df = k − 1,
//
// one-sided: P is the chance of a t this large when nothing drifted,
// from Student's t distribution by the regularized incomplete beta.
type RunLevelTest struct {
	K, N      int     // reference and current runs
	Reference float64 // m, the reference runs' mean rate
	Current   float64 // c̄, the current runs' mean rate
	SD        float64 // s, the reference runs' run-to-run standard deviation
	Tau2      float64 // τ², the between-run variance beyond sampling
	SE        float64 // the denominator of t
	T         float64 // (m − c̄)/SE; +Inf or −Inf when SE is 0 and the means differ
	DF        int     // k − 1
	P         float64 // one-sided P(T_df ≥ t)
}

// errRunLevel is the cause every refused RunLevel input wraps.
var errRunLevel = errors.New("run-level test")

// RunLevel tests whether the mean rate of the current runs cur is below
// the reference runs' ref by more than their run-to-run spread allows
// (see RunLevelTest). It needs at least 2 reference runs and 1 current
// run, rates in [0, 1] (or differences of rates in [−1, 1], see
// ArmDifference) and variances ≥ 0.
func RunLevel(ref, cur []RunRate) (RunLevelTest, error) {
	if len(ref) < 2 {
		return RunLevelTest{}, fmt.Errorf("%w: %d reference runs: need at least 2 to know their spread", errRunLevel, len(ref))
	}
	if len(cur) < 1 {
		return RunLevelTest{}, fmt.Errorf("%w: no current run", errRunLevel)
	}
	if err := checkRunRates("reference", ref); err != nil {
		return RunLevelTest{}, err
	}
	if err := checkRunRates("current", cur); err != nil {
		return RunLevelTest{}, err
	}
	k, n := float64(len(ref)), float64(len(cur))
	m, vb := meanRunRate(ref)
	c, vc := meanRunRate(cur)
	var ss float64
	for _, r := range ref {
		ss += (r.Rate - m) * (r.Rate - m)
	}
	s2 := ss / (k - 1)
	res := RunLevelTest{K: len(ref), N: len(cur), Reference: m, Current: c, SD: math.Sqrt(s2), DF: len(ref) - 1}
	res.Tau2 = max(0, s2-vb)
	res.SE = math.Sqrt(res.Tau2/n + vc/n + s2/k)
	switch d := m - c; {
	case res.SE > 0:
		res.T = d / res.SE
	case d > 0:
		res.T = math.Inf(1)
	case d < 0:
		res.T = math.Inf(-1)
	}
	res.P = StudentUpper(res.T, float64(res.DF))
	return res, nil
}

func checkRunRates(side string, rs []RunRate) error {
	for i, r := range rs {
		if !(r.Rate >= -1 && r.Rate <= 1) {
			return fmt.Errorf("%w: %s run %d: rate %v is not in [−1, 1]", errRunLevel, side, i+1, r.Rate)
		}
		if !(r.Var >= 0) || math.IsInf(r.Var, 1) {
			return fmt.Errorf("%w: %s run %d: variance %v is not a finite number ≥ 0", errRunLevel, side, i+1, r.Var)
		}
	}
	return nil
}

// meanRunRate returns the mean rate and the mean variance of rs.
func meanRunRate(rs []RunRate) (rate, v float64) {
	for _, r := range rs {
		rate += r.Rate
		v += r.Var
	}
	n := float64(len(rs))
	return rate / n, v / n
}

// StudentUpper returns P(T > t) for Student's t distribution with df > 0
// degrees of freedom: ½·I_{df/(df+t²)}(df/2, ½) for t ≥ 0, by the
// regularized incomplete beta function; 0 at +Inf, 1 at −Inf.
func StudentUpper(t, df float64) float64 {
	switch {
	case math.IsNaN(t) || !(df > 0):
		return math.NaN()
	case math.IsInf(t, 1):
		return 0
	case math.IsInf(t, -1):
		return 1
	}
	p := 0.5 * regIncBeta(df/2, 0.5, df/(df+t*t))
	if t < 0 {
		return 1 - p
	}
	return p
}

// regIncBeta is the regularized incomplete beta function I_x(a, b) for
// a, b > 0, by its continued fraction (modified Lentz), taken on the side
// of x where it converges fast.
func regIncBeta(a, b, x float64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

// betaCF evaluates the continued fraction of I_x(a, b).
func betaCF(a, b, x float64) float64 {
	const tiny = 1e-300
	guard := func(v float64) float64 {
		if math.Abs(v) < tiny {
			return tiny
		}
		return v
	}
	c, d := 1.0, 1/guard(1-(a+b)*x/(a+1))
	h := d
	for m := 1; m <= 500; m++ {
		fm := float64(m)
		num := fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm))
		d = 1 / guard(1+num*d)
		c = guard(1 + num/c)
		h *= d * c
		num = -(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1))
		d = 1 / guard(1+num*d)
		c = guard(1 + num/c)
		del := d * c
		h *= del
		if math.Abs(del-1) < 1e-15 {
			break
		}
	}
	return h
}

// PairRates returns each (probe, prompt) pair's pass rate in results: the
// reference rates SuiteRunRate weighs a run's binomial variance with.
func PairRates(results []promptcanary.ProbeResult) map[promptcanary.PairKey]float64 {
	pass, n := pairTallies(results)
	out := make(map[promptcanary.PairKey]float64, len(n))
	for k, c := range n {
		out[k] = float64(pass[k]) / float64(c)
	}
	return out
}

func pairTallies(results []promptcanary.ProbeResult) (pass, n map[promptcanary.PairKey]int) {
	pass, n = map[promptcanary.PairKey]int{}, map[promptcanary.PairKey]int{}
	for i := range results {
		k := results[i].Key()
		n[k]++
		if results[i].Passed {
			pass[k]++
		}
	}
	return pass, n
}

// SuiteRunRate returns one run's suite-level rate, the mean of its pairs'
// pass rates (so a run sampled adaptively, with more samples where a
// prompt looked worse, does not weigh its bad prompts more), and the
// binomial variance of that rate, Σ p_j(1 − p_j)/n_j / P² over its P pairs
// with results, p_j the pair's reference rate from ref (the run's own when
// ref has none). ok is false when the run has no results.
func SuiteRunRate(results []promptcanary.ProbeResult, ref map[promptcanary.PairKey]float64) (r RunRate, ok bool) {
	pass, n := pairTallies(results)
	var acc suiteRate
	// In a fixed order, so that the same run gives the same bits.
	for _, k := range slices.SortedFunc(maps.Keys(n), comparePairKeys) {
		p, found := ref[k]
		if !found {
			p = float64(pass[k]) / float64(n[k])
		}
		acc.add(pass[k], n[k], p)
	}
	return acc.rate()
}

// suiteRate accumulates a run's pairs into its suite rate and variance.
type suiteRate struct {
	sum, v float64
	pairs  int
}

// add counts a pair with pass of n results passed, whose reference rate
// is p; a pair without results is left out.
func (a *suiteRate) add(pass, n int, p float64) {
	if n == 0 {
		return
	}
	a.sum += float64(pass) / float64(n)
	a.v += p * (1 - p) / float64(n)
	a.pairs++
}

// rate returns the suite rate; ok is false when no pair was added.
func (a *suiteRate) rate() (r RunRate, ok bool) {
	if a.pairs == 0 {
		return RunRate{}, false
	}
	p := float64(a.pairs)
	return RunRate{Rate: a.sum / p, Var: a.v / (p * p)}, true
}

// runSpread measures the suite's change against the run-to-run spread of
// a baseline that pools two or more runs (runs, its Runs record) over the
// pairs compared; nil for a baseline of one run, or when fewer than two of
// its runs or no current result fall on those pairs.
func runSpread(runs []promptcanary.BaselineRun, idx *index) *promptcanary.RunSpread {
	if len(runs) < 2 {
		return nil
	}
	perRun := make([]suiteRate, len(runs))
	var cur suiteRate
	pass, n := make([]int, len(runs)), make([]int, len(runs))
	for _, pd := range idx.pairs {
		if !pd.measured() || pd.base.n() == 0 {
			continue
		}
		clear(pass)
		clear(n)
		for i, smp := range pd.base.samples {
			if r := runOfSample(runs, int(smp)); r >= 0 {
				n[r]++
				if pd.base.passed[i] {
					pass[r]++
				}
			}
		}
		p := float64(pd.base.passes) / float64(pd.base.n())
		for r := range runs {
			perRun[r].add(pass[r], n[r], p)
		}
		cur.add(pd.cur.passes, pd.cur.n(), p)
	}
	var ref []RunRate
	for r := range perRun {
		if rr, ok := perRun[r].rate(); ok {
			ref = append(ref, rr)
		}
	}
	c, ok := cur.rate()
	if !ok || len(ref) < 2 {
		return nil
	}
	t, err := RunLevel(ref, []RunRate{c})
	if err != nil || t.SE == 0 && t.Current < t.Reference {
		// SE 0: the baseline's runs never varied and their pairs never
		// failed, so any fall would read p = 0; no spread is known to
		// weigh the fall against, and the report says nothing of it.
		return nil
	}
	return &promptcanary.RunSpread{BaselineRuns: t.K, BaselineRate: t.Reference, CurrentRate: t.Current,
		SD: t.SD, BetweenRunSD: math.Sqrt(t.Tau2), P: t.P}
}

// runOfSample returns the index of the baseline run whose samples hold
// the baseline sample smp, -1 when none does.
func runOfSample(runs []promptcanary.BaselineRun, smp int) int {
	for i := range runs {
		if runs[i].Holds(smp) {
			return i
		}
	}
	return -1
}

func comparePairKeys(a, b promptcanary.PairKey) int {
	return cmp.Or(cmp.Compare(a.ProbeID, b.ProbeID), cmp.Compare(a.PromptID, b.PromptID))
}
