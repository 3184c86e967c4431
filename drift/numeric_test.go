package drift

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/promptcanary/promptcanary"
)

func TestFisherKnownValues(t *testing.T) {
	tests := []struct {
		name                 string
		bPass, bN, cPass, cN int
		wantP, wantMinP      float64
	}{
		{"29/30 vs 6/10", 29, 30, 6, 10, 0.00995732574679943, 0.0003829740671845935},
		{"identical all-pass", 30, 30, 20, 20, 1, 1},
		{"all fail now", 30, 30, 0, 20, 1 / 47129212243960.0, 1 / 47129212243960.0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, minP := fisherLess(tc.bPass, tc.bN, tc.cPass, tc.cN)
			if !relNear(p, tc.wantP, 1e-9) || !relNear(minP, tc.wantMinP, 1e-9) {
				t.Errorf("got p=%g minP=%g, want %g %g", p, minP, tc.wantP, tc.wantMinP)
			}
		})
	}
	// The lower and upper tails of a hypergeometric add up to 1 + pmf.
	h := hyper{total: 50, succ: 41, n: 20}
	for x := 11; x <= 20; x++ {
		got := h.lowerTail(x) + h.upperTail(x) - math.Exp(h.logPMF(x))
		if !relNear(got, 1, 1e-12) {
			t.Errorf("tails at %d: got %v, want 1", x, got)
		}
	}
	// Log-space pmf stays finite where factorials overflow.
	big := hyper{total: 3000, succ: 1500, n: 1000}
	if v := big.logPMF(500); math.IsInf(v, 0) || math.IsNaN(v) || v > 0 {
		t.Errorf("got log pmf %v for a large table, want a finite negative value", v)
	}
	if p := fisherTwoSided(29, 30, 6, 10); !(p > 0.00995 && p < 0.02) {
		t.Errorf("got two-sided p %v, want between the one-sided p and twice it", p)
	}
}

func TestWilsonAndNewcombe(t *testing.T) {
	lo, hi := wilson(29, 30, z95)
	if !near(lo, 0.8332960900859082, 1e-12) || !near(hi, 0.9940914096183874, 1e-12) {
		t.Errorf("wilson 29/30: got [%v, %v], want [0.8333, 0.9941]", lo, hi)
	}
	lo, hi = wilson(6, 10, z95)
	if !near(lo, 0.31267376973365824, 1e-12) || !near(hi, 0.8318196702937638, 1e-12) {
		t.Errorf("wilson 6/10: got [%v, %v], want [0.3127, 0.8318]", lo, hi)
	}
	if lo, hi := wilson(0, 5, z95); lo != 0 || !(hi > 0.43 && hi < 0.44) {
		t.Errorf("wilson 0/5: got [%v, %v], want [0, 0.435]", lo, hi)
	}
	d, lo, hi := newcombe(29, 30, 6, 10, z95)
	if !near(d, -0.36666666666666664, 1e-12) || !near(lo, -0.6553, 1e-4) || !near(hi, -0.0992, 1e-4) {
		t.Errorf("newcombe: got %v [%v, %v], want -0.3667 [-0.6553, -0.0992]", d, lo, hi)
	}
	// One stratum of MOVER is Newcombe's interval itself.
	m, ml, mh := moverMean([]float64{d}, []float64{lo}, []float64{hi})
	if m != d || !near(ml, lo, 1e-15) || !near(mh, hi, 1e-15) {
		t.Errorf("mover of one stratum: got %v [%v, %v], want %v [%v, %v]", m, ml, mh, d, lo, hi)
	}
}

// bruteMW enumerates every subset of the pooled sample as the current one
// and returns P(U ≤ observed U) and P(U = min U).
func bruteMW(base, cur []float64) (p, minP float64) {
	all := append(append([]float64(nil), base...), cur...)
	n, k := len(all), len(cur)
	u := func(c, b []float64) float64 {
		s := 0.0
		for _, x := range c {
			for _, y := range b {
				switch {
				case x > y:
					s++
				case x == y:
					s += 0.5
				}
			}
		}
		return s
	}
	obs := u(cur, base)
	var us []float64
	for mask := 0; mask < 1<<n; mask++ {
		if popcount(mask) != k {
			continue
		}
		var c, b []float64
		for i := range n {
			if mask&(1<<i) != 0 {
				c = append(c, all[i])
			} else {
				b = append(b, all[i])
			}
		}
		us = append(us, u(c, b))
	}
	lo := slices.Min(us)
	for _, v := range us {
		if v <= obs+1e-9 {
			p++
		}
		if v == lo {
			minP++
		}
	}
	return p / float64(len(us)), minP / float64(len(us))
}

func popcount(x int) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

func TestMannWhitneyExact(t *testing.T) {
	tests := []struct {
		name      string
		base, cur []float64
	}{
		{"separated", []float64{4, 5, 6}, []float64{1, 2, 3}},
		{"interleaved", []float64{0.9, 0.8, 0.95, 0.7, 0.85, 0.99}, []float64{0.6, 0.82, 0.75, 0.5, 0.9}},
		{"heavy ties", []float64{1, 1, 1, 0.8, 0.8, 1, 1}, []float64{0.8, 0.8, 0.6, 1, 0.8}},
		{"all tied but one", []float64{1, 1, 1, 1, 1, 1}, []float64{1, 1, 1, 1, 0.5, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantP, wantMin := bruteMW(tc.base, tc.cur)
			r := mannWhitneyLess(tc.base, tc.cur, 0, 2000, rand.New(rand.NewPCG(1, 1)))
			if r.how == howExact && !relNear(r.p, wantP, 1e-9) {
				t.Errorf("got p %v (%s), want %v", r.p, r.how, wantP)
			}
			if r.how == howNormal && wantP <= 0.05 {
				t.Errorf("got a normal approximation for a small exact p %v", wantP)
			}
			if !relNear(r.minP, wantMin, 1e-9) {
				t.Errorf("got min p %v, want %v", r.minP, wantMin)
			}
		})
	}
	// A separated pair: 1/C(6,3) = 0.05.
	if r := mannWhitneyLess([]float64{4, 5, 6}, []float64{1, 2, 3}, 0, 0, nil); !relNear(r.p, 0.05, 1e-12) || r.u != 0 {
		t.Errorf("got p %v U %v, want 0.05 and 0", r.p, r.u)
	}
	// The margin: a shift of 0.02 is not a drop beyond 0.05.
	base := []float64{0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9}
	cur := []float64{0.88, 0.88, 0.88, 0.88, 0.88}
	if r := mannWhitneyLess(base, cur, 0.05, 0, nil); r.p < 0.99 {
		t.Errorf("got p %v for a 0.02 drop with margin 0.05, want at least 0.99", r.p)
	}
	// Scores that never vary cannot show a drop: the margin must not make
	// the pair look testable.
	same := []float64{0.9, 0.9, 0.9, 0.9, 0.9}
	if r := mannWhitneyLess(base, same, 0.05, 0, nil); r.minP != 1 || r.p != 1 {
		t.Errorf("got p %v min p %v for constant scores, want 1 1", r.p, r.minP)
	}
	// With a margin, the smallest p-value is that of the pooled scores as
	// observed: here that of the unshifted test.
	_, wantMin := bruteMW([]float64{0.9, 0.8, 0.95, 0.7}, []float64{0.6, 0.82, 0.75})
	if r := mannWhitneyLess([]float64{0.9, 0.8, 0.95, 0.7}, []float64{0.6, 0.82, 0.75}, 0.05, 0, nil); !relNear(r.minP, wantMin, 1e-9) {
		t.Errorf("got min p %v with a margin, want %v", r.minP, wantMin)
	}
}

func TestMannWhitneyPermutationMatchesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	base := make([]float64, 30)
	cur := make([]float64, 20)
	for i := range base {
		base[i] = math.Round(rng.NormFloat64()*10) / 10
	}
	for i := range cur {
		cur[i] = math.Round(rng.NormFloat64()*10-4) / 10
	}
	var sizes []int
	all := append(append([]float64(nil), base...), cur...)
	slices.Sort(all)
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j] == all[i] {
			j++
		}
		sizes = append(sizes, j-i)
		i = j
	}
	r := mannWhitneyLess(base, cur, 0, 0, nil)
	u2 := int(2 * r.u)
	exact := mwLowerTail(sizes, len(cur), u2, exactWork)
	mc := mwPermutation(sizes, len(cur), u2, 20000, rand.New(rand.NewPCG(3, 4)))
	if se := math.Sqrt(exact * (1 - exact) / 20000); math.Abs(mc-exact) > 4*se+1e-4 {
		t.Errorf("got permutation p %v, want within 4 s.e. of exact %v", mc, exact)
	}
}

func TestHodgesLehmann(t *testing.T) {
	shift, lo, hi, _ := hodgesLehmann([]float64{2, 3, 4}, []float64{1, 2, 3}, nil)
	if shift != -1 || lo > shift || hi < shift {
		t.Errorf("got shift %v [%v, %v], want -1 inside its interval", shift, lo, hi)
	}
	shift, _, _, _ = hodgesLehmann([]float64{0.9, 0.9, 0.8, 1}, []float64{0.7, 0.8, 0.75}, nil)
	if !near(shift, -0.15, 1e-12) {
		t.Errorf("got shift %v, want -0.15", shift)
	}
}

func TestStratifiedExact(t *testing.T) {
	strata := []hyper{{10, 6, 4}, {8, 3, 5}, {12, 9, 6}}
	p, minP := stratifiedLess(strata, 8)
	if !relNear(p, 0.41510126777983913, 1e-9) || !relNear(minP, 7.730364873222016e-06, 1e-9) {
		t.Errorf("got p %v minP %v, want 0.4151 7.73e-06", p, minP)
	}
	// One stratum is Fisher's test.
	fp, fmin := fisherLess(29, 30, 6, 10)
	p, minP = stratifiedLess([]hyper{{40, 35, 10}}, 6)
	if !relNear(p, fp, 1e-9) || !relNear(minP, fmin, 1e-9) {
		t.Errorf("got p %v minP %v, want Fisher's %v %v", p, minP, fp, fmin)
	}
	// Degenerate strata only shift the sum.
	p, _ = stratifiedLess([]hyper{{50, 50, 20}, {40, 35, 10}}, 26)
	if !relNear(p, fp, 1e-9) {
		t.Errorf("got p %v with a degenerate stratum, want %v", p, fp)
	}
}

// bruteSuite enumerates every within-stratum relabelling.
func bruteSuite(strata []stratum) float64 {
	obs := 0
	dist := map[int]float64{0: 1}
	for _, s := range strata {
		all := append(append([]int(nil), s.base...), s.cur...)
		for _, v := range s.cur {
			obs += v
		}
		n, k := len(all), len(s.cur)
		sums := map[int]float64{}
		total := 0.0
		for mask := 0; mask < 1<<n; mask++ {
			if popcount(mask) != k {
				continue
			}
			sum := 0
			for i := range n {
				if mask&(1<<i) != 0 {
					sum += all[i]
				}
			}
			sums[sum]++
			total++
		}
		nd := map[int]float64{}
		for a, pa := range dist {
			for b, pb := range sums {
				nd[a+b] += pa * pb / total
			}
		}
		dist = nd
	}
	p := 0.0
	for s, v := range dist {
		if s <= obs {
			p += v
		}
	}
	return p
}

func TestSuitePermutation(t *testing.T) {
	strata := []stratum{
		{base: []int{7, 7, 6, 7, 5, 7}, cur: []int{4, 5, 6, 3}},
		{base: []int{3, 3, 2, 3, 3}, cur: []int{2, 1, 3}},
		{base: []int{5, 5, 5}, cur: []int{5, 5}},
	}
	want := bruteSuite(strata)
	got, ok := permExact(strata, 4+5+6+3+2+1+3+10)
	if !ok || !relNear(got, want, 1e-9) {
		t.Errorf("got exact p %v (ok %v), want %v", got, ok, want)
	}
	r := stratifiedPermutationLess(strata, 0, nil)
	if r.how != howExact || !relNear(r.p, want, 1e-9) {
		t.Errorf("got %s p %v, want exact %v", r.how, r.p, want)
	}
	mc := permMonteCarlo(strata, int(r.stat), 20000, rand.New(rand.NewPCG(5, 6)))
	if se := math.Sqrt(want * (1 - want) / 20000); math.Abs(mc-want) > 4*se+1e-4 {
		t.Errorf("got Monte Carlo p %v, want within 4 s.e. of %v", mc, want)
	}
	// Identical responses everywhere: nothing to test.
	flat := []stratum{{base: []int{7, 7, 7}, cur: []int{7, 7}}}
	if r := stratifiedPermutationLess(flat, 0, nil); r.p != 1 || r.minP != 1 {
		t.Errorf("got p %v minP %v for identical responses, want 1 1", r.p, r.minP)
	}
}

func TestMultiplicity(t *testing.T) {
	q := benjaminiHochberg([]float64{0.01, 0.04, 0.03, 0.005})
	want := []float64{0.02, 0.04, 0.04, 0.02}
	for i := range q {
		if !near(q[i], want[i], 1e-12) {
			t.Errorf("q[%d]: got %v, want %v", i, q[i], want[i])
		}
	}
}

func TestDiscreteBH(t *testing.T) {
	const alpha = 0.01
	cont := func(p, w float64) discreteUnit { return discreteUnit{p: p, w: w, minP: 1e-12} }
	coarse := func(p float64) discreteUnit {
		return discreteUnit{p: p, w: 1, minP: 5e-4, support: []float64{5e-4, 0.2, 1}}
	}
	// A lone testable unit: τ_m solves t/(1−t) = alpha, and the constant
	// unit (p = 1 whatever the data) is left out of the family.
	tauOne := alpha / (1 + alpha)
	// A pair at its smallest attainable p 9e-4 among 12 units whose own
	// smallest attainable p is 5e-4, the next 0.2: plain Benjamini–Hochberg
	// over the 13 needs p ≤ alpha/13 = 7.7e-4 (Tarone keeps all 13), but
	// each of the 12 counts only 5e-4 at threshold 9e-4.
	withCoarse := []discreteUnit{{p: 9e-4, w: 1, minP: 9e-4, support: []float64{9e-4, 0.5, 1}}}
	for range 12 {
		withCoarse = append(withCoarse, coarse(1))
	}
	coarseQ := 9e-4/(1-9e-4) + 12*5e-4/(1-5e-4)
	tests := []struct {
		name     string
		units    []discreteUnit
		wantQ    []float64
		tol      float64
		wantTauM float64
		wantTau1 float64
	}{
		{"lone unit", []discreteUnit{{p: 1, w: 1, minP: 1}, cont(1e-3, 1)},
			[]float64{1, 1e-3 / (1 - tauOne)}, 1e-9, tauOne, alpha * (1 - tauOne)},
		{"coarse neighbours count their attainable value", withCoarse,
			append([]float64{coarseQ}, slices.Repeat([]float64{1}, 12)...), 1e-9, 0, 0},
		// Weights act as in weighted Benjamini–Hochberg: p/w is 0.004 and
		// 0.002, total weight 1.25, so both q ≈ 1.25·0.004/2 = 0.0025 (up to
		// the 1/(1 − F(τ_m)) factor of about 1.6%).
		{"weights", []discreteUnit{cont(0.004, 1), cont(5e-4, 0.25)},
			[]float64{0.0025, 0.0025}, 0.02, 0, 0},
		{"nothing testable", []discreteUnit{{p: 1, w: 1, minP: 1}}, []float64{1}, 0, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, tauM, tau1 := discreteBH(tc.units, alpha)
			for i := range q {
				if !relNear(q[i], tc.wantQ[i], tc.tol) {
					t.Errorf("q[%d]: got %v, want %v", i, q[i], tc.wantQ[i])
				}
			}
			if tc.wantTauM != 0 && !relNear(tauM, tc.wantTauM, 1e-9) {
				t.Errorf("τ_m: got %v, want %v", tauM, tc.wantTauM)
			}
			if tc.wantTau1 != 0 && !relNear(tau1, tc.wantTau1, 1e-9) {
				t.Errorf("τ_1: got %v, want %v", tau1, tc.wantTau1)
			}
		})
	}
	// Plain Benjamini–Hochberg would not reject the coarse case.
	if bh := benjaminiHochberg([]float64{9e-4, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}); bh[0] <= alpha {
		t.Errorf("got plain BH q %v, want above %v", bh[0], alpha)
	}
}

func TestNullSupports(t *testing.T) {
	// Every p-value fisherLess can return for the margins is in the
	// support, which is increasing and ends at 1.
	h := hyper{total: 50, succ: 41, n: 20}
	sup := h.lowerTails()
	lo, hi := h.support()
	for x := lo; x <= hi; x++ {
		p, _ := fisherLess(41-x, 30, x, 20)
		if !slices.Contains(sup, p) {
			t.Errorf("fisher p %v at %d: not in the support %v", p, x, sup)
		}
	}
	if !slices.IsSorted(sup) || sup[len(sup)-1] != 1 {
		t.Errorf("got support %v, want increasing up to 1", sup)
	}
	// The stratified support lists the p-value of every attainable sum up
	// to where its exact lower tail covers supportCover.
	strata := []hyper{{total: 50, succ: 45, n: 20}, {total: 50, succ: 30, n: 20}, {total: 40, succ: 39, n: 10}}
	w := []int{5, 1, 20}
	_, minP, ssup := weightedStratifiedSupport(strata, w, 0, false, true)
	if len(ssup) < 2 || ssup[0] != minP || ssup[len(ssup)-1] < supportCover || !slices.IsSorted(ssup) {
		t.Fatalf("got support %v (minP %v), want increasing from minP past %v", ssup, minP, supportCover)
	}
	base := 0
	for i, s := range strata {
		l, _ := s.support()
		base += w[i] * l
	}
	for obs := base; ; obs++ {
		p, _ := weightedStratifiedLess(strata, w, obs, false)
		if p > ssup[len(ssup)-1] {
			break
		}
		if !slices.Contains(ssup, p) {
			t.Fatalf("p %v at sum %d: not in the support %v", p, obs, ssup)
		}
	}
}

func TestMinDetectableDrop(t *testing.T) {
	// Exact Fisher power 0.8 at one-sided level 0.05, baseline rate 0.95,
	// n per side; the spec's normal-approximation figures are 50/32/18.
	tests := []struct {
		bPass, n int
		level    float64
		want     float64
	}{
		{5, 5, 0.05, 0.8313911510410747},
		{10, 10, 0.05, 0.4836572374148522},
		{19, 20, 0.05, 0.34606155931340044},
		{48, 50, 0.05, 0.17465063994505844},
	}
	for _, tc := range tests {
		got := minDetectableDrop(tc.bPass, tc.n, tc.n, tc.level)
		if !near(got, tc.want, 1e-6) {
			t.Errorf("mdd(%d/%d): got %v, want %v", tc.bPass, tc.n, got, tc.want)
		}
	}
	if got := minDetectableDrop(30, 30, 20, 0.01); !near(got, 0.3132998786374239, 1e-6) {
		t.Errorf("mdd 30/30 vs 20: got %v, want 0.3133", got)
	}
	if got := minDetectableDrop(0, 30, 20, 0.01); !math.IsNaN(got) {
		t.Errorf("got %v for a baseline that never passed, want NaN", got)
	}
	if got := minDetectableDrop(2, 2, 2, 0.001); !math.IsInf(got, 1) {
		t.Errorf("got %v for 2 samples at level 0.001, want +Inf", got)
	}
}

func TestTextSimilarity(t *testing.T) {
	a, b := newProfile("The cat sat on the mat"), newProfile("the cat sat")
	if got := tokenF1(&a, &b); !near(got, 2*3.0/9, 1e-12) {
		t.Errorf("token F1: got %v, want %v", got, 2*3.0/9)
	}
	if got := chrF(&a, &a); !near(got, 1, 1e-12) {
		t.Errorf("chrF of a text with itself: got %v, want 1", got)
	}
	c := newProfile("zzz qqq")
	if got := chrF(&a, &c); got != 0 {
		t.Errorf("chrF of disjoint texts: got %v, want 0", got)
	}
	if got := chrF(&b, &a); !(got > 0.3 && got < 1) {
		t.Errorf("chrF of a prefix: got %v, want strictly between 0.3 and 1", got)
	}
}

func relNear(a, b, rel float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b))
}

// bruteWeighted enumerates every combination of per-stratum counts.
func bruteWeighted(strata []hyper, w []int, obs int) float64 {
	p := 0.0
	var rec func(i, sum int, pr float64)
	rec = func(i, sum int, pr float64) {
		if i == len(strata) {
			if sum <= obs {
				p += pr
			}
			return
		}
		lo, hi := strata[i].support()
		for x := lo; x <= hi; x++ {
			rec(i+1, sum+w[i]*x, pr*math.Exp(strata[i].logPMF(x)))
		}
	}
	rec(0, 0, 1)
	return p
}

func TestWeightedStratifiedExact(t *testing.T) {
	strata := []hyper{{10, 6, 4}, {8, 3, 5}, {12, 9, 6}, {50, 49, 20}, {50, 50, 20}}
	w := []int{1, 3, 2, 13, 1}
	_, wantMin := stratifiedLess(strata, 0)
	for _, obs := range []int{273, 280, 290, 295, 300, 304} {
		want := bruteWeighted(strata, w, obs)
		got, minP := weightedStratifiedLess(strata, w, obs, false)
		if !relNear(got, want, 1e-9) && math.Abs(got-want) > 1e-15 {
			t.Errorf("obs %d: got p %v, want %v", obs, got, want)
		}
		if !relNear(minP, wantMin, 1e-9) {
			t.Errorf("obs %d: got minP %v, want %v (weights do not change it)", obs, minP, wantMin)
		}
	}
}

func TestPairWeight(t *testing.T) {
	tests := []struct {
		succ, total, res, want int
	}{
		{25, 50, 2, 2},  // p̂ 0.5: the resolution itself
		{45, 50, 2, 6},  // p̂ 0.9: 2/(4·0.09) = 5.6
		{49, 50, 2, 26}, // one failure in 50: 2/(4·0.0196) = 25.5
		{49, 50, 1, 13},
		{50, 50, 2, 1}, // constant pairs cannot vary
		{0, 50, 2, 1},
	}
	for _, tc := range tests {
		if got := pairWeight(tc.succ, tc.total, tc.res); got != tc.want {
			t.Errorf("pairWeight(%d, %d, %d): got %d, want %d", tc.succ, tc.total, tc.res, got, tc.want)
		}
	}
}

func TestUnitWeight(t *testing.T) {
	tests := []struct {
		name string
		u    familyUnit
		want float64
	}{
		{"pair", familyUnit{TestedUnit: promptcanary.TestedUnit{Kind: promptcanary.UnitPair}}, 1},
		{"score", familyUnit{TestedUnit: promptcanary.TestedUnit{Kind: promptcanary.UnitPair}, score: true}, 0.25},
		{"probe", familyUnit{TestedUnit: promptcanary.TestedUnit{Kind: promptcanary.UnitProbe}}, 1},
		{"suite", familyUnit{TestedUnit: promptcanary.TestedUnit{Kind: promptcanary.UnitSuite}}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := unitWeight(&tc.u); !near(got, tc.want, 1e-12) {
				t.Errorf("got weight %v, want %v", got, tc.want)
			}
		})
	}
}

func TestPairDetectableDrop(t *testing.T) {
	tests := []struct {
		name     string
		nb, nc   int
		wantInf  bool
		wantDrop float64 // 0 when wantInf
	}{
		{"one baseline sample sees nothing", 1, 20, true, 0},
		{"no current sample sees nothing", 30, 0, true, 0},
		{"a default baseline", 30, 20, false, minDetectableDrop(30, 30, 20, DefaultAlpha)},
		{"a thin baseline", 5, 20, false, minDetectableDrop(5, 5, 20, DefaultAlpha)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := PairDetectableDrop(tc.nb, tc.nc, DefaultAlpha)
			if tc.wantInf != math.IsInf(got, 1) || (!tc.wantInf && got != tc.wantDrop) {
				t.Errorf("got %v, want %v (inf %v)", got, tc.wantDrop, tc.wantInf)
			}
		})
	}
	// A thinner baseline can only see larger drops.
	if thin, full := PairDetectableDrop(5, 20, DefaultAlpha), PairDetectableDrop(30, 20, DefaultAlpha); !(thin > full) {
		t.Errorf("got %v with 5 baseline samples and %v with 30, want the thin one larger", thin, full)
	}
}
