package drift

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
)

// TestStudentUpper checks the t tail against closed forms (df 1 and 2),
// tabulated quantiles and the normal tail at a large df.
func TestStudentUpper(t *testing.T) {
	closed := []struct {
		name string
		df   float64
		f    func(x float64) float64
	}{
		{"df=1 (Cauchy)", 1, func(x float64) float64 { return 0.5 - math.Atan(x)/math.Pi }},
		{"df=2", 2, func(x float64) float64 {
			// ½(1 − x/√(2+x²)), written without the cancellation at large x.
			r := math.Sqrt(2 + x*x)
			if x < 0 {
				return 1 - 1/(r*(r-x))
			}
			return 1 / (r * (r + x))
		}},
	}
	for _, c := range closed {
		t.Run(c.name, func(t *testing.T) {
			for _, x := range []float64{-30, -3, -0.5, 0, 1e-6, 0.3, 1, 2.5, 7, 40, 1e4} {
				if got, want := StudentUpper(x, c.df), c.f(x); math.Abs(got-want) > 1e-12*max(1, want*1e3) || relErr(got, want) > 1e-9 {
					t.Errorf("StudentUpper(%g, %g) = %.15g, want %.15g", x, c.df, got, want)
				}
			}
		})
	}
	for _, c := range []struct{ x, df, want float64 }{
		{12.706204736, 1, 0.025}, {2.015048373, 5, 0.05}, {5.893429531, 5, 0.001},
		{2.262157163, 9, 0.025}, {2.045229642, 29, 0.025},
		{8.610302, 4, 0.0005}, {22.32712, 2, 0.001},
	} {
		if got := StudentUpper(c.x, c.df); relErr(got, c.want) > 1e-5 {
			t.Errorf("StudentUpper(%g, %g) = %.9g, want %g", c.x, c.df, got, c.want)
		}
	}
	for _, x := range []float64{0.5, 2, 4} {
		want := 0.5 * math.Erfc(x/math.Sqrt2)
		if got := StudentUpper(x, 1e7); relErr(got, want) > 1e-5 {
			t.Errorf("StudentUpper(%g, 1e7) = %g, want the normal tail %g", x, got, want)
		}
	}
	if got := StudentUpper(math.Inf(1), 3); got != 0 {
		t.Errorf("StudentUpper(+Inf) = %g, want 0", got)
	}
	if got := StudentUpper(math.Inf(-1), 3); got != 1 {
		t.Errorf("StudentUpper(-Inf) = %g, want 1", got)
	}
	for _, c := range [][2]float64{{math.NaN(), 3}, {1, 0}, {1, -2}} {
		if got := StudentUpper(c[0], c[1]); !math.IsNaN(got) {
			t.Errorf("StudentUpper(%g, %g) = %g, want NaN", c[0], c[1], got)
		}
	}
}

func relErr(got, want float64) float64 {
	if want == 0 {
		return math.Abs(got)
	}
	return math.Abs(got-want) / math.Abs(want)
}

// TestRegIncBeta checks I_x(a, b) against a plain midpoint sum of the
// beta density, and its symmetry I_x(a, b) = 1 − I_{1−x}(b, a).
func TestRegIncBeta(t *testing.T) {
	for _, c := range []struct{ a, b float64 }{{1, 1}, {2, 3}, {0.5, 0.5}, {2.5, 0.5}, {14.5, 0.5}, {5, 9}} {
		for _, x := range []float64{0.01, 0.2, 0.5, 0.77, 0.99} {
			got, want := regIncBeta(c.a, c.b, x), betaByQuadrature(c.a, c.b, x)
			if math.Abs(got-want) > 2e-6 {
				t.Errorf("regIncBeta(%g, %g, %g) = %.9f, want %.9f", c.a, c.b, x, got, want)
			}
			if sym := 1 - regIncBeta(c.b, c.a, 1-x); math.Abs(got-sym) > 1e-12 {
				t.Errorf("regIncBeta(%g, %g, %g) = %.15f, but 1 − I_(1−x)(b, a) = %.15f", c.a, c.b, x, got, sym)
			}
		}
	}
	if got := regIncBeta(2, 3, 0); got != 0 {
		t.Errorf("regIncBeta at 0 = %g, want 0", got)
	}
	if got := regIncBeta(2, 3, 1); got != 1 {
		t.Errorf("regIncBeta at 1 = %g, want 1", got)
	}
}

// betaByQuadrature is I_x(a, b) by substituting u = y^(1/a) where the
// density is singular at 0 and summing midpoints; the reference for
// regIncBeta.
func betaByQuadrature(a, b, x float64) float64 {
	integral := func(hi float64) float64 {
		// ∫_0^hi y^(a−1)(1−y)^(b−1) dy with y = u^(1/a): dy = (1/a)u^(1/a−1)du,
		// so the integrand becomes (1/a)(1−u^(1/a))^(b−1) over u in [0, hi^a].
		const n = 400000
		top := math.Pow(hi, a)
		var sum float64
		for i := range n {
			u := (float64(i) + 0.5) * top / n
			y := math.Pow(u, 1/a)
			sum += math.Pow(1-y, b-1)
		}
		return sum * top / n / a
	}
	if x > 0.5 {
		return 1 - betaByQuadratureUpper(a, b, x)
	}
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	la, _ := math.Lgamma(a + b)
	return integral(x) / math.Exp(lb+lc-la)
}

func betaByQuadratureUpper(a, b, x float64) float64 { return betaByQuadrature(b, a, 1-x) }

// TestRunLevel checks the statistic against a computation by hand.
func TestRunLevel(t *testing.T) {
	ref := []RunRate{{0.80, 0.001}, {0.84, 0.001}, {0.76, 0.001}, {0.82, 0.001}, {0.78, 0.001}}
	cur := []RunRate{{0.70, 0.002}, {0.72, 0.004}}
	got, err := RunLevel(ref, cur)
	if err != nil {
		t.Fatal(err)
	}
	// m = 0.80, s² = (0 + 0.0016 + 0.0016 + 0.0004 + 0.0004)/4 = 0.001,
	// τ² = 0.001 − 0.001 = 0, c̄ = 0.71, v̄_c = 0.003,
	// SE = √(0/2 + 0.003/2 + 0.001/5) = √0.0017.
	se := math.Sqrt(0.0017)
	want := RunLevelTest{K: 5, N: 2, Reference: 0.80, Current: 0.71, SD: math.Sqrt(0.001), Tau2: 0, SE: se, T: 0.09 / se, DF: 4}
	want.P = StudentUpper(want.T, 4)
	checkRunLevel(t, got, want)

	// A spread beyond sampling: τ² = s² − v̄_b.
	for i := range ref {
		ref[i].Var = 0.0004
	}
	got, _ = RunLevel(ref, cur[:1])
	se = math.Sqrt(0.0006 + 0.002 + 0.001/5)
	want = RunLevelTest{K: 5, N: 1, Reference: 0.80, Current: 0.70, SD: math.Sqrt(0.001), Tau2: 0.0006, SE: se, T: 0.10 / se, DF: 4}
	want.P = StudentUpper(want.T, 4)
	checkRunLevel(t, got, want)
}

func checkRunLevel(t *testing.T, got, want RunLevelTest) {
	t.Helper()
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12 }
	if got.K != want.K || got.N != want.N || got.DF != want.DF || !near(got.Reference, want.Reference) || !near(got.Current, want.Current) ||
		!near(got.SD, want.SD) || !near(got.Tau2, want.Tau2) || !near(got.SE, want.SE) || !near(got.T, want.T) || !near(got.P, want.P) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if !(got.P > 0 && got.P < 1) {
		t.Errorf("P = %g, want in (0, 1)", got.P)
	}
}

// TestRunLevelSmallK: with two reference runs df is 1 and a drop the
// normal would call significant is not; a third run tightens the tail.
func TestRunLevelSmallK(t *testing.T) {
	two := []RunRate{{0.80, 0}, {0.82, 0}}
	cur := []RunRate{{0.70, 0}}
	got, err := RunLevel(two, cur)
	if err != nil {
		t.Fatal(err)
	}
	// s² = 0.0002, τ² = 0.0002, SE = √(0.0002 + 0.0002/2) = √0.0003.
	wantT := 0.11 / math.Sqrt(0.0003)
	if got.DF != 1 || math.Abs(got.T-wantT) > 1e-12 {
		t.Fatalf("df %d, t %g, want 1, %g", got.DF, got.T, wantT)
	}
	if want := 0.5 - math.Atan(wantT)/math.Pi; math.Abs(got.P-want) > 1e-12 {
		t.Errorf("P = %g, want the Cauchy tail %g", got.P, want)
	}
	if normal := 0.5 * math.Erfc(wantT/math.Sqrt2); got.P < 100*normal {
		t.Errorf("P = %g, want far above the normal tail %g at df 1", got.P, normal)
	}
	three, _ := RunLevel(append(two, RunRate{0.81, 0}), cur)
	if three.DF != 2 || three.P >= got.P {
		t.Errorf("three runs: df %d P %g, want df 2 and P below two runs' %g", three.DF, three.P, got.P)
	}
}

// TestRunLevelZeroSpread: identical reference runs with no binomial
// variance leave SE 0; the test then says only which side the mean is on.
func TestRunLevelZeroSpread(t *testing.T) {
	ref := []RunRate{{1, 0}, {1, 0}, {1, 0}}
	for _, c := range []struct {
		cur   float64
		t, p  float64
		label string
	}{
		{0.9, math.Inf(1), 0, "below"}, {1, 0, 0.5, "equal"},
	} {
		got, err := RunLevel(ref, []RunRate{{c.cur, 0}})
		if err != nil {
			t.Fatal(err)
		}
		if got.SE != 0 || got.Tau2 != 0 || got.T != c.t || got.P != c.p {
			t.Errorf("%s: SE %g τ² %g t %g P %g, want 0, 0, %g, %g", c.label, got.SE, got.Tau2, got.T, got.P, c.t, c.p)
		}
	}
	got, _ := RunLevel([]RunRate{{0.5, 0}, {0.5, 0}}, []RunRate{{0.6, 0}})
	if !math.IsInf(got.T, -1) || got.P != 1 {
		t.Errorf("above: t %g P %g, want −Inf, 1", got.T, got.P)
	}
}

// TestRunLevelTau2FloorsAtZero: a reference whose rates vary less than
// sampling explains has τ² 0, not a negative variance.
func TestRunLevelTau2FloorsAtZero(t *testing.T) {
	ref := []RunRate{{0.80, 0.01}, {0.81, 0.01}, {0.79, 0.01}}
	got, err := RunLevel(ref, []RunRate{{0.75, 0.01}})
	if err != nil {
		t.Fatal(err)
	}
	if got.Tau2 != 0 {
		t.Errorf("τ² = %g, want 0", got.Tau2)
	}
	if want := math.Sqrt(0.01 + 0.0001/3); math.Abs(got.SE-want) > 1e-12 {
		t.Errorf("SE = %g, want %g", got.SE, want)
	}
}

// TestRunLevelCalibrated: under the model the test assumes (normal run
// offsets of variance τ² plus sampling noise of a known variance v) a 5%
// test rejects about 5% of drift-free trials when v is 0 (then t is
// exactly Student's), and at most that with sampling noise: where a small
// k's s² falls below v̄_b, τ² is floored at 0 and the test is cautious.
func TestRunLevelCalibrated(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, c := range []struct {
		k      int
		sd, v  float64 // binomial SD in the rates, the variance the runs state
		lo, hi float64
	}{
		{2, 0, 0, 0.044, 0.056}, {3, 0, 0, 0.044, 0.056}, {30, 0, 0, 0.044, 0.056},
		{3, 0.01, 0.0001, 0.025, 0.056}, {6, 0.01, 0.0001, 0.035, 0.056}, {30, 0.01, 0.0001, 0.044, 0.056},
	} {
		const trials = 20000
		rejected := 0
		draw := func() RunRate { return RunRate{0.8 + 0.02*rng.NormFloat64() + c.sd*rng.NormFloat64(), c.v} }
		for range trials {
			ref := make([]RunRate, c.k)
			for i := range ref {
				ref[i] = draw()
			}
			r, err := RunLevel(ref, []RunRate{draw()})
			if err != nil {
				t.Fatal(err)
			}
			if r.P < 0.05 {
				rejected++
			}
		}
		// 20,000 trials: the rate's SD is 0.15 points; the bounds are 4σ.
		if rate := float64(rejected) / trials; rate < c.lo || rate > c.hi {
			t.Errorf("k=%d, sampling SD %g: rejected %.4f of drift-free trials at 5%%, want %g–%g", c.k, c.sd, rate, c.lo, c.hi)
		}
	}
}

func TestRunLevelRefuses(t *testing.T) {
	ok := []RunRate{{0.5, 0.01}, {0.6, 0.01}}
	for _, c := range []struct {
		name     string
		ref, cur []RunRate
		want     string
	}{
		{"one reference run", ok[:1], ok, "1 reference runs: need at least 2"},
		{"no reference run", nil, ok, "0 reference runs"},
		{"no current run", ok, nil, "no current run"},
		{"rate above 1", ok, []RunRate{{1.2, 0}}, "current run 1: rate 1.2 is not in [−1, 1]"},
		{"NaN rate", []RunRate{{0.5, 0}, {math.NaN(), 0}}, ok, "reference run 2: rate NaN"},
		{"negative variance", ok, []RunRate{{0.5, -1}}, "current run 1: variance -1"},
		{"infinite variance", []RunRate{{0.5, math.Inf(1)}, {0.5, 0}}, ok, "reference run 1: variance +Inf"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := RunLevel(c.ref, c.cur)
			if err == nil || !errors.Is(err, errRunLevel) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error with %q", err, c.want)
			}
		})
	}
}

func TestSuiteRunRate(t *testing.T) {
	res := func(probe, prompt string, passed ...bool) []promptcanary.ProbeResult {
		var out []promptcanary.ProbeResult
		for i, p := range passed {
			out = append(out, promptcanary.ProbeResult{ProbeID: probe, PromptID: prompt, Sample: i, Passed: p})
		}
		return out
	}
	// a/x 3 of 4, a/y 1 of 1, b/x 0 of 2: an adaptive run's uneven samples.
	run := append(append(res("a", "x", true, true, true, false), res("a", "y", true)...), res("b", "x", false, false)...)
	ref := map[promptcanary.PairKey]float64{{ProbeID: "a", PromptID: "x"}: 0.5, {ProbeID: "b", PromptID: "x"}: 0.1}
	got, ok := SuiteRunRate(run, ref)
	if !ok {
		t.Fatal("ok = false, want true")
	}
	// Rate: (0.75 + 1 + 0)/3. Var: (0.5·0.5/4 + 1·0/1 (own rate) + 0.1·0.9/2)/9.
	wantRate, wantVar := 1.75/3, (0.0625+0+0.045)/9
	if math.Abs(got.Rate-wantRate) > 1e-15 || math.Abs(got.Var-wantVar) > 1e-15 {
		t.Errorf("got %+v, want {Rate:%g Var:%g}", got, wantRate, wantVar)
	}
	pr := PairRates(run)
	if len(pr) != 3 || pr[promptcanary.PairKey{ProbeID: "a", PromptID: "x"}] != 0.75 || pr[promptcanary.PairKey{ProbeID: "b", PromptID: "x"}] != 0 {
		t.Errorf("PairRates = %v, want a/x 0.75, a/y 1, b/x 0", pr)
	}
	if _, ok := SuiteRunRate(nil, ref); ok {
		t.Error("empty run: ok = true, want false")
	}
}

// pooledResults returns the results of one pair over baseline runs, run i
// passing passes[i] of its per samples, numbered one run after another.
func pooledResults(probe, prompt string, per int, passes ...int) []res {
	var out []res
	for i, p := range passes {
		for s := range per {
			out = append(out, res{probe: probe, prompt: prompt, sample: i*per + s, passed: s < p, score: b2score(s < p)})
		}
	}
	return out
}

func b2score(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// TestCompareRunSpread: a baseline pooling runs gets the run-level spread
// in its report, computed per baseline run and pair; a one-run baseline
// none.
func TestCompareRunSpread(t *testing.T) {
	const per = 4
	base := append(pooledResults("p", "a", per, 4, 3, 2), pooledResults("p", "b", per, 3, 3, 1)...)
	b := makeBaseline("s", base)
	for i := range 3 {
		b.Runs = append(b.Runs, promptcanary.BaselineRun{RunID: fmt.Sprint("r", i), FirstSample: i * per, Samples: per})
	}
	cur := makeRun("s", append(binarySamples("p", "a", 2, 4), binarySamples("p", "b", 1, 4)...))
	rep, err := Compare(b, &cur, fixedOpts())
	if err != nil {
		t.Fatal(err)
	}
	got := rep.RunSpread
	if got == nil {
		t.Fatal("RunSpread = nil, want the spread of 3 baseline runs")
	}
	// Pooled pair rates: a 9/12, b 7/12. Runs: (1 + 0.75)/2, (0.75 + 0.75)/2,
	// (0.5 + 0.25)/2; each run's variance (pa(1−pa)/4 + pb(1−pb)/4)/4.
	pa, pb := 0.75, 7.0/12
	v := (pa*(1-pa)/4 + pb*(1-pb)/4) / 4
	want, _ := RunLevel([]RunRate{{0.875, v}, {0.75, v}, {0.375, v}}, []RunRate{{(0.5 + 0.25) / 2, v}})
	if got.BaselineRuns != 3 || math.Abs(got.BaselineRate-want.Reference) > 1e-12 || math.Abs(got.CurrentRate-0.375) > 1e-12 ||
		math.Abs(got.SD-want.SD) > 1e-12 || math.Abs(got.BetweenRunSD-math.Sqrt(want.Tau2)) > 1e-12 || math.Abs(got.P-want.P) > 1e-12 {
		t.Errorf("got %+v, want runs 3, rates %g → 0.375, SD %g, between %g, P %g", *got, want.Reference, want.SD, math.Sqrt(want.Tau2), want.P)
	}
	b.Runs = nil
	if rep, _ := Compare(b, &cur, fixedOpts()); rep.RunSpread != nil {
		t.Errorf("one-run baseline: RunSpread = %+v, want nil", *rep.RunSpread)
	}
}
